/**
 * Two compiles in one process (as in the dev server): the second resumes from
 * the state kept in memory, rewrites only what changed, and ends where a
 * fresh full compile does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompileCache, compile } from '../../src/compile/index.js';
import { CHUNKS, chunkOfId, chunkCount } from '../../src/compile/emit.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { walk } from './support.js';

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

  it('a changed chunk of the index is rewritten, never removed, and the output matches a fresh compile', async () => {
    const snapshot = path.join(dir, 'snapshot');
    const out = path.join(dir, 'out');
    const opts = { snapshot, out, resolveLinks: 'url' as const, chunkSize: 4, cache: new CompileCache() };
    await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot });
    const first = await compile(opts);
    const chunk = CHUNKS.entries(chunkOfId(13, chunkCount(first.stories, opts.chunkSize)));

    const put = await fetch(`${server.url}/__admin/stories/13`, {
      method: 'PUT',
      body: JSON.stringify({ name: 'Second post, renamed' }),
    });
    expect(put.status).toBe(200);
    expect((await fetch(`${server.url}/__admin/stories/13/publish`, { method: 'POST' })).status).toBe(200);
    await sync({
      baseUrl: server.url,
      token: PUBLIC,
      out: snapshot,
      events: [{ action: 'published', space_id: 4242, story_id: 13 }],
    });

    const result = await compile(opts);
    expect(result.mode).toBe('incremental');
    expect(result.written).toContain(chunk);
    expect(result.written).not.toContain('index.js');
    expect(result.deleted).toEqual([]);
    expect(readFileSync(path.join(out, chunk), 'utf8')).toContain('Second post, renamed');

    const fresh = path.join(dir, 'fresh');
    await compile({ ...opts, out: fresh, full: true });
    const files = (await walk(fresh)).filter((rel) => rel !== '.content-sync-compile.json');
    expect(files).toEqual((await walk(out)).filter((rel) => rel !== '.content-sync-compile.json'));
    for (const rel of files)
      expect(readFileSync(path.join(out, rel), 'utf8'), rel).toBe(readFileSync(path.join(fresh, rel), 'utf8'));
  });
});
