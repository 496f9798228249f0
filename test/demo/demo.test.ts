import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Story } from '../../src/api/index.js';
import { generateDemoSpace, writeDemoSpace } from '../../src/demo/index.js';
import {
  materialize,
  readSpaceDirectory,
  type SpaceData,
  type StoryRecord,
  type StoryVersion,
} from '../../src/snapshot/index.js';

type Json = Record<string, unknown>;

const STORY_KEYS = [
  'alternates',
  'content',
  'created_at',
  'default_full_slug',
  'first_published_at',
  'full_slug',
  'group_id',
  'id',
  'is_startpage',
  'lang',
  'meta_data',
  'name',
  'parent_id',
  'path',
  'position',
  'published_at',
  'release_id',
  'slug',
  'sort_by_date',
  'tag_list',
  'translated_slugs',
  'uuid',
].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let tmp: string;
let data: SpaceData;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
  data = generateDemoSpace({ stories: 200 });
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function versions(record: StoryRecord): StoryVersion[] {
  return [record.published, record.draft, ...Object.values(record.releases ?? {})].filter(
    (v): v is StoryVersion => !!v,
  );
}

function current(record: StoryRecord): StoryVersion {
  return (record.published ?? record.draft)!;
}

/** Every object inside a value, depth first. */
function* objects(value: unknown): Generator<Json> {
  if (Array.isArray(value)) for (const v of value) yield* objects(v);
  else if (value !== null && typeof value === 'object') {
    yield value as Json;
    for (const v of Object.values(value)) yield* objects(v);
  }
}

function allContent(space: SpaceData): Json[] {
  const out: Json[] = [];
  for (const r of space.stories)
    for (const v of versions(r)) {
      out.push(v.story.content);
      for (const o of Object.values(v.languages ?? {})) if (o.content) out.push(o.content);
    }
  return out;
}

function byComponent(space: SpaceData, component: string): Json[] {
  return space.stories.map((r) => current(r).story.content as Json).filter((c) => c.component === component);
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)).map((f) => path.join(entry.name, f)));
    else out.push(entry.name);
  }
  return out.sort();
}

describe('options', () => {
  it('rejects a story count outside 10..100000 or not an integer', () => {
    for (const stories of [9, 0, -5, 100_001, 10.5, Number.NaN, '100' as unknown as number]) {
      expect(() => generateDemoSpace({ stories })).toThrow(/integer from 10 to 100,000/);
    }
  });

  it('rejects a seed that is neither a string nor a number', () => {
    expect(() => generateDemoSpace({ stories: 10, seed: {} as unknown as string })).toThrow(/seed/);
  });

  it('generates the smallest space', async () => {
    const small = generateDemoSpace({ stories: 10 });
    expect(small.stories).toHaveLength(10);
    const dir = path.join(tmp, 'small');
    await writeDemoSpace(dir, { stories: 10 });
    const back = await readSpaceDirectory(dir);
    expect(back.stories).toHaveLength(10);
    const components = new Set(small.stories.map((r) => current(r).story.content.component));
    for (const c of ['page', 'article', 'author', 'category', 'product']) expect(components).toContain(c);
  });
});

