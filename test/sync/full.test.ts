/**
 * Full sync against the real local service: what lands on disk, per view and
 * API version, byte for byte, and the round trip serve -> sync -> serve.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Story } from '../../src/api/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import {
  StoryRecord,
  indexRowsOfLayout,
  materialize,
  parseIndexRowsText,
  readSpaceDirectory,
  rememberedState,
  scanIndexRows,
} from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureSpace, SPACE_VERSION } from '../helpers/fixture-space.js';
import { mtimes, readJsonFile, readTree, removeTempDirs, tempDir, treeDiff } from './support.js';

const PUBLISHED_IDS = [10, 11, 12, 13, 14, 16, 17, 18, 19, 20];

let server: TestServer;
const servers: RunningServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await server?.close();
});
afterAll(removeTempDirs);

async function record(dir: string, id: number): Promise<StoryRecord> {
  return StoryRecord.parse(await readJsonFile(`${dir}/stories/${id}.json`));
}

/** Every story a service delivers in a view, every language, every page (100 per page). */
async function delivered(
  base: string,
  token: string,
  version: 'published' | 'draft',
  languages: string[],
): Promise<Map<string, Story[]>> {
  const out = new Map<string, Story[]>();
  const space = (await (await fetch(`${base}/v2/cdn/spaces/me?token=${token}`)).json()) as {
    space: { version: number };
  };
  for (const lang of languages) {
    const all: Story[] = [];
    for (let page = 1; ; page++) {
      const q = new URLSearchParams({
        token,
        version,
        per_page: '100',
        page: String(page),
        cv: String(space.space.version),
      });
      if (lang !== 'default') q.set('language', lang);
      const res = await fetch(`${base}/v2/cdn/stories?${q}`, { redirect: 'manual' });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { stories: Story[] };
      all.push(...body.stories);
      if (page * 100 >= Number(res.headers.get('total'))) break;
    }
    out.set(lang, all);
  }
  return out;
}

