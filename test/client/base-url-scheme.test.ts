/**
 * A base URL of another scheme than http or https (an ftp:// or a ws:// one): no request to it can
 * succeed, yet sync() from a script tried each nine times, about a minute, before saying so. The
 * client refuses it at once, as the plugin's options and the command line do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../../src/sync/index.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cs-base-scheme-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a base URL that is no http(s) URL', () => {
  it.each(['ftp://127.0.0.1:2121', 'ws://127.0.0.1:3210'])('sync() refuses %s before any request', async (baseUrl) => {
    const retries: string[] = [];
    const failure = await sync({
      baseUrl,
      token: 'token',
      out: path.join(dir, 'lib'),
      client: { onRetry: (r) => retries.push(r.message) },
    }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/must be an http or https URL/);
    expect(retries).toEqual([]);
  });
});