describe('determinism', () => {
  it('gives deep-equal data for the same options', () => {
    expect(generateDemoSpace({ stories: 200 })).toEqual(data);
    expect(generateDemoSpace({ stories: 50, seed: 'abc' })).toEqual(generateDemoSpace({ stories: 50, seed: 'abc' }));
  });

  it('differs between seeds', () => {
    const a = generateDemoSpace({ stories: 50, seed: 1 });
    const b = generateDemoSpace({ stories: 50, seed: 2 });
    expect(a.stories.map((s) => s.uuid)).not.toEqual(b.stories.map((s) => s.uuid));
    expect(JSON.stringify(a)).not.toEqual(JSON.stringify(b));
  });

  it('writes byte-identical directories for the same options', async () => {
    const one = path.join(tmp, 'one');
    const two = path.join(tmp, 'two');
    const m1 = await writeDemoSpace(one, { stories: 120, seed: 'same' });
    const m2 = await writeDemoSpace(two, { stories: 120, seed: 'same' });
    expect(m1).toEqual(m2);
    const files = await listFiles(one);
    expect(await listFiles(two)).toEqual(files);
    expect(files.filter((f) => f.startsWith('stories'))).toHaveLength(120);
    for (const f of files) {
      expect((await fs.readFile(path.join(two, f))).equals(await fs.readFile(path.join(one, f))), f).toBe(true);
    }
    const three = path.join(tmp, 'three');
    const m3 = await writeDemoSpace(three, { stories: 120, seed: 'other' });
    expect(m3.digests).not.toEqual(m1.digests);
  });
});

