/**
 * The embedded service's port, kept between runs. The service delivers asset URLs at its own
 * origin: on another port, every story with an asset differs from the snapshot, and the first sync
 * after a change to the space rewrites them all (and the compile compiles them again). So the port
 * used last is tried first, and any free one when it is taken.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The server `start` gives, on the port kept in `file` when it is free, else on any (the one used is kept). */
export async function onKeptPort<S extends { url: string }>(
  file: string,
  start: (port: number) => Promise<S>,
): Promise<S> {
  const kept = keptPort(file);
  let server: S | undefined;
  if (kept !== undefined) {
    try {
      server = await start(kept);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EACCES') throw err;
    }
  }
  server ??= await start(0);
  const port = new URL(server.url).port;
  if (port !== String(kept)) {
    try {
      // The content directory may not exist yet: the first sync makes it after the service starts.
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${port}\n`);
    } catch {
      // Not kept: the next run takes any port, which costs a larger sync after a change, nothing more.
    }
  }
  return server;
}

function keptPort(file: string): number | undefined {
  try {
    const port = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(port) && port >= 1024 && port <= 65535 ? port : undefined;
  } catch {
    return undefined;
  }
}
