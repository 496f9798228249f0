/**
 * A base URL with a query or fragment (an API URL copied whole, `?token=` and all): the API's
 * paths and the token were appended after it, every request asked the service's root, and the
 * 404's message quoted the base URL with the token it held. The client and the command line
 * refuse it at once, quoting neither.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let dir: string;
let copied: string;

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(tmpdir(), 'cs-base-query-'));
  copied = `${server.url}/v2/cdn/stories?token=${PUBLIC}`;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a base URL with a query', () => {
  it('sync() refuses it before any request, without quoting the token it holds', async () => {
    const failure = await sync({ baseUrl: copied, token: PUBLIC, out: path.join(dir, 'lib') }).catch(
      (err: Error) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/has a query/);
    expect((failure as Error).message).not.toContain(PUBLIC);
  });

  it('sync on the command line refuses it (and a fragment) as a usage error, without quoting the token', async () => {
    for (const baseUrl of [copied, `${server.url}#token=${PUBLIC}`]) {
      const r = await runCli(['sync', '--base-url', baseUrl, '--out', path.join(dir, 'cli')], {
        CONTENT_TOKEN: PUBLIC,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--base-url has a (query|fragment)/);
      expect(r.stderr + r.stdout).not.toContain(PUBLIC);
    }
  }, 60_000);
});