describe('where the demo is written', () => {
  it('replaces nothing but an empty directory or another space directory', async () => {
    // Someone's files (a folder of recordings, a project's own directory): refused, kept as they were.
    const theirs = path.join(tmp, 'theirs');
    await fs.mkdir(theirs);
    await fs.writeFile(path.join(theirs, 'playground.json'), '{"mine":true}');
    await expect(writeDemoSpace(theirs, { stories: 10 })).rejects.toThrow(
      /theirs holds other files and is not a space directory \(no space\.json\).*choose a new directory/,
    );
    expect(await fs.readdir(theirs)).toEqual(['playground.json']);
    // A space.json among someone's files (a project with its own space.json, a space directory with
    // notes kept beside it) is no space directory either: refused, every file kept.
    const project = path.join(tmp, 'project');
    await fs.mkdir(path.join(project, 'src'), { recursive: true });
    await fs.writeFile(path.join(project, 'space.json'), '{"mine":true}');
    await fs.writeFile(path.join(project, 'package.json'), '{}');
    await expect(writeDemoSpace(project, { stories: 10 })).rejects.toThrow(
      /project holds files that are not a space directory's \(package\.json, src\).*choose a new directory/,
    );
    expect((await fs.readdir(project)).sort()).toEqual(['package.json', 'space.json', 'src']);
    // Under a file: that file is named, not the path that would go through it.
    const afile = path.join(theirs, 'playground.json');
    await expect(writeDemoSpace(path.join(afile, 'sub'), { stories: 10 })).rejects.toThrow(`${afile} is a file:`);
    expect((await fs.readdir(tmp)).filter((f) => f.includes('staging'))).toEqual([]);
    // An empty directory, then the space directory it became: written, readable as mkdir makes them.
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(empty);
    await writeDemoSpace(empty, { stories: 10, seed: 1 });
    await writeDemoSpace(empty, { stories: 12, seed: 1 });
    expect((await fs.readdir(path.join(empty, 'stories'))).length).toBe(12);
    const made = path.join(tmp, 'made');
    await fs.mkdir(made);
    expect((await fs.stat(empty)).mode & 0o777).toBe((await fs.stat(made)).mode & 0o777);
    // A directory holding hidden entries only (a .gitkeep), then replaced again: they are kept.
    const kept = path.join(tmp, 'kept');
    await fs.mkdir(path.join(kept, '.git'), { recursive: true });
    await fs.writeFile(path.join(kept, '.gitkeep'), '');
    await fs.writeFile(path.join(kept, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await writeDemoSpace(kept, { stories: 10, seed: 1 });
    await writeDemoSpace(kept, { stories: 11, seed: 1 });
    expect((await fs.readdir(kept)).sort()).toEqual(
      expect.arrayContaining(['.git', '.gitkeep', 'space.json', 'stories', 'manifest.json']),
    );
    expect(await fs.readFile(path.join(kept, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect((await fs.readdir(path.join(kept, 'stories'))).length).toBe(11);
    // A write killed between its two renames: the old tree aside, no directory. The next write puts it
    // back first, so its .git survives, and leaves nothing aside.
    await fs.rename(kept, path.join(tmp, '.kept.staging-0123456789ab.old'));
    await writeDemoSpace(kept, { stories: 12, seed: 1 });
    expect(await fs.readFile(path.join(kept, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect((await fs.readdir(path.join(kept, 'stories'))).length).toBe(12);
    // Killed after the new tree went in, before the .git moved over: moved over by the next write.
    await fs.mkdir(path.join(tmp, '.kept.staging-ba9876543210.old'));
    await fs.rename(path.join(kept, '.git'), path.join(tmp, '.kept.staging-ba9876543210.old', '.git'));
    await writeDemoSpace(kept, { stories: 13, seed: 1 });
    expect(await fs.readFile(path.join(kept, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect((await fs.readdir(tmp)).filter((f) => f.includes('staging'))).toEqual([]);
  });
});

describe('the written directory', () => {
  it('reads back (validating every record) and equals the generated data', async () => {
    const dir = path.join(tmp, 'space');
    const manifest = await writeDemoSpace(dir, { stories: 200 });
    expect(manifest.counts.stories).toBe(200);
    expect(manifest.languages).toEqual(['default', 'de', 'fr']);
    const back = await readSpaceDirectory(dir);
    expect(back.stories).toHaveLength(200);
    expect(JSON.parse(JSON.stringify(back.stories))).toEqual(JSON.parse(JSON.stringify(data.stories)));
    expect(back.folders).toHaveLength(data.folders.length);
    expect(back.releases).toHaveLength(2);
    expect(back.workflowStages.length).toBeGreaterThanOrEqual(3);
  });
});

describe('stories', () => {
  it('validate against Story in every version and language, with one key set', () => {
    for (const record of data.stories) {
      for (const v of versions(record)) {
        expect(Object.keys(v.story).sort()).toEqual(STORY_KEYS);
        for (const lang of ['default', 'de', 'fr']) {
          const story = materialize(v, lang);
          expect(story, `${record.id} ${lang}`).toBeDefined();
          const parsed = Story.safeParse(story);
          expect(parsed.success, `${record.id} ${lang}`).toBe(true);
        }
        const s = v.story as Json;
        expect(s.sort_by_date).toBeNull();
        expect(s.meta_data).toBeNull();
        expect(s.path).toBeNull();
        expect(s.lang).toBe('default');
        expect(s.created_at).toMatch(ISO);
        expect(v.story.uuid).toMatch(UUID4);
        expect(v.story.group_id).toMatch(UUID4);
        expect(v.story.content._uid).toEqual(expect.any(String));
      }
    }
  });

  it('have ascending unique ids and unique uuids', () => {
    const ids = data.stories.map((s) => s.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const uuids = [...data.stories.map((s) => s.uuid), ...data.folders.map((f) => f.uuid)];
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(new Set(data.folders.map((f) => f.id)).size).toBe(data.folders.length);
    for (const f of data.folders) expect(ids).not.toContain(f.id);
  });

  it('have consistent full slugs, start pages and a home story', () => {
    const folders = new Map(data.folders.map((f) => [f.id, f]));
    const seen = new Set<string>();
    for (const record of data.stories) {
      const s = current(record).story;
      expect(seen.has(s.full_slug), s.full_slug).toBe(false);
      seen.add(s.full_slug);
      expect(s.default_full_slug).toBe(s.full_slug);
      if (s.parent_id === 0) {
        expect(s.full_slug).toBe(s.slug);
        continue;
      }
      const folder = folders.get(s.parent_id!)!;
      expect(folder, s.full_slug).toBeDefined();
      if (s.is_startpage) {
        expect(s.slug).toBe('');
        expect(s.full_slug).toBe(`${folder.full_slug}/`);
      } else {
        expect(s.full_slug).toBe(`${folder.full_slug}/${s.slug}`);
      }
    }
    for (const f of data.folders) {
      if (f.parent_id) expect(f.full_slug).toBe(`${folders.get(f.parent_id)!.full_slug}/${f.slug}`);
      else expect(f.full_slug).toBe(f.slug);
      const starts = data.stories.filter((r) => current(r).story.is_startpage && current(r).story.parent_id === f.id);
      expect(starts, f.full_slug).toHaveLength(1);
      expect(f.translated_slugs?.map((t) => t.lang)).toEqual(['de', 'fr']);
    }
    expect(seen.has('home')).toBe(true);
    const depth = Math.max(...data.folders.map((f) => f.full_slug.split('/').length));
    expect(depth).toBeGreaterThanOrEqual(3);
    expect(data.folders.some((f) => f.full_slug === 'about/team')).toBe(true);
    expect(data.stories.some((r) => current(r).story.position < 0)).toBe(true);
  });

  it('carry translated slugs and small language overlays', () => {
    for (const record of data.stories) {
      for (const v of versions(record)) {
        const s = v.story;
        expect(s.translated_slugs!.map((t) => t.lang)).toEqual(['de', 'fr']);
        for (const lang of ['de', 'fr']) {
          const overlay = v.languages![lang]!;
          const translated = s.translated_slugs!.find((t) => t.lang === lang)!;
          expect(overlay.full_slug).toBe(`${lang}/${translated.path}`);
          expect(Object.keys(overlay).sort()).toEqual(['content', 'full_slug']);
          const keys = Object.keys(overlay.content!);
          expect(keys.length).toBeGreaterThan(0);
          expect(keys.length).toBeLessThanOrEqual(3);
          for (const k of keys) expect(s.content).toHaveProperty(k);
        }
      }
    }
    const article = data.stories.find((r) => current(r).story.content.component === 'article')!;
    const de = materialize(current(article), 'de')!;
    expect(de.full_slug.startsWith('de/artikel/')).toBe(true);
    expect(de.content.title).not.toBe(current(article).story.content.title);
    expect((de.content.intro as Json).type).toBe('doc');
  });

  it('has published, changed, never-published and release versions, and workflow stages', () => {
    const unpublished = data.stories.filter((r) => !r.published);
    const changed = data.stories.filter((r) => r.published && r.draft);
    const plain = data.stories.filter((r) => r.published && r.draft === undefined);
    expect(unpublished.length).toBeGreaterThanOrEqual(3);
    expect(changed.length).toBeGreaterThanOrEqual(5);
    expect(plain.length).toBeGreaterThan(150);
    for (const r of unpublished) {
      expect(r.published).toBeNull();
      expect(r.draft!.story.published_at).toBeNull();
      expect(r.draft!.story.first_published_at).toBeNull();
    }
    for (const r of changed) {
      expect(JSON.stringify(r.draft!.story.content)).not.toBe(JSON.stringify(r.published!.story.content));
      expect(r.draft!.story.published_at).toBe(r.published!.story.published_at);
      expect(r.updated_at! > r.published!.story.published_at!).toBe(true);
    }
    for (const r of plain) expect(r.published!.story.published_at).toMatch(ISO);
    const releaseIds = new Set(data.releases.map((r) => String(r.id)));
    const staged = data.stories.filter((r) => r.releases);
    expect(staged.length).toBeGreaterThanOrEqual(2);
    const used = new Set<string>();
    for (const r of staged) {
      for (const [id, v] of Object.entries(r.releases!)) {
        expect(releaseIds.has(id)).toBe(true);
        used.add(id);
        expect(v.story.release_id).toBe(Number(id));
        expect(JSON.stringify(v.story.content)).not.toBe(JSON.stringify(current(r).story.content));
      }
    }
    expect(used.size).toBe(2);
    const stages = new Set(data.workflowStages.map((s) => s.id));
    for (const r of data.stories) expect(stages.has(r.workflow_stage_id!)).toBe(true);
  });

  it('draws tags from a pool with a skewed distribution', () => {
    const counts = new Map<string, number>();
    for (const r of data.stories) for (const t of current(r).story.tag_list) counts.set(t, (counts.get(t) ?? 0) + 1);
    expect(counts.size).toBeGreaterThanOrEqual(10);
    expect(counts.size).toBeLessThanOrEqual(25);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    expect(sorted[0]!).toBeGreaterThan(3 * sorted[sorted.length - 1]!);
  });
});

describe('relations and links', () => {
  it('point at existing published stories, with cycles', () => {
    const byUuid = new Map(data.stories.map((r) => [r.uuid, r]));
    const target = (uuid: unknown) => {
      const r = byUuid.get(uuid as string);
      expect(r, String(uuid)).toBeDefined();
      expect(r!.published, String(uuid)).toBeTruthy();
      return r!;
    };
    const authorOf = new Map<string, string>();
    for (const record of data.stories) {
      const c = current(record).story.content as Json;
      if (c.component === 'article') {
        expect(target(c.author).published!.story.content.component).toBe('author');
        authorOf.set(record.uuid, c.author as string);
        for (const u of c.categories as string[]) expect(target(u).published!.story.content.component).toBe('category');
      }
      if (c.component === 'product')
        for (const u of c.related_products as string[])
          expect(target(u).published!.story.content.component).toBe('product');
      if (c.component === 'author') for (const u of c.featured_articles as string[]) target(u);
    }
    for (const content of allContent(data)) {
      for (const o of objects(content)) {
        if (o.fieldtype === 'multilink' && o.linktype === 'story') {
          expect(o.cached_url).toBe(current(target(o.id)).story.full_slug);
        }
        if (o.type === 'link' && (o.attrs as Json).linktype === 'story') {
          const attrs = o.attrs as Json;
          expect(attrs.href).toBe(`/${current(target(attrs.uuid)).story.full_slug}`);
        }
      }
    }
    // author <-> article
    const authorCycle = data.stories.some((r) => {
      const c = current(r).story.content as Json;
      return c.component === 'author' && (c.featured_articles as string[]).some((u) => authorOf.get(u) === r.uuid);
    });
    expect(authorCycle).toBe(true);
    // product <-> product
    const products = data.stories.filter((r) => r.published && r.published.story.content.component === 'product');
    const related = new Map(products.map((p) => [p.uuid, p.published!.story.content.related_products as string[]]));
    const mutual = products.some((p) => related.get(p.uuid)!.some((u) => related.get(u)?.includes(p.uuid)));
    expect(mutual).toBe(true);
  });
});

describe('content features in a 200-story space', () => {
  it('has every content type and blok', () => {
    const components = new Set<string>();
    for (const c of allContent(data))
      for (const o of objects(c)) if (typeof o.component === 'string') components.add(o.component);
    for (const c of [
      'page',
      'article',
      'author',
      'category',
      'product',
      'hero',
      'text',
      'teaser',
      'grid',
      'feature',
      'cta',
      'quote',
      'gallery',
      'product-variant',
      '_table_head',
      '_table_row',
      '_table_col',
    ]) {
      expect(components, c).toContain(c);
    }
  });

  it('has rich text with every node and every mark', () => {
    const nodes = new Set<string>();
    const marks = new Set<string>();
    const linkTypes = new Set<string>();
    let embedded = 0;
    const headingLevels = new Set<number>();
    for (const c of allContent(data)) {
      for (const o of objects(c)) {
        if (typeof o.type !== 'string' || o.fieldtype) continue;
        if (
          'text' in o ||
          'content' in o ||
          o.type === 'horizontal_rule' ||
          o.type === 'hard_break' ||
          o.type === 'image' ||
          o.type === 'emoji' ||
          o.type === 'blok'
        )
          nodes.add(o.type);
        if (o.type === 'heading') headingLevels.add((o.attrs as Json).level as number);
        if (o.type === 'blok') {
          const body = (o.attrs as Json).body as Json[];
          expect(body.length).toBeGreaterThan(0);
          for (const b of body) expect(b.component).toEqual(expect.any(String));
          embedded++;
        }
        for (const m of (o.marks as Json[] | undefined) ?? []) {
          marks.add(m.type as string);
          if (m.type === 'link') linkTypes.add((m.attrs as Json).linktype as string);
        }
      }
    }
    for (const n of [
      'doc',
      'paragraph',
      'text',
      'heading',
      'blockquote',
      'bullet_list',
      'ordered_list',
      'list_item',
      'code_block',
      'hard_break',
      'horizontal_rule',
      'image',
      'emoji',
      'table',
      'tableRow',
      'tableHeader',
      'tableCell',
      'blok',
    ]) {
      expect(nodes, n).toContain(n);
    }
    for (const m of [
      'bold',
      'italic',
      'strike',
      'underline',
      'code',
      'superscript',
      'subscript',
      'highlight',
      'textStyle',
      'anchor',
      'styled',
      'link',
    ]) {
      expect(marks, m).toContain(m);
    }
    expect([...linkTypes].sort()).toEqual(['asset', 'email', 'story', 'url']);
    expect([...headingLevels].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(embedded).toBeGreaterThan(1);
  });

  it('has assets, empty assets and multiassets (some empty strings)', () => {
    const assetKeys = [
      'alt',
      'copyright',
      'fieldtype',
      'filename',
      'focus',
      'id',
      'is_external_url',
      'meta_data',
      'name',
      'source',
      'title',
    ];
    let full = 0;
    let empty = 0;
    for (const c of allContent(data)) {
      for (const o of objects(c)) {
        if (o.fieldtype !== 'asset') continue;
        expect(Object.keys(o).sort()).toEqual(assetKeys);
        if (o.id === null) {
          expect(o.filename).toBe('');
          empty++;
        } else full++;
      }
    }
    expect(full).toBeGreaterThan(50);
    expect(empty).toBeGreaterThan(2);
    const galleries = byComponent(data, 'article').map((a) => a.gallery);
    expect(galleries).toContain('');
    expect(galleries.some((g) => Array.isArray(g) && g.length > 0)).toBe(true);
    const legacyItems = allContent(data)
      .flatMap((c) => [...objects(c)])
      .filter((o) => typeof o.filename === 'string' && o.fieldtype === undefined && 'focus' in o);
    expect(legacyItems.length).toBeGreaterThan(0);
    expect(byComponent(data, 'product').some((p) => p.images === '')).toBe(true);
  });

  it('has multilinks of every linktype, with _uid, anchors and targets', () => {
    const links = allContent(data)
      .flatMap((c) => [...objects(c)])
      .filter((o) => o.fieldtype === 'multilink');
    expect(new Set(links.map((l) => l.linktype))).toEqual(new Set(['story', 'url', 'email', 'asset']));
    expect(links.some((l) => typeof l._uid === 'string')).toBe(true);
    expect(links.some((l) => l.linktype === 'story' && typeof l.anchor === 'string')).toBe(true);
    expect(links.some((l) => l.target === '_blank')).toBe(true);
    for (const l of links) {
      if (l.linktype === 'story') expect(l.id).toMatch(UUID4);
      else expect(l.id).toBe('');
      if (l.linktype === 'email') expect(l.email).toMatch(/@/);
      if (l.linktype === 'url' || l.linktype === 'asset') expect(l.cached_url).toBe(l.url);
    }
  });

  it('has tables, plugins, numeric strings, real numbers, dates and booleans', () => {
    const products = byComponent(data, 'product');
    const articles = byComponent(data, 'article');
    const tables = allContent(data)
      .flatMap((c) => [...objects(c)])
      .filter((o) => Array.isArray(o.thead) && Array.isArray(o.tbody));
    expect(tables.length).toBeGreaterThan(1);
    for (const t of tables) {
      for (const h of t.thead as Json[]) expect(h.component).toBe('_table_head');
      for (const row of t.tbody as Json[]) {
        expect(row.component).toBe('_table_row');
        for (const col of row.body as Json[]) expect(col.component).toBe('_table_col');
      }
    }
    expect(tables.some((t) => t.fieldtype === 'table')).toBe(true);
    expect(tables.some((t) => t.fieldtype === undefined)).toBe(true);
    const plugins = new Set(
      allContent(data)
        .flatMap((c) => [...objects(c)])
        .filter((o) => typeof o.plugin === 'string' && typeof o._uid === 'string')
        .map((o) => o.plugin),
    );
    expect(plugins.size).toBeGreaterThanOrEqual(3);
    for (const p of products) {
      expect(p.price).toMatch(/^\d+\.\d{2}$/);
      expect(p.stock).toMatch(/^\d+$/);
      expect(typeof p.weight).toBe('number');
      expect(p.available_from).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      expect(typeof p.on_sale).toBe('boolean');
    }
    for (const a of articles) {
      expect(a.published_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
      expect(typeof a.featured).toBe('boolean');
    }
    expect(articles.some((a) => !('reading_time' in a))).toBe(true);
    expect(articles.some((a) => typeof a.reading_time === 'string')).toBe(true);
  });

  it('uses datasource entry names as option values', () => {
    const entries = (slug: string) =>
      new Set(data.datasources.find((d) => d.datasource.slug === slug)!.entries.map((e) => e.name));
    const colors = entries('colors');
    const categories = entries('product-categories');
    const countries = entries('countries');
    const sizes = entries('sizes');
    for (const p of byComponent(data, 'product')) {
      expect(categories.has(p.category as string)).toBe(true);
      for (const c of p.colors as string[]) expect(colors.has(c)).toBe(true);
      for (const v of p.variants as Json[]) {
        expect(colors.has(v.color as string)).toBe(true);
        expect(sizes.has(v.size as string)).toBe(true);
      }
    }
    for (const a of byComponent(data, 'article')) expect(colors.has(a.color as string)).toBe(true);
    for (const a of byComponent(data, 'author')) expect(countries.has(a.country as string)).toBe(true);
  });
});

describe('space and datasources', () => {
  it('describes a three-language space', () => {
    expect(data.space).toMatchObject({ language_codes: ['de', 'fr'] });
    expect(Number.isInteger(data.space.version)).toBe(true);
    expect(typeof data.space.domain).toBe('string');
  });

  it('has datasources with dimensions, partial translations and more than a page of entries', () => {
    expect(data.datasources.length).toBeGreaterThanOrEqual(3);
    for (const ds of data.datasources) {
      const names = ds.entries.map((e) => e.name);
      expect(new Set(names).size).toBe(names.length);
      const dims = new Set(ds.datasource.dimensions.map((d) => d.entry_value));
      for (const e of ds.entries) for (const k of Object.keys(e.dimension_values ?? {})) expect(dims.has(k)).toBe(true);
    }
    const colors = data.datasources.find((d) => d.datasource.slug === 'colors')!;
    expect(colors.datasource.dimensions.map((d) => d.entry_value)).toEqual(['de', 'fr']);
    expect(colors.entries.some((e) => e.dimension_values?.de && e.dimension_values.fr)).toBe(true);
    expect(colors.entries.some((e) => !e.dimension_values?.fr)).toBe(true);
    const countries = data.datasources.find((d) => d.datasource.slug === 'countries')!;
    expect(countries.entries.length).toBeGreaterThan(25);
    const ids = data.datasources.flatMap((d) => d.entries.map((e) => e.id));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
