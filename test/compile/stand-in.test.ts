/**
 * Relation targets at depth 1 are embedded as they are (the story module
 * imports their raw modules) and observed only by content type, so the
 * compiler takes what it needs of them from the stories index instead of
 * reading their records, where the index describes the version the view
 * shows. The output is the one reading every record gives, in both views,
 * with drafts, unpublished targets and a draft that changed content type.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/index.js';
import { rawModulePath } from '../../src/compile/emit.js';
import { DamagedSnapshotError, RecentCache, recordsOf } from '../../src/compile/story.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { FILES, INDEX_FILES, type StoryIndexEntry } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { DEMO_RESOLVE, bytesDiff, readGenerated, readOutput } from './support.js';

const TOKEN = 'stand-in-public';
const PREVIEW = 'stand-in-preview';
const OPTIONS: Omit<CompileOptions, 'snapshot' | 'out'> = { ...DEMO_RESOLVE, threads: 1 };

let server: RunningServer;
let snapshot: string;
let index: StoryIndexEntry[];
/** An article whose author is a story never published. */
let article: StoryIndexEntry;
let hidden: { id: number; uuid: string };
/** An author with a draft of another content type. */
let author: StoryIndexEntry;
/** A story a published story links to, with a German name of its own; and that linking story. */
let linked: { id: number; uuid: string };
let linking: number;
const GERMAN = 'Verlinkte Geschichte';

/** The first story link of a published record of the snapshot: the linking story and the target's uuid. */
function firstStoryLink(dir: string, entries: readonly StoryIndexEntry[]): { from: number; uuid: string } {
  for (const e of entries) {
    if (!e.published) continue;
    const text = readFileSync(path.join(dir, FILES.stories, `${e.id}.json`), 'utf8');
    // Multilink keys in canonical order: cached_url, fieldtype, id, linktype, url.
    const m = /"id": "([0-9a-f-]{36})",\n\s*"linktype": "story"/.exec(text);
    if (m && m[1] !== e.uuid && entries.some((t) => t.uuid === m[1] && t.published)) return { from: e.id, uuid: m[1]! };
  }
  throw new Error('the demo space has no story link');
}

