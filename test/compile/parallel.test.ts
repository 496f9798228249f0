/**
 * A full compile in several threads (worker threads beside the calling one)
 * writes what a compile in one thread writes, byte for byte, and an
 * incremental compile resumes from it as from any other; a thread that fails
 * stops the compile with its error.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/index.js';
import { chunkOfId, chunkCount, rawModulePath } from '../../src/compile/emit.js';
import { indexColumns, indexRows } from '../../src/compile/worker-protocol.js';
import type { IndexRow } from '../../src/snapshot/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { INDEX_FILES, type StoryIndexEntry } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { DEMO_RESOLVE, bytesDiff, readGenerated, readOutput } from './support.js';

const TOKEN = 'parallel-public';
const STATE = '.content-sync-compile.json';
const OPTIONS: Omit<CompileOptions, 'snapshot' | 'out'> = { ...DEMO_RESOLVE, chunkSize: 8 };

let server: RunningServer;
let snapshot: string;
const doSync = () => sync({ baseUrl: server.url, token: TOKEN, out: snapshot, ...unpaced() });

beforeAll(async () => {
  server = await startServer({
    space: generateDemoSpace({ stories: 150 }),
    publicToken: TOKEN,
    rateLimit: false,
    admin: true,
  });
  snapshot = await tempDir('parallel-snapshot');
  await doSync();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('a full compile in several threads', () => {
  it('writes the bytes a compile in one thread writes, and resumes incrementally like it', async () => {
    const one = await tempDir('parallel-one');
    const three = await tempDir('parallel-three');
    const progress: Record<string, Array<[number, number]>> = { one: [], three: [] };
    const a = await compile({
      snapshot,
      out: one,
      ...OPTIONS,
      threads: 1,
      onProgress: (d, t) => progress.one!.push([d, t]),
    });
    const b = await compile({
      snapshot,
      out: three,
      ...OPTIONS,
      threads: 3,
      onProgress: (d, t) => progress.three!.push([d, t]),
    });
    // Progress chunk by chunk, in either case: rising to every story of the index.
    for (const events of Object.values(progress)) {
      expect(events.length).toBe(chunkCount(a.stories, OPTIONS.chunkSize));
      expect(events.map(([d]) => d)).toEqual([...events.map(([d]) => d)].sort((x, y) => x - y));
      expect(events.at(-1)).toEqual([a.compiled, a.compiled]);
    }
    expect(chunkCount(a.stories, OPTIONS.chunkSize)).toBeGreaterThanOrEqual(16);
    expect(b).toMatchObject({
      mode: 'full',
      stories: a.stories,
      modules: a.modules,
      written: a.written,
      warnings: a.warnings,
    });
    // The state's type counts may hold other values past the literal cap; the files do not differ.
    expect(bytesDiff(await readOutput(one), await readOutput(three), [STATE])).toEqual([]);
    expect(readFileSync(path.join(three, 'types.d.ts'), 'utf8')).toMatch(/^export type ArticleContent = /m);

    // An edit, compiled into both: the same files written, the same bytes.
    const index = JSON.parse(readFileSync(path.join(snapshot, INDEX_FILES.stories), 'utf8')) as StoryIndexEntry[];
    const article = index.find((e) => e.component === 'article')!;
    await admin(server.url, 'PUT', `/stories/${article.id}`, { content: { title: 'Edited between two compiles' } });
    await admin(server.url, 'POST', `/stories/${article.id}/publish`);
    await doSync();
    const a2 = await compile({ snapshot, out: one, ...OPTIONS, threads: 1 });
    const b2 = await compile({ snapshot, out: three, ...OPTIONS, threads: 3 });
    expect(b2.mode).toBe('incremental');
    expect(b2.written).toEqual(a2.written);
    expect(b2.written).toContain(rawModulePath(article.id));
    expect(bytesDiff(await readOutput(one), await readOutput(three), [STATE])).toEqual([]);
    expect(
      readGenerated<{ default: { content: { title: string } } }>(three, `stories/${article.id}.js`).default.content
        .title,
    ).toBe('Edited between two compiles');
  }, 60_000);

  it('stops with the error of a worker thread that fails', async () => {
    const out = await tempDir('parallel-fail');
    const index = JSON.parse(readFileSync(path.join(snapshot, INDEX_FILES.stories), 'utf8')) as StoryIndexEntry[];
    const chunkTotal = chunkCount(index.filter((e) => e.published).length, OPTIONS.chunkSize);
    // A story of the last chunk (any thread may take it) whose raw module cannot be written (a directory is in the way).
    const victim = index.filter((e) => e.published && chunkOfId(e.id, chunkTotal) === chunkTotal - 1).at(-1)!;
    mkdirSync(path.join(out, rawModulePath(victim.id)), { recursive: true });
    await expect(compile({ snapshot, out, ...OPTIONS, threads: 2 })).rejects.toThrow(/EISDIR/);
    // Nothing is left half-done: the next compile into a clean directory works, in threads.
    const again = await tempDir('parallel-again');
    const r = await compile({ snapshot, out: again, ...OPTIONS, threads: 2 });
    expect(r.mode).toBe('full');
  }, 60_000);
});

describe('the stories index as worker threads are given it', () => {
  it('comes back as the rows it was made from, whatever their strings and the fields they lack', () => {
    const rows: IndexRow[] = [
      {
        id: 1,
        uuid: 'aaaaaaaa-0000-4000-8000-000000000001',
        digest: '0123456789abcdef',
        component: 'article',
        published: true,
        at: 2,
        size: 300,
      },
      { id: 22, uuid: 'with\nnewline, ümlaut and 😀', digest: '', component: 'page', published: false },
      { id: 333, uuid: '', digest: 'd', at: 0, size: 5 },
      { id: 4444, uuid: 'x', digest: 'fedcba9876543210', component: 'article', published: true },
    ];
    const back = indexRows(structuredClone(indexColumns(rows)));
    expect(back).toEqual(rows);
    // No key the row did not have (an absent field stays absent, not undefined).
    expect(back.map((r) => Object.keys(r).sort())).toEqual(rows.map((r) => Object.keys(r).sort()));
    expect(indexRows(indexColumns([]))).toEqual([]);
  });
});
