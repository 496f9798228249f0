/**
 * Peak memory of `content-sync sync` (the built CLI, under `/usr/bin/time -f %M`) against a
 * hostile server on loopback: a body without end, a gzip bomb (4 GB from a few MB on the wire) and
 * a 2 GB body, each as the answer to every request. The cap on response bytes must end each with
 * a clear error at a peak far below the size of the body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DATA, fmt, runBuiltCli } from './lib.js';

type Body = (res: http.ServerResponse) => void;

/** Writes `chunk` again and again, as fast as the client reads, until `total` bytes or the client leaves. */
function stream(res: http.ServerResponse, chunk: Buffer, total = Infinity): void {
  let sent = 0;
  const pump = () => {
    while (!res.destroyed && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

function bodies(): Record<string, { what: string; body: Body }> {
  const text = Buffer.from(`{"name":"${'x'.repeat(64 * 1024 - 10)}",`);
  // A member of 16 MB of JSON-like text, repeated: 4 GB once decompressed.
  const member = gzipSync(Buffer.from(`{"a":"${'content '.repeat(2 * 1024 * 1024 - 1)}"}`), { level: 9 });
  const members = 256;
  return {
    endless: {
      what: 'an endless body (chunked)',
      body: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        stream(res, text);
      },
    },
    bomb: {
      what: `a gzip bomb (${fmt((member.length * members) / 1024 / 1024, 1)} MB on the wire, 4 GB decompressed)`,
      body: (res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(member.length * members),
        });
        stream(res, member, member.length * members);
      },
    },
    big: {
      what: 'a 2 GB body (chunked, no declared length)',
      body: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        stream(res, text, 2 * 1024 ** 3);
      },
    },
  };
}

async function listen(body: Body): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => body(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function benchHostile(): Promise<void> {
  for (const [name, { what, body }] of Object.entries(bodies())) {
    const server = await listen(body);
    try {
      const started = performance.now();
      const out = path.join(DATA, `hostile-${name}`);
      const r = await runBuiltCli(['sync', '--base-url', server.url, '--token', 't', '--out', out], {
        wrap: ['/usr/bin/time', '-f', '%M'],
      });
      const lines = r.stderr.trim().split('\n');
      const kb = Number(lines.pop());
      console.log(
        `hostile: ${what}: exit ${r.code} after ${fmt((performance.now() - started) / 1000, 1)} s, peak RSS ${fmt(kb / 1024, 0)} MB ` +
          `(/usr/bin/time -f %M); said: ${lines.join(' ').slice(0, 240)}`,
      );
    } finally {
      await server.close();
    }
  }
}
