/**
 * sync() called from a script without types: options the CLI and the plugin never pass are
 * refused by name before any request or write, not as a 404 blaming the base URL.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SyncOptions, sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { removeTempDirs, tempDir } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

const untyped = (o: Record<string, unknown>) =>
  sync({ baseUrl: server.url, token: PUBLIC, ...o } as unknown as SyncOptions);

it('refuses a wrong api, a wrong view or no out, naming the option, and writes nothing', async () => {
  const out = path.join(await tempDir('untyped'), 'snapshot');
  await expect(untyped({ out, api: 'v3' })).rejects.toThrow("api must be 'v1' or 'v2', got v3");
  await expect(untyped({ out, views: ['drafts'] })).rejects.toThrow(
    "views must hold 'published' and/or 'draft', got drafts",
  );
  await expect(untyped({})).rejects.toThrow('sync needs out');
  expect(existsSync(out)).toBe(false);
});
