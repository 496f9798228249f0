/**
 * A hostile server for tests: a loopback HTTP server in front of the real local service. Each
 * request goes to `handle`, which may forward it (`forward()` fetches the service's answer, to
 * pass on as it is or changed) or answer on its own (an endless body, a compression bomb, a
 * redirect elsewhere).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type HostileHandler = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  forward: () => Promise<Upstream>,
) => Promise<void> | void;

export interface Hostile {
  url: string;
  /** Paths (with query) of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Writes an upstream answer (changed or not) back to the client. */
export function reply(res: http.ServerResponse, answer: Upstream): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(answer.body);
}

export async function startHostile(target: string | undefined, handle: HostileHandler): Promise<Hostile> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '/');
    const forward = async (): Promise<Upstream> => {
      if (!target) throw new Error('this hostile server has nothing behind it');
      const r = await fetch(target + (req.url ?? '/'), { redirect: 'manual' });
      const headers: Record<string, string> = {};
      // The body is passed on decoded, so its framing headers are the proxy's own.
      r.headers.forEach((value, key) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(key))
          headers[key] = value;
      });
      return { status: r.status, headers, body: Buffer.from(await r.arrayBuffer()) };
    };
    Promise.resolve(handle(req, res, forward)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The query of a request, as URLSearchParams. */
export const queryOf = (req: http.IncomingMessage): URLSearchParams => new URL(req.url ?? '/', 'http://x').searchParams;
