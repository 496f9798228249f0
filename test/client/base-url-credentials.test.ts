/**
 * A base URL with a user name or password (a proxy's basic auth written into it): fetch refuses
 * every request to it with a message quoting the whole URL, the token in its query. The client
 * and the command line refuse it at once, naming neither secret.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'proxy-pw-91c2';
let server: TestServer;
let dir: string;
let withCredentials: string;

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(tmpdir(), 'cs-base-credentials-'));
  withCredentials = server.url.replace('http://', `http://builder:${PASSWORD}@`);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a base URL holding a user name and password', () => {
  it('sync() refuses it before any request, quoting neither the password nor the token', async () => {
    const failure = await sync({
      baseUrl: withCredentials,
      token: PUBLIC,
      out: path.join(dir, 'lib'),
      client: { retries: 0 },
    }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toMatch(/user name or password/);
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain(PUBLIC);
  });

  it('sync on the command line refuses it as a usage error, quoting neither secret', async () => {
    const r = await runCli(['sync', '--base-url', withCredentials, '--out', path.join(dir, 'cli')], {
      CONTENT_TOKEN: PUBLIC,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-url holds a user name or password/);
    expect(r.stderr + r.stdout).not.toContain(PASSWORD);
    expect(r.stderr + r.stdout).not.toContain(PUBLIC);
  }, 60_000);
});