describe('full sync of the fixture space', () => {
  it('writes one record per published story, datasources, tags, indexes and a manifest', async () => {
    server = await startTestServer();
    const out = await tempDir();
    const result = await sync({ baseUrl: server.url, token: PUBLIC, out });
    expect(result.mode).toBe('full');
    expect(result.passes).toBe(1);
    expect(result.counts).toEqual({ stories: 10, datasources: 2 });

    const tree = await readTree(out);
    const storyFiles = [...tree.keys()].filter((f) => f.startsWith('stories/')).sort();
    expect(storyFiles).toEqual(PUBLISHED_IDS.map((id) => `stories/${id}.json`).sort());
    expect([...tree.keys()].filter((f) => !f.startsWith('stories/')).sort()).toEqual([
      'datasources/100.json',
      'datasources/200.json',
      'indexes/datasources.json',
      'indexes/stories.json',
      'indexes/stories.rows.json',
      'manifest.json',
      'space.json',
      'tags.json',
    ]);

    // Every record's published version rebuilds exactly what the service delivers, in every language.
    for (const id of PUBLISHED_IDS) {
      const r = await record(out, id);
      expect(r.draft).toBeUndefined();
      for (const lang of ['default', 'de']) {
        const q = new URLSearchParams({
          token: PUBLIC,
          cv: String(SPACE_VERSION),
          ...(lang === 'default' ? {} : { language: lang }),
        });
        const res = await server.get(`/v2/cdn/stories/${id}?${q}`);
        expect(res.status).toBe(200);
        expect(materialize(r.published!, lang)).toEqual(res.body.story);
      }
    }
    const r12 = await record(out, 12);
    expect(r12.published!.story.content.title).toBe('Alpha news');
    expect(r12.published!.story.published_at).toBe('2024-03-01T08:00:00.000Z');
    expect(r12.published!.languages?.de?.full_slug).toBe('de/blog/erster-beitrag');
    expect(r12.published!.languages?.de?.content).toEqual({ title: 'Alpha Nachrichten' });
    // Untranslated stories carry no overlay: the default rebuilds them.
    expect((await record(out, 13)).published!.languages).toBeUndefined();

    const colors = await readJsonFile(`${out}/datasources/100.json`);
    expect(colors.datasource).toMatchObject({ id: 100, slug: 'colors' });
    expect(colors.entries).toEqual([
      { id: 1101, name: 'red', value: 'Red', dimension_values: { de: 'Rot' } },
      { id: 1102, name: 'blue', value: 'Blue', dimension_values: { de: 'Blau' } },
      { id: 1103, name: 'green', value: 'Green' },
    ]);
    expect((await readJsonFile(`${out}/datasources/200.json`)).entries).toHaveLength(30);

    const tags = await readJsonFile(`${out}/tags.json`);
    const servedTags = await server.api('/v2/cdn/tags', { version: 'published' });
    expect(tags).toEqual({ published: servedTags.body.tags });
    expect(tags.published.map((t: { name: string }) => t.name)).not.toContain('secret');

    const index = await readJsonFile<
      Array<{ id: number; full_slug: string; slugs: Record<string, string>; digest: string }>
    >(`${out}/indexes/stories.json`);
    expect(index.map((e) => e.id)).toEqual(PUBLISHED_IDS);
    expect(index.find((e) => e.id === 12)!.slugs).toEqual({ default: 'blog/first-post', de: 'de/blog/erster-beitrag' });
    expect(index.find((e) => e.id === 11)!.full_slug).toBe('blog/');
    const dsIndex = await readJsonFile<Array<{ id: number; slug: string; entries: number }>>(
      `${out}/indexes/datasources.json`,
    );
    expect(dsIndex.map((d) => [d.id, d.slug, d.entries])).toEqual([
      [100, 'colors', 3],
      [200, 'countries', 30],
    ]);

    const manifest = await readJsonFile(`${out}/manifest.json`);
    expect(manifest).toMatchObject({
      format: 1,
      api: 'v2',
      cv: SPACE_VERSION,
      views: ['published'],
      languages: ['default', 'de'],
      counts: { stories: 10, published: 10, datasources: 2, datasource_entries: 33 },
      max_published_at: '2024-05-01T08:00:00.000Z',
    });
    expect(manifest.space.version).toBe(SPACE_VERSION);
    expect(typeof manifest.synced_at).toBe('string');
    // Beside the stories index, what a compile needs of it: the rows a scan of the index gives.
    const indexBytes = Buffer.from(tree.get('indexes/stories.json')!);
    const rows = parseIndexRowsText(tree.get('indexes/stories.rows.json')!, {
      digest: manifest.digests.stories,
      bytes: indexBytes.length,
    });
    expect(rows).toEqual(scanIndexRows(indexBytes.toString('latin1'), indexBytes));
    expect(rows!.map((r) => r.id)).toEqual(PUBLISHED_IDS);
    // The same rows from what this process remembers of the index it wrote (a compile after a sync in one process reads those).
    const mem = await rememberedState(out);
    expect(mem?.index).toBeDefined();
    expect(indexRowsOfLayout(mem!.index!)).toEqual(rows);
    // It names the index it describes: another index, or another size, and it is not read.
    expect(
      parseIndexRowsText(tree.get('indexes/stories.rows.json')!, { digest: 'other', bytes: indexBytes.length }),
    ).toBeUndefined();
    expect(
      parseIndexRowsText(tree.get('indexes/stories.rows.json')!, {
        digest: manifest.digests.stories,
        bytes: indexBytes.length + 1,
      }),
    ).toBeUndefined();
    // A snapshot without it (an older version's) gets it at the next sync, even one that finds nothing new.
    rmSync(`${out}/indexes/stories.rows.json`);
    const again = await sync({ baseUrl: server.url, token: PUBLIC, out });
    expect(again.mode).toBe('unchanged');
    expect(readFileSync(`${out}/indexes/stories.rows.json`, 'utf8')).toBe(tree.get('indexes/stories.rows.json'));
    expect([...(await readTree(out)).keys()]).toEqual([...tree.keys()]);
    expect(await readJsonFile(`${out}/space.json`)).toEqual(manifest.space);
  });

  it('syncs the draft view, and both views, with the preview token', async () => {
    server = await startTestServer();
    const draftDir = await tempDir();
    const draft = await sync({ baseUrl: server.url, token: PREVIEW, out: draftDir, views: ['draft'] });
    expect(draft.counts.stories).toBe(11);
    const d15 = await record(draftDir, 15);
    expect(d15.published ?? null).toBeNull();
    expect(d15.draft!.story.content.title).toBe('Not yet');
    const d12 = await record(draftDir, 12);
    expect(d12.published ?? null).toBeNull();
    expect(d12.draft!.story.content.title).toBe('Alpha news (edited)');
    expect((await readJsonFile(`${draftDir}/tags.json`)).draft.map((t: { name: string }) => t.name)).toContain(
      'secret',
    );
    expect((await readJsonFile(`${draftDir}/manifest.json`)).views).toEqual(['draft']);

    const bothDir = await tempDir();
    const both = await sync({ baseUrl: server.url, token: PREVIEW, out: bothDir, views: ['published', 'draft'] });
    expect(both.counts.stories).toBe(11);
    const b12 = await record(bothDir, 12);
    expect(b12.published!.story.content.title).toBe('Alpha news');
    expect(b12.draft!.story.content.title).toBe('Alpha news (edited)');
    // The draft keeps the de overlay too: it rebuilds the delivered draft in German.
    const deDraft = await server.get(`/v2/cdn/stories/12?token=${PREVIEW}&version=draft&language=de`);
    expect(materialize(b12.draft!, 'de')).toEqual(deDraft.body.story);
    // A draft equal to the published version is not stored.
    for (const id of PUBLISHED_IDS.filter((i) => i !== 12)) expect((await record(bothDir, id)).draft).toBeUndefined();
    const b15 = await record(bothDir, 15);
    expect(b15.published ?? null).toBeNull();
    expect(b15.draft!.story.id).toBe(15);
    const manifest = await readJsonFile(`${bothDir}/manifest.json`);
    expect(manifest.views).toEqual(['published', 'draft']);
    expect(manifest.counts).toMatchObject({ stories: 11, published: 10 });
    const tags = await readJsonFile(`${bothDir}/tags.json`);
    expect(Object.keys(tags).sort()).toEqual(['draft', 'published']);
    // Both views read again with nothing changed (there is no cache version for drafts): no story changed, no record written.
    const before = await mtimes(bothDir);
    const again = await sync({ baseUrl: server.url, token: PREVIEW, out: bothDir, views: ['published', 'draft'] });
    expect(again.changed).toEqual({ stories: [], removed: [], datasources: [], tags: false });
    const after = await mtimes(bothDir);
    expect(
      [...after].filter(([rel, t]) => rel.startsWith('stories/') && before.get(rel) !== t).map(([rel]) => rel),
    ).toEqual([]);
    // A record damaged by hand, of the story whose draft differs: `--full` writes it again, and the story has not changed.
    const intact = readFileSync(`${bothDir}/stories/12.json`, 'utf8');
    writeFileSync(`${bothDir}/stories/12.json`, intact.slice(0, 100));
    const repaired = await sync({
      baseUrl: server.url,
      token: PREVIEW,
      out: bothDir,
      views: ['published', 'draft'],
      full: true,
    });
    expect(repaired.changed).toEqual({ stories: [], removed: [], datasources: [], tags: false });
    expect(readFileSync(`${bothDir}/stories/12.json`, 'utf8')).toBe(intact);
    // The published view alone over it (a --version forgotten): a full sync that says why, the draft view gone.
    expect(again.fullBecause).toBeUndefined();
    const narrowed = await sync({ baseUrl: server.url, token: PREVIEW, out: bothDir });
    expect(narrowed.mode).toBe('full');
    expect(narrowed.fullBecause).toBe('the snapshot held the published and draft view, this sync asks for published');
    expect((await readJsonFile(`${bothDir}/manifest.json`)).views).toEqual(['published']);
    // An API version of its own: the same.
    const otherApi = await sync({ baseUrl: server.url, token: PREVIEW, out: bothDir, api: 'v1' });
    expect(otherApi.fullBecause).toBe('the snapshot was synced with the v2 API, this sync uses v1');
  });

  it('gives the same story records through v1 and v2', async () => {
    server = await startTestServer();
    const v2 = await tempDir();
    const v1 = await tempDir();
    await sync({ baseUrl: server.url, token: PUBLIC, out: v2, api: 'v2' });
    const r1 = await sync({ baseUrl: server.url, token: PUBLIC, out: v1, api: 'v1' });
    expect(r1.mode).toBe('full');
    const a = await readTree(v2);
    const b = await readTree(v1);
    const stories = (t: Map<string, string>) =>
      new Map([...t].filter(([k]) => k.startsWith('stories/') || k.startsWith('datasources/')));
    expect(treeDiff(stories(a), stories(b))).toEqual([]);
    expect(stories(a).size).toBe(12);
    expect(b.get('indexes/stories.json')).toBe(a.get('indexes/stories.json'));
    expect(JSON.parse(b.get('manifest.json')!).api).toBe('v1');
  });

  it('a first sync that fails leaves no directory behind; a failing one into a directory keeps it as it was', async () => {
    server = await startTestServer();
    const root = await tempDir();
    const out = path.join(root, 'site', 'snapshot');
    await expect(sync({ baseUrl: server.url, token: 'not-a-token', out })).rejects.toThrow(/401/);
    expect(readdirSync(root)).toEqual([]);
    // A directory that was there (someone's, with a file) stays, with the file.
    mkdirSync(path.join(root, 'kept'));
    writeFileSync(path.join(root, 'kept', 'notes.txt'), 'mine');
    await expect(sync({ baseUrl: server.url, token: 'not-a-token', out: path.join(root, 'kept') })).rejects.toThrow();
    expect(readdirSync(path.join(root, 'kept'))).toEqual(['notes.txt']);
  });

  it('is deterministic: two syncs give byte-identical files but for synced_at', async () => {
    server = await startTestServer();
    const a = await tempDir();
    const b = await tempDir();
    let t = Date.parse('2025-01-01T00:00:00Z');
    const now = () => new Date((t += 1000));
    await sync({ baseUrl: server.url, token: PREVIEW, out: a, views: ['published', 'draft'], now });
    await sync({ baseUrl: server.url, token: PREVIEW, out: b, views: ['published', 'draft'], now });
    expect(treeDiff(await readTree(a), await readTree(b))).toEqual([]);
    const ma = await readJsonFile(`${a}/manifest.json`);
    const mb = await readJsonFile(`${b}/manifest.json`);
    expect(ma.synced_at).not.toBe(mb.synced_at);
  });

  it('takes a language the space lists twice (a space directory edited by hand) once', async () => {
    const space = fixtureSpace();
    space.space.language_codes = ['de', 'de'];
    server = await startTestServer({ space });
    const dir = await tempDir();
    await sync({ baseUrl: server.url, token: PUBLIC, out: dir });
    // As the space listing it once gives it.
    const listedOnce = await startTestServer();
    servers.push(listedOnce);
    const once = await tempDir();
    await sync({ baseUrl: listedOnce.url, token: PUBLIC, out: once });
    expect((await record(dir, 10)).published).toEqual((await record(once, 10)).published);
    expect((await sync({ baseUrl: server.url, token: PUBLIC, out: dir })).mode).toBe('unchanged');
  });
});