beforeAll(async () => {
  server = await startServer({
    space: generateDemoSpace({ stories: 120 }),
    publicToken: TOKEN,
    previewToken: PREVIEW,
    rateLimit: false,
    admin: true,
  });
  snapshot = await tempDir('stand-in-snapshot');
  await sync({ baseUrl: server.url, token: TOKEN, out: snapshot, ...unpaced() });
  index = JSON.parse(readFileSync(path.join(snapshot, INDEX_FILES.stories), 'utf8')) as StoryIndexEntry[];
  article = index.find((e) => e.component === 'article')!;
  author = index.find((e) => e.component === 'author')!;
  const link = firstStoryLink(snapshot, index);
  linking = link.from;
  linked = index.find((e) => e.uuid === link.uuid)!;
  await admin(server.url, 'PUT', `/stories/${linked.id}`, { lang: 'de', name: GERMAN });
  await admin(server.url, 'POST', `/stories/${linked.id}/publish`);
  const created = (await admin(server.url, 'POST', '/stories', {
    name: 'Never published',
    slug: 'never-published',
    content: { component: 'author', name: 'Hidden' },
  })) as {
    story: { id: number; uuid: string };
  };
  hidden = created.story;
  await admin(server.url, 'PUT', `/stories/${article.id}`, { content: { author: hidden.uuid } });
  await admin(server.url, 'POST', `/stories/${article.id}/publish`);
  // A draft only: the published author stays an author, the draft is a category.
  await admin(server.url, 'PUT', `/stories/${author.id}`, {
    content: { component: 'category', name: 'Draft category' },
  });
  const product = index.find((e) => e.component === 'product')!;
  await admin(server.url, 'POST', `/stories/${product.id}/unpublish`);
  snapshot = await tempDir('stand-in-both');
  await sync({ baseUrl: server.url, token: PREVIEW, out: snapshot, views: ['published', 'draft'], ...unpaced() });
  index = JSON.parse(readFileSync(path.join(snapshot, INDEX_FILES.stories), 'utf8')) as StoryIndexEntry[];
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

/** A copy of the snapshot whose stories index names only ids, uuids and digests: every target is read from its record. */
async function withBareIndex(): Promise<string> {
  const copy = await tempDir('stand-in-bare');
  cpSync(snapshot, copy, { recursive: true });
  const bare = index.map((e) => ({ id: e.id, uuid: e.uuid, digest: e.digest }));
  writeFileSync(path.join(copy, INDEX_FILES.stories), JSON.stringify(bare));
  return copy;
}

/**
 * A copy of the snapshot compiled in full, then `story` changed (a field added to its content,
 * published) and synced into it, and the record of `target` removed: a compile of what changed
 * that read that record would fail (the snapshot is damaged), so one that succeeds did not read it.
 */
async function changedWithoutRecord(
  label: string,
  story: number,
  target: number,
): Promise<{ copy: string; out: string }> {
  const copy = await tempDir(label);
  cpSync(snapshot, copy, { recursive: true });
  const out = await tempDir(`${label}-out`);
  expect((await compile({ snapshot: copy, out, ...OPTIONS })).mode).toBe('full');
  await admin(server.url, 'PUT', `/stories/${story}`, { content: { note: label } });
  await admin(server.url, 'POST', `/stories/${story}/publish`);
  const synced = await sync({
    baseUrl: server.url,
    token: PREVIEW,
    out: copy,
    views: ['published', 'draft'],
    ...unpaced(),
  });
  expect(synced.changed.stories).toContain(story);
  rmSync(path.join(copy, FILES.stories, `${target}.json`));
  return { copy, out };
}

describe('relation targets from the index', () => {
  it('the index says what the views need: content type and publication', () => {
    expect(index.find((e) => e.id === hidden.id)).toMatchObject({ published: false, component: 'author' });
    expect(index.find((e) => e.id === author.id)).toMatchObject({ published: true, component: 'author' });
    // And what links show: the German variant of the linked story has a name of its own.
    expect(index.find((e) => e.id === linked.id)).toMatchObject({ link_fields: { de: { name: GERMAN } } });
  });

  it('reads the rows sync writes beside the index, else the index itself: the same output', async () => {
    expect(existsSync(path.join(snapshot, INDEX_FILES.storyRows))).toBe(true);
    const copyWith = async (name: string, change: (rows: string) => string | undefined): Promise<string> => {
      const copy = await tempDir(`stand-in-rows-${name}`);
      cpSync(snapshot, copy, { recursive: true });
      const file = path.join(copy, INDEX_FILES.storyRows);
      const text = change(readFileSync(file, 'utf8'));
      if (text === undefined) rmSync(file);
      else writeFileSync(file, text);
      return copy;
    };
    // Without rows (an older sync), and with rows that describe another index (a size it does not have).
    const none = await copyWith('none', () => undefined);
    const other = await copyWith('other', (text) =>
      text.replace(/"bytes": (\d+)/, (_, n: string) => `"bytes": ${Number(n) + 1}`),
    );
    expect(readFileSync(path.join(other, INDEX_FILES.storyRows), 'utf8')).not.toBe(
      readFileSync(path.join(snapshot, INDEX_FILES.storyRows), 'utf8'),
    );
    const outs = await Promise.all(['rows', 'none', 'other'].map((n) => tempDir(`stand-in-rows-out-${n}`)));
    const results = [];
    for (const [k, dir] of [snapshot, none, other].entries())
      results.push(await compile({ snapshot: dir, out: outs[k]!, ...OPTIONS }));
    expect(results[1]!.written).toEqual(results[0]!.written);
    expect(results[2]!.written).toEqual(results[0]!.written);
    const [a, b, c] = await Promise.all(outs.map((o) => readOutput(o)));
    expect(bytesDiff(a!, b!)).toEqual([]);
    expect(bytesDiff(a!, c!)).toEqual([]);
  });

  for (const view of ['published', 'draft'] as const) {
    it(`writes what reading every target's record writes (${view} view)`, async () => {
      const bare = await withBareIndex();
      // Links in each mode show their targets otherwise: story embeds them, url and link show their fields.
      for (const resolveLinks of ['story', 'link'] as const) {
        const [a, b] = [
          await tempDir(`stand-in-${view}-${resolveLinks}-index`),
          await tempDir(`stand-in-${view}-${resolveLinks}-bare`),
        ];
        const x = await compile({ snapshot, out: a, view, ...OPTIONS, resolveLinks });
        const y = await compile({ snapshot: bare, out: b, view, ...OPTIONS, resolveLinks });
        expect(x.written).toEqual(y.written);
        expect(bytesDiff(await readOutput(a), await readOutput(b))).toEqual([]);
      }
      const [a, b] = [await tempDir(`stand-in-${view}-index`), await tempDir(`stand-in-${view}-bare`)];
      const fromIndex = await compile({ snapshot, out: a, view, ...OPTIONS });
      const fromRecords = await compile({ snapshot: bare, out: b, view, ...OPTIONS });
      expect(fromIndex.warnings).toEqual(fromRecords.warnings);
      expect(fromIndex.written).toEqual(fromRecords.written);
      expect(bytesDiff(await readOutput(a), await readOutput(b))).toEqual([]);
      const module = readFileSync(path.join(a, `stories/${article.id}.js`), 'utf8');
      if (view === 'published') {
        // Never published: missing from this view, reported, the uuid kept.
        expect(fromIndex.warnings.join('\n')).toContain(hidden.uuid);
        expect(module).not.toContain(rawModulePath(hidden.id));
        // The index describes the published author: an author.
        const field = /^ {2}author: (.*);$/m.exec(readFileSync(path.join(a, 'types.d.ts'), 'utf8'))?.[1];
        expect(field).toContain('Related<AuthorStory>');
        expect(field).not.toContain('CategoryStory');
      } else {
        expect(fromIndex.warnings.join('\n')).not.toContain(hidden.uuid);
        expect(module).toContain(`../${rawModulePath(hidden.id)}`);
        // The draft author is a category in this view: the types say so where articles embed it.
        expect(readFileSync(path.join(a, 'types.d.ts'), 'utf8')).toContain(
          'author: Related<AuthorStory | CategoryStory>;',
        );
      }
    }, 60_000);
  }

  it('does not read the record of a link target: url links show what its index entry says, per language', async () => {
    const { copy, out } = await changedWithoutRecord('stand-in-link-unread', linking, linked.id);
    const r = await compile({ snapshot: copy, out, ...OPTIONS });
    // Compiled again (its raw module has the new field; its story module, the same links, the same bytes).
    expect(r.mode).toBe('incremental');
    expect(r.written).toContain(rawModulePath(linking));
    const module = readFileSync(path.join(out, `stories/${linking}.js`), 'utf8');
    const entry = index.find((e) => e.id === linked.id)!;
    const shown = (name: string, lang: string) =>
      JSON.stringify({
        id: entry.id,
        uuid: entry.uuid,
        name,
        slug: entry.slug,
        full_slug: entry.slugs[lang],
        url: entry.path || entry.slugs[lang],
      });
    const exports = (name: string) => module.split('\n').find((l) => l.startsWith(name))!;
    expect(exports('export default')).toContain(shown(entry.name, 'default'));
    expect(exports('export const de')).toContain(shown(GERMAN, 'de'));
    expect(exports('export const fr')).toContain(shown(entry.name, 'fr'));
  }, 60_000);

  // Linux lists a process's open files in /proc.
  it.skipIf(process.platform !== 'linux')(
    'leaves the stories index closed once it is done, in one thread or several, and after a failure',
    async () => {
      // A copy: the compile reads the index from disk (the rows file), as in another process.
      const copy = await tempDir('stand-in-closed-snapshot');
      cpSync(snapshot, copy, { recursive: true });
      const file = path.join(copy, INDEX_FILES.stories);
      const openIndex = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === file;
          } catch {
            return false;
          }
        }).length;
      expect(openIndex()).toBe(0);
      for (const threads of [1, 2]) {
        const out = await tempDir(`stand-in-closed-${threads}`);
        const r = await compile({ snapshot: copy, out, ...OPTIONS, threads, chunkSize: 16 });
        // Links were read from the index (see above), and the file is closed again.
        expect(readFileSync(path.join(out, `stories/${linking}.js`), 'utf8')).toContain(`"uuid":"${linked.uuid}"`);
        expect(r.mode).toBe('full');
        expect(openIndex()).toBe(0);
      }
      // A compile that fails part way (a directory where a module goes) closes it too.
      const broken = await tempDir('stand-in-closed-broken');
      mkdirSync(path.join(broken, rawModulePath(index.filter((e) => e.published).at(-1)!.id)), { recursive: true });
      await expect(compile({ snapshot: copy, out: broken, ...OPTIONS })).rejects.toThrow(/EISDIR/);
      expect(openIndex()).toBe(0);
    },
    60_000,
  );

  it('does not read the record of a target it embeds from the index', async () => {
    // An article that embeds an author (as its relation), changed; the author's record gone: the
    // article's module is compiled again, importing the author's raw module, without reading it.
    const target = index.find((e) => e.published && e.component === 'author' && e.id !== author.id)!;
    const embedding = index.find(
      (e) =>
        e.published &&
        e.component === 'article' &&
        e.id !== article.id &&
        readFileSync(path.join(snapshot, FILES.stories, `${e.id}.json`), 'utf8').includes(`"author": "${target.uuid}"`),
    )!;
    const { copy, out } = await changedWithoutRecord('stand-in-unread', embedding.id, target.id);
    const r = await compile({ snapshot: copy, out, ...OPTIONS });
    expect(r.mode).toBe('incremental');
    expect(r.written).toContain(rawModulePath(embedding.id));
    expect(r.warnings.join('\n')).not.toContain(target.uuid);
    expect(readFileSync(path.join(out, `stories/${embedding.id}.js`), 'utf8')).toContain(
      `../${rawModulePath(target.id)}`,
    );
  }, 60_000);
});

