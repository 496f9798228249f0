/**
 * Incremental compiles over the demo space served by the local service: an
 * edit rewrites the story's raw module, the story modules whose bytes change
 * and the chunks of the index whose bytes change, and nothing else (bytes and
 * mtime); modules that embed the story import its raw module and stay; a
 * deletion removes both modules; the output is deterministic and equals a
 * full compile's. Chunks are small here (16 chunks), so most are left alone.
 */
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Story } from '../../src/api/index.js';
import { CompileCache, compile, type CompileOptions, type CompileResult } from '../../src/compile/index.js';
import { CHUNKS, GENERATED_NAMES, chunkOfId, chunkCount } from '../../src/compile/emit.js';
import { chunkOfView } from '../../src/compile/views.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { INDEX_FILES, type StoryIndexEntry } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { bytesDiff, importFresh, readGenerated, readOutput, touched, walk, type FileState } from './support.js';

/** Files besides those of the lean index modules (see views.ts: they come and go with the content types of each chunk). */
const withoutLeanIndex = (files: string[]) =>
  files.filter((r) => chunkOfView(r) === undefined && !r.startsWith('views/'));

const TOKEN = 'incremental-public';
const PREVIEW = 'incremental-preview';
const STATE = '.content-sync-compile.json';
const OPTIONS: Omit<CompileOptions, 'snapshot' | 'out'> = {
  resolveRelations: ['article.author'],
  resolveLinks: 'url',
  chunkSize: 10,
};
const PAST = new Date('2001-01-01T00:00:00Z');

let server: RunningServer;
let published: number;
let snapshot: string;
let out: string;

const doSync = () => sync({ baseUrl: server.url, token: TOKEN, out: snapshot, ...unpaced() });
const doCompile = (dir = out, full = false): Promise<CompileResult> =>
  compile({ snapshot, out: dir, ...OPTIONS, ...(full ? { full: true } : {}) });

/**
 * Sets every output file's mtime to a fixed past instant, so that any write shows. The state file
 * too, once written: the next compile reads it from disk rather than from this process's memory.
 */
async function ageOutput(dir: string): Promise<void> {
  for (const rel of await walk(dir)) utimesSync(path.join(dir, rel), PAST, PAST);
}

/** Published stories of the snapshot: id, uuid, component, and the raw text of the record. */
function snapshotStories(): Array<{ id: number; uuid: string; component: string; text: string }> {
  const index = JSON.parse(readFileSync(path.join(snapshot, INDEX_FILES.stories), 'utf8')) as StoryIndexEntry[];
  return index.map((e) => {
    const text = readFileSync(path.join(snapshot, 'stories', `${e.id}.json`), 'utf8');
    const record = JSON.parse(text) as { published?: { story: Story } | null };
    return { id: e.id, uuid: e.uuid, component: record.published?.story.content.component ?? '', text };
  });
}

/** For every story embedded as a resolved `author`, the story modules that embed it (any language). */
async function embedders(): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const rel of (await walk(out)).filter((r) => r.startsWith('stories/'))) {
    const mod = readGenerated<Record<string, Story>>(out, rel);
    const uuids = new Set<string>();
    for (const s of Object.values(mod)) {
      const author = (s.content as Record<string, unknown>).author;
      if (typeof author === 'object' && author !== null) uuids.add((author as Story).uuid);
    }
    for (const u of uuids) found.set(u, [...(found.get(u) ?? []), rel].sort());
  }
  return found;
}

/**
 * The files a compile wrote are exactly those whose bytes changed and exactly
 * those whose mtime moved; returns them.
 */
function checkWrites(before: Map<string, FileState>, after: Map<string, FileState>, result: CompileResult): string[] {
  const changed = bytesDiff(before, after, [STATE]);
  const moved = touched(before, after).filter((r) => r !== STATE);
  expect(moved).toEqual(changed);
  expect(result.written).toEqual(changed.filter((r) => after.has(r)));
  return changed;
}

/** An incremental output equals a full compile of the same snapshot, every file but the state. */
async function expectEqualsFull(): Promise<void> {
  const fresh = await tempDir('compile-full');
  const full = await doCompile(fresh, true);
  expect(full.mode).toBe('full');
  expect(bytesDiff(await readOutput(out), await readOutput(fresh), [STATE])).toEqual([]);
}