describe('round trip: serve a space, sync it, serve the snapshot, sync again', () => {
  it('gives the same snapshot and the same delivered stories', async () => {
    const first = await startServer({
      space: generateDemoSpace({ stories: 300 }),
      rateLimit: false,
      publicToken: PUBLIC,
    });
    servers.push(first);
    const a = await tempDir('roundtrip-a');
    const ra = await sync({ baseUrl: first.url, token: PUBLIC, out: a });
    expect(ra.mode).toBe('full');
    expect(ra.counts.stories).toBeGreaterThan(200);

    const second = await startServer({ space: await readSpaceDirectory(a), rateLimit: false, publicToken: PUBLIC });
    servers.push(second);
    const b = await tempDir('roundtrip-b');
    const rb = await sync({ baseUrl: second.url, token: PUBLIC, out: b });
    expect(rb.counts).toEqual(ra.counts);
    const ta = await readTree(a);
    const tb = await readTree(b);
    expect(ta.size).toBe(tb.size);
    expect(treeDiff(ta, tb)).toEqual([]);

    const languages = (await readJsonFile(`${a}/manifest.json`)).languages as string[];
    expect(languages.length).toBeGreaterThan(1);
    const one = await delivered(first.url, PUBLIC, 'published', languages);
    const two = await delivered(second.url, PUBLIC, 'published', languages);
    for (const lang of languages) {
      expect(one.get(lang)!.length).toBe(ra.counts.stories);
      expect(two.get(lang)).toEqual(one.get(lang));
    }
  });
});