describe('the caches of a compile', () => {
  it('keep the values most recently set or read, and no more than their limit', () => {
    const cache = new RecentCache<number, string | null>(8);
    for (let k = 0; k < 3; k++) cache.set(k, `v${k}`);
    // null is a value (a story known to be absent), undefined a miss.
    cache.set(3, null);
    expect(cache.get(3)).toBeNull();
    expect(cache.get(99)).toBeUndefined();
    // 0, read again, is kept through the sets that follow; 1, not read, is dropped.
    expect(cache.get(0)).toBe('v0');
    cache.set(4, 'v4');
    cache.set(5, 'v5');
    expect(cache.get(0)).toBe('v0');
    expect(cache.get(1)).toBeUndefined();
    // Whatever the reads and sets, the last four are there, and never more than eight in all.
    for (let k = 10; k < 100; k++) {
      cache.set(k, `v${k}`);
      if (k % 3 === 0) cache.get(k - 5);
      for (let j = Math.max(10, k - 3); j <= k; j++) expect(cache.get(j)).toBe(`v${j}`);
    }
    let held = 0;
    for (let k = 0; k < 100; k++) if (cache.get(k) !== undefined) held++;
    expect(held).toBeLessThanOrEqual(8);
  });
});

describe('the record cache', () => {
  it("keeps the records it reads, but not a story's own (read once to compile it)", async () => {
    const copy = await tempDir('records-keep');
    cpSync(snapshot, copy, { recursive: true });
    const records = recordsOf(
      copy,
      index.map((e) => ({ id: e.id, uuid: e.uuid, digest: e.digest })),
    );
    const [once, kept] = index.filter((e) => e.published);
    expect(records.own(once!.id)?.record.uuid).toBe(once!.uuid);
    expect(records.get(kept!.id)?.uuid).toBe(kept!.uuid);
    // Both records leave the disk: the one kept is still known, the other is read again, and is missing.
    for (const e of [once!, kept!]) rmSync(path.join(copy, FILES.stories, `${e.id}.json`));
    expect(() => records.get(once!.id)).toThrow(DamagedSnapshotError);
    expect(records.get(kept!.id)?.uuid).toBe(kept!.uuid);
  });
});

describe('deeper resolution', () => {
  it('resolves the targets of targets, read from their records, to the depth asked and no deeper', async () => {
    const out = await tempDir('stand-in-depth');
    await compile({ snapshot, out, ...OPTIONS, depth: 2 });
    type Product = { uuid: string; content: { component: string; related_products?: unknown[] } };
    // A product unpublished above is not in the published view: it stays a uuid, at any depth.
    const unpublished = new Set(index.filter((e) => !e.published).map((e) => e.uuid));
    const resolved = (v: unknown): v is Product => typeof v !== 'string' || !unpublished.has(v);
    let checked = 0;
    for (const p of index.filter((e) => e.published && e.component === 'product')) {
      const story = readGenerated<{ default: Product }>(out, `stories/${p.id}.js`).default;
      for (const target of (story.content.related_products ?? []).filter(resolved)) {
        // Depth 1: the related product; depth 2: its related products; below them, uuids.
        expect(target).toMatchObject({ content: { component: 'product' } });
        for (const next of (target.content.related_products ?? []).filter(resolved)) {
          expect(next).toMatchObject({ uuid: expect.any(String), content: { component: 'product' } });
          for (const last of next.content.related_products ?? []) expect(last).toEqual(expect.any(String));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  }, 60_000);
});
