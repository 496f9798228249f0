/**
 * Two compiles in one process (as in the dev server): the second resumes from
 * the state kept in memory and compares shared files with the texts it wrote.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { settled } from '../../src/compile/compile.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

describe('compile twice in one process', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer({ admin: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-in-process-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a changed shared file (index.js) is rewritten, never removed, and matches a fresh compile', async () => {
    const snapshot = path.join(dir, 'snapshot');
    const out = path.join(dir, 'out');
    const opts = { snapshot, out, resolveLinks: 'url' as const };
    await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot });
    await compile(opts);
    await settled();

    const put = await fetch(`${server.url}/__admin/stories/13`, { method: 'PUT', body: JSON.stringify({ name: 'Second post, renamed' }) });
    expect(put.status).toBe(200);
    expect((await fetch(`${server.url}/__admin/stories/13/publish`, { method: 'POST' })).status).toBe(200);
    await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, events: [{ action: 'published', space_id: 4242, story_id: 13 }] });

    const result = await compile(opts);
    expect(result.mode).toBe('incremental');
    expect(result.written).toContain('index.js');
    expect(result.deleted).toEqual([]);
    expect(existsSync(path.join(out, 'index.js'))).toBe(true);
    expect(readFileSync(path.join(out, 'index.js'), 'utf8')).toContain('Second post, renamed');
    await settled();

    const fresh = path.join(dir, 'fresh');
    await compile({ ...opts, out: fresh, full: true });
    await settled();
    for (const rel of ['index.js', 'index.d.ts', 'types.ts', 'stories.d.ts', 'stories/13.js']) {
      expect(readFileSync(path.join(out, rel), 'utf8')).toBe(readFileSync(path.join(fresh, rel), 'utf8'));
    }
  });
});