beforeAll(async () => {
  const space = generateDemoSpace({ stories: 150 });
  published = space.stories.filter((r) => r.published).length;
  server = await startServer({ space, publicToken: TOKEN, previewToken: PREVIEW, rateLimit: false, admin: true });
  snapshot = await tempDir('compile-snapshot');
  out = await tempDir('compile-out');
  await doSync();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('incremental compile over the demo space', () => {
  it('is deterministic: two full compiles give the same bytes for every file', async () => {
    const a = await tempDir('compile-a');
    const b = await tempDir('compile-b');
    const ra = await doCompile(a, true);
    const rb = await doCompile(b, true);
    // The state files are written after the compiles return.
    expect(ra.stories).toBe(published);
    expect(ra.modules).toBe(published * 3);
    expect(ra.written).toEqual(rb.written);
    const ta = await readOutput(a);
    const tb = await readOutput(b);
    expect([...ta.keys()]).toEqual([...tb.keys()]);
    expect(bytesDiff(ta, tb)).toEqual([]);
  });

  it('follows edits, relations and deletions, touching only what changed', async () => {
    const first = await doCompile();
    expect(first.mode).toBe('full');
    const storyModules = (await walk(out)).filter((r) => r.startsWith('stories/'));
    expect(storyModules.length).toBe(first.stories);

    // A compile with nothing new writes nothing.
    await ageOutput(out);
    let before = await readOutput(out);
    const idle = await doCompile();
    expect(idle).toMatchObject({ mode: 'incremental', written: [], deleted: [] });
    expect(touched(before, await readOutput(out))).toEqual([]);

    // An article nothing points at: edited and published, synced, compiled.
    const stories = snapshotStories();
    const lonely = stories.find(
      (s) => s.component === 'article' && stories.every((o) => o.id === s.id || !o.text.includes(s.uuid)),
    )!;
    expect(lonely).toBeDefined();
    await admin(server.url, 'PUT', `/stories/${lonely.id}`, {
      content: { title: 'An edited title for the incremental compile' },
    });
    await admin(server.url, 'POST', `/stories/${lonely.id}/publish`);
    await doSync();
    await ageOutput(out);
    before = await readOutput(out);
    const edit = await doCompile();
    let after = await readOutput(out);
    expect(edit.mode).toBe('incremental');
    expect(edit.deleted).toEqual([]);
    let changed = checkWrites(before, after, edit);
    // Its raw module; its story module only imports it, so its bytes stay.
    const storyFiles = (files: string[]) => files.filter((r) => r.startsWith('stories/') || r.startsWith('raw/'));
    expect(storyFiles(changed)).toEqual([`raw/${lonely.id}.js`]);
    // Its chunk of the index (its publication date moved), nothing else of the index.
    const chunkTotal = chunkCount(first.stories, OPTIONS.chunkSize);
    expect(chunkTotal).toBe(16);
    const chunk = chunkOfId(lonely.id, chunkTotal);
    expect(changed).toContain(CHUNKS.entries(chunk));
    // (And the files of that chunk in the lean index modules: see views.ts.)
    const allowed = [
      'types.d.ts',
      CHUNKS.entries(chunk),
      CHUNKS.entriesTypes(chunk),
      CHUNKS.stories(chunk),
      `raw/${lonely.id}.js`,
      ...changed.filter((r) => chunkOfView(r) === chunk),
    ];
    expect(changed.filter((r) => !allowed.includes(r))).toEqual([]);
    const edited = await importFresh<{ default: Story }>(path.join(out, 'stories', `${lonely.id}.js`));
    expect(edited.default.content.title).toBe('An edited title for the incremental compile');
    await expectEqualsFull();

    // An author that articles relate to: its raw module, which every module that embeds it imports; those
    // are compiled again (the backlinks say which) and stay as they are unless a link in them shows the change.
    const authors = stories.filter((s) => s.component === 'author');
    const byAuthor = await embedders();
    let best: { uuid: string; id: number; embedders: string[] } | undefined;
    for (const a of authors) {
      const list = byAuthor.get(a.uuid) ?? [];
      if (!best || list.length > best.embedders.length) best = { uuid: a.uuid, id: a.id, embedders: list };
    }
    expect(best!.embedders.length).toBeGreaterThan(1);
    await admin(server.url, 'PUT', `/stories/${best!.id}`, { content: { name: 'Renamed Author For Compile' } });
    await admin(server.url, 'POST', `/stories/${best!.id}/publish`);
    await doSync();
    await ageOutput(out);
    before = await readOutput(out);
    const rel = await doCompile();
    after = await readOutput(out);
    changed = checkWrites(before, after, rel);
    expect(storyFiles(changed)).toEqual([`raw/${best!.id}.js`]);
    expect(rel.written.filter((r) => r.startsWith('stories/'))).toEqual([]);
    // Only the author was compiled again: the others import it as it is.
    expect(rel.compiled).toBe(1);
    expect((await embedders()).get(best!.uuid)).toEqual(best!.embedders);
    for (const file of best!.embedders) {
      const mod = readGenerated<Record<string, Story>>(out, file);
      const author = mod.default!.content.author as Story;
      expect(author.content.name).toBe('Renamed Author For Compile');
    }
    await expectEqualsFull();

    // The author unpublished: the stories that imported it are compiled again and hold its uuid.
    await admin(server.url, 'POST', `/stories/${best!.id}/unpublish`);
    await doSync();
    await ageOutput(out);
    before = await readOutput(out);
    const gone = await doCompile();
    after = await readOutput(out);
    changed = checkWrites(before, after, gone);
    expect(gone.compiled).toBe(best!.embedders.length);
    expect(withoutLeanIndex(gone.deleted)).toEqual([`raw/${best!.id}.js`, `stories/${best!.id}.js`]);
    expect(storyFiles(changed)).toEqual([`raw/${best!.id}.js`, ...best!.embedders, `stories/${best!.id}.js`].sort());
    for (const file of best!.embedders) {
      // The author is gone: left out of the resolved value, and named in the warning.
      expect(readGenerated<Record<string, Story>>(out, file).default!.content.author).toBeNull();
    }
    expect(gone.warnings.join('\n')).toContain(best!.uuid);
    await expectEqualsFull();

    // A deleted story: its module goes, the other story modules stay as they are.
    await admin(server.url, 'DELETE', `/stories/${lonely.id}`);
    await doSync();
    await ageOutput(out);
    before = await readOutput(out);
    const del = await doCompile();
    after = await readOutput(out);
    expect(withoutLeanIndex(del.deleted)).toEqual([`raw/${lonely.id}.js`, `stories/${lonely.id}.js`]);
    expect(after.has(`stories/${lonely.id}.js`)).toBe(false);
    changed = checkWrites(before, after, del);
    expect(storyFiles(changed)).toEqual([`raw/${lonely.id}.js`, `stories/${lonely.id}.js`]);
    expect(changed).toContain(CHUNKS.entries(chunk));
    expect(changed).not.toContain('index.js');
    expect(del.stories).toBe(first.stories - 2); // this one and the author unpublished above
    await expectEqualsFull();

    // And then nothing again.
    await ageOutput(out);
    before = await readOutput(out);
    const again = await doCompile();
    expect(again).toMatchObject({ written: [], deleted: [] });
    expect(touched(before, await readOutput(out))).toEqual([]);
  }, 60_000);

  it('a full compile into a used directory removes the modules of stories that are gone', async () => {
    const used = await tempDir('compile-used');
    await doCompile(used);
    const gone = snapshotStories().find((s) => s.component === 'product')!;
    expect(existsSync(path.join(used, 'stories', `${gone.id}.js`))).toBe(true);
    await admin(server.url, 'DELETE', `/stories/${gone.id}`);
    await doSync();
    const full = await doCompile(used, true);
    expect(full.mode).toBe('full');
    expect(withoutLeanIndex(full.deleted)).toEqual([`raw/${gone.id}.js`, `stories/${gone.id}.js`]);
    expect(existsSync(path.join(used, 'stories', `${gone.id}.js`))).toBe(false);
    const fresh = await tempDir('compile-fresh');
    await doCompile(fresh, true);
    expect(bytesDiff(await readOutput(used), await readOutput(fresh), [STATE])).toEqual([]);
  });

  it('without the last state (deleted, or a compile killed before writing it), removes the modules of stories gone since', async () => {
    const used = await tempDir('compile-stateless');
    await doCompile(used);
    const gone = snapshotStories().find((s) => s.component === 'product')!;
    await admin(server.url, 'DELETE', `/stories/${gone.id}`);
    await doSync();
    // What a compile killed while writing leaves: no state, a module cut short, a chunk of another layout.
    rmSync(path.join(used, STATE));
    const cut = (await walk(used)).find((r) => r.startsWith('raw/') && r !== `raw/${gone.id}.js`)!;
    writeFileSync(path.join(used, cut), readFileSync(path.join(used, cut), 'utf8').slice(0, 100));
    const otherLayout = CHUNKS.entries(chunkCount(published, OPTIONS.chunkSize) + 7);
    writeFileSync(path.join(used, otherLayout), 'export default [];\n');
    // Files that are not the compile's stay where they are.
    const mine = ['raw/notes.txt', 'chunks/entries-draft.js', 'notes.md'];
    for (const rel of mine) writeFileSync(path.join(used, rel), 'mine');

    const result = await doCompile(used);
    expect(result.mode).toBe('full');
    expect(withoutLeanIndex(result.deleted)).toEqual([otherLayout, `raw/${gone.id}.js`, `stories/${gone.id}.js`]);
    for (const rel of mine) expect(readFileSync(path.join(used, rel), 'utf8')).toBe('mine');
    const fresh = await tempDir('compile-fresh');
    await doCompile(fresh, true);
    expect(bytesDiff(await readOutput(used), await readOutput(fresh), [STATE, ...mine])).toEqual([]);
    // What it takes for its own: every file a compile writes in a directory (and only those here).
    const own = (rel: string) =>
      GENERATED_NAMES.some(([dir, name]) => rel.startsWith(`${dir}/`) && name.test(rel.slice(dir.length + 1)));
    expect((await walk(fresh)).filter((rel) => rel.includes('/') && !own(rel))).toEqual([]);
    expect(mine.filter(own)).toEqual([]);
  });

  it('a relation that names its target by id resolves whether or not the target was read before', async () => {
    const stories = snapshotStories();
    // A story no other story names by uuid: nothing loads it as a target before.
    const author = stories.find(
      (s) => s.component !== 'article' && stories.every((o) => o.id === s.id || !o.text.includes(s.uuid)),
    )!;
    expect(author).toBeDefined();
    const article = stories.filter((s) => s.component === 'article').at(-1)!;
    await admin(server.url, 'PUT', `/stories/${article.id}`, { content: { author: String(author.id) } });
    await admin(server.url, 'POST', `/stories/${article.id}/publish`);
    await doSync();
    // One thread, and chunks compiled in another order by three: the same bytes, the author embedded.
    const one = await tempDir('compile-by-id-one');
    const three = await tempDir('compile-by-id-three');
    await compile({ snapshot, out: one, ...OPTIONS, threads: 1 });
    await compile({ snapshot, out: three, ...OPTIONS, threads: 3 });
    const mod = readGenerated<Record<string, Story>>(one, `stories/${article.id}.js`);
    expect((mod.default!.content.author as Story).uuid).toBe(author.uuid);
    expect(bytesDiff(await readOutput(one), await readOutput(three), [STATE])).toEqual([]);
  });

  it('backlinks follow a story that changes its target and is unpublished, and a chunk that cannot be read back', async () => {
    // A snapshot of both views: unpublished, the story stays in it as a draft, and the compile of
    // the published view compiles it to nothing.
    const both = await tempDir('compile-backlinks-snapshot');
    const syncBoth = () =>
      sync({ baseUrl: server.url, token: PREVIEW, out: both, views: ['published', 'draft'], ...unpaced() });
    // The compiles into `dir` keep their state in memory, as the dev server's do (see ageOutput below).
    const cache = new CompileCache();
    const compileBoth = (dir: string, full = false) =>
      compile({ snapshot: both, out: dir, view: 'published', ...OPTIONS, ...(full ? { full: true } : { cache }) });
    await syncBoth();
    const dir = await tempDir('compile-backlinks');
    await compileBoth(dir);
    /** Every backlinks chunk's lists (each chunk is `export default <json>;`). */
    const backlinksIn = async (): Promise<Record<string, string[]>> => {
      const lists: Record<string, string[]> = {};
      for (const rel of (await walk(dir)).filter((r) => r.startsWith('chunks/backlinks-'))) {
        const text = readFileSync(path.join(dir, rel), 'utf8');
        Object.assign(lists, JSON.parse(text.slice(text.indexOf('export default ') + 15, text.lastIndexOf(';'))));
      }
      return lists;
    };
    const expectFull = async (): Promise<void> => {
      const fresh = await tempDir('compile-backlinks-full');
      await compileBoth(fresh, true);
      expect(bytesDiff(await readOutput(dir), await readOutput(fresh), [STATE])).toEqual([]);
    };
    const stories = snapshotStories();
    const authors = stories.filter((s) => s.component === 'author').map((s) => s.uuid);
    const article = stories.find((s) => {
      const record = JSON.parse(s.text) as { published?: { story: Story } | null };
      return s.component === 'article' && authors.includes(record.published?.story.content.author as string);
    })!;
    expect(article).toBeDefined();
    const from = (JSON.parse(article.text) as { published: { story: Story } }).published.story.content.author as string;
    const to = authors.find((u) => u !== from)!;
    expect((await backlinksIn())[from]).toContain(article.uuid);

    // Its author changed: it leaves the first author's list and joins the other's, in order.
    await admin(server.url, 'PUT', `/stories/${article.id}`, { content: { author: to } });
    await admin(server.url, 'POST', `/stories/${article.id}/publish`);
    await syncBoth();
    // This compile reads the last one's state from its file, the next from this process's memory.
    await ageOutput(dir);
    expect((await compileBoth(dir)).mode).toBe('incremental');
    let lists = await backlinksIn();
    expect(lists[from] ?? []).not.toContain(article.uuid);
    expect(lists[to]).toContain(article.uuid);
    expect(lists[to]).toEqual([...lists[to]!].sort());
    await expectFull();

    // Unpublished: no module, and no longer a referrer of anything.
    await admin(server.url, 'POST', `/stories/${article.id}/unpublish`);
    await syncBoth();
    expect((await compileBoth(dir)).mode).toBe('incremental');
    expect(JSON.parse(readFileSync(path.join(both, INDEX_FILES.stories), 'utf8'))).toContainEqual(
      expect.objectContaining({ id: article.id, published: false }),
    );
    expect(existsSync(path.join(dir, `stories/${article.id}.js`))).toBe(false);
    lists = await backlinksIn();
    expect(Object.values(lists).flat()).not.toContain(article.uuid);
    await expectFull();

    // Published again, its author's chunk altered on disk since the last compile: that chunk is collected anew.
    const chunk = path.join(
      dir,
      (await walk(dir)).find(
        (r) => r.startsWith('chunks/backlinks-') && readFileSync(path.join(dir, r), 'utf8').includes(`"${to}":`),
      )!,
    );
    writeFileSync(chunk, readFileSync(chunk, 'utf8').replace('export default {', 'export default {"x":["y"],'));
    await ageOutput(dir);
    await admin(server.url, 'POST', `/stories/${article.id}/publish`);
    await syncBoth();
    expect((await compileBoth(dir)).mode).toBe('incremental');
    lists = await backlinksIn();
    expect(lists[to]).toContain(article.uuid);
    expect(lists).not.toHaveProperty('x');
    await expectFull();

    // Its author unpublished, with that author's backlinks chunk altered: the stories that embed the
    // author are found without it (asking every story), compiled again, and leave it out.
    writeFileSync(chunk, readFileSync(chunk, 'utf8').replace('export default {', 'export default {"x":["y"],'));
    await ageOutput(dir);
    const author = stories.find((s) => s.uuid === to)!;
    await admin(server.url, 'POST', `/stories/${author.id}/unpublish`);
    await syncBoth();
    const unpublished = await compileBoth(dir);
    expect(unpublished.mode).toBe('incremental');
    expect(unpublished.compiled).toBeGreaterThan(1);
    // The author is no longer published: left out of the article's resolved value.
    expect(readGenerated<Record<string, Story>>(dir, `stories/${article.id}.js`).default!.content.author).toBeNull();
    await expectFull();
  });

  it('an option past the literal cap that loses a held value gets the types of a full compile', async () => {
    const dir = await tempDir('compile-literal-cap');
    // Thirteen values, each on two articles: one past the cap of twelve literals, so a string.
    const articles = snapshotStories()
      .filter((s) => s.component === 'article')
      .slice(0, 26);
    const edition = (k: number) => `edition-${String(k).padStart(2, '0')}`;
    const set = async (id: number, value: string) => {
      await admin(server.url, 'PUT', `/stories/${id}`, { content: { edition: value } });
      await admin(server.url, 'POST', `/stories/${id}/publish`);
    };
    for (const [i, a] of articles.entries()) await set(a.id, edition(i >> 1));
    await doSync();
    expect((await doCompile(dir)).mode).toBe('full');
    expect(readFileSync(path.join(dir, 'types.d.ts'), 'utf8')).toMatch(/\bedition\?: string;/);
    // The state holds twelve of the values (which depends on the order they were seen); one of those leaves.
    const state = JSON.parse(readFileSync(path.join(dir, STATE), 'utf8')) as {
      types: { comps: Record<string, { f: Record<string, { str: { vals: Record<string, number> } }> }> };
    };
    const held = Object.keys(state.types.comps.article!.f.edition!.str.vals);
    expect(held).toHaveLength(12);
    const leaving = articles.filter((_, i) => edition(i >> 1) === held[0]);
    for (const a of leaving) await set(a.id, held[1]!);
    await doSync();
    const again = await doCompile(dir);
    expect(again.mode).toBe('incremental');
    const left = Array.from({ length: 13 }, (_, k) => edition(k)).filter((v) => v !== held[0]);
    expect(readFileSync(path.join(dir, 'types.d.ts'), 'utf8')).toContain(
      `edition?: ${left.map((v) => JSON.stringify(v)).join(' | ')};`,
    );
    const fresh = await tempDir('compile-literal-cap-fresh');
    await doCompile(fresh, true);
    expect(bytesDiff(await readOutput(dir), await readOutput(fresh), [STATE])).toEqual([]);
  });

  it('a state whose type counts cannot be read is compiled again in full, stories gone included', async () => {
    const dir = await tempDir('compile-unreadable-types');
    await doCompile(dir);
    const gone = snapshotStories().find((s) => s.component === 'article')!;
    await admin(server.url, 'DELETE', `/stories/${gone.id}`);
    await doSync();
    const stateFile = path.join(dir, STATE);
    writeFileSync(stateFile, JSON.stringify({ ...JSON.parse(readFileSync(stateFile, 'utf8')), types: { nope: true } }));
    const again = await doCompile(dir);
    expect(again.mode).toBe('full');
    const fresh = await tempDir('compile-unreadable-types-fresh');
    await doCompile(fresh, true);
    expect(bytesDiff(await readOutput(dir), await readOutput(fresh), [STATE])).toEqual([]);
  });

  it('with detected relations, a story created under a uuid a field already names is embedded there by the next compile', async () => {
    const detect: Omit<CompileOptions, 'snapshot' | 'out'> = {
      detectRelations: true,
      resolveLinks: 'story',
      keepUnresolved: true,
      chunkSize: 10,
    };
    const dir = await tempDir('compile-detect-late');
    const stories = snapshotStories();
    const article = stories.filter((s) => s.component === 'article').at(-2)!;
    const author = stories.find((s) => s.component === 'author')!;
    // A uuid no story has yet: the field keeps it (no target, so nothing is reported missing).
    const late = '11111111-2222-4333-8444-555555555555';
    await admin(server.url, 'PUT', `/stories/${article.id}`, { content: { author: late } });
    await admin(server.url, 'POST', `/stories/${article.id}/publish`);
    await doSync();
    expect((await compile({ snapshot, out: dir, ...detect })).mode).toBe('full');
    expect(readGenerated<Record<string, Story>>(dir, `stories/${article.id}.js`).default!.content.author).toBe(late);

    const authorContent = (JSON.parse(author.text) as { published: { story: Story } }).published.story.content;
    const created = await admin(server.url, 'POST', '/stories', {
      name: 'Late author',
      slug: 'late-author',
      uuid: late,
      content: authorContent,
    });
    await admin(server.url, 'POST', `/stories/${(created as { story: Story }).story.id}/publish`);
    await doSync();
    const again = await compile({ snapshot, out: dir, ...detect });
    expect(again.mode).toBe('incremental');
    expect(again.written).toContain(`stories/${article.id}.js`);
    const embedded = readGenerated<Record<string, Story>>(dir, `stories/${article.id}.js`).default!.content.author;
    expect((embedded as Story).uuid).toBe(late);
    const fresh = await tempDir('compile-detect-late-fresh');
    await compile({ snapshot, out: fresh, ...detect, full: true });
    expect(bytesDiff(await readOutput(dir), await readOutput(fresh), [STATE])).toEqual([]);
  });
});
