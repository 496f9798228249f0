/**
 * What each retry says of the attempts left: a service that refuses connections is given up on
 * after four attempts, so its retries count down to that, not to the nine other failures get
 * (the last line said "6 attempts left", then the sync failed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../../src/sync/index.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cs-retry-lines-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A loopback port nothing listens on now: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('retries of a service that refuses connections', () => {
  it('count down to the attempt the client gives up at', async () => {
    const retries: Array<{ attempt: number; retriesLeft: number }> = [];
    const failure = await sync({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      token: 'token',
      out: path.join(dir, 'refused'),
      client: { minBackoffMs: 1, onRetry: (r) => retries.push(r) },
    }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/connection refused.*attempt 4\)/);
    expect(retries.map((r) => [r.attempt, r.retriesLeft])).toEqual([
      [1, 3],
      [2, 2],
      [3, 1],
    ]);
  });
});
