/**
 * The compile state is on disk when compile() returns: nothing of the compile
 * runs after it (deleting the output right after used to meet a state write
 * still under way, an unhandled ENOENT rejection).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

const STATE = '.content-sync-compile.json';

describe('the compile state file', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer({ admin: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-state-'));
    await sync({ baseUrl: server.url, token: PUBLIC, out: path.join(dir, 'snapshot') });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exists when compile() returns, and the output can be removed at once', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      for (const full of [true, false]) {
        const out = path.join(dir, `out-${full}`);
        const first = await compile({ snapshot: path.join(dir, 'snapshot'), out, full });
        expect(first.mode).toBe('full');
        expect(existsSync(path.join(out, STATE)), 'state file after compile()').toBe(true);
        expect(() => JSON.parse(readFileSync(path.join(out, STATE), 'utf8'))).not.toThrow();
        rmSync(out, { recursive: true, force: true });
      }
      // Anything the compiles left running would fail now, with the directory gone.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    expect(rejections).toEqual([]);
  });
});
