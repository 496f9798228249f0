/**
 * Real content end to end: every recorded story file of ../shared/realdata
 * loaded into an empty space of the local service through the control plane,
 * synced, compiled; the output typechecks under tsc --strict, the recorded
 * stories as the compile resolves them are assignable to the generated types, the relations of the closed
 * sets are embedded and the dangling relation of ep16 is reported.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Story } from '../../src/api/index.js';
import {
  compile,
  devDataChunk,
  devStoryLoaders,
  devViewChunk,
  isDataChunk,
  isViewChunk,
  type CompileOptions,
  type CompileResult,
} from '../../src/compile/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import type { SpaceData } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { buildProjects, importFresh, type BuildResult } from './support.js';
import { describeRealdata, realdata } from '../helpers/realdata.js';

const TOKEN = 'realdata-public';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function storiesOf(json: { story?: Story; stories?: Story[]; rels?: Story[] }): Story[] {
  return [...(json.story ? [json.story] : []), ...(json.stories ?? []), ...(json.rels ?? [])];
}

interface Case {
  key: string;
  label: string;
  /** The stories as recorded (their fields are checked as typed; their compiled modules are assigned to the types). */
  recorded: Story[];
  /** The stories loaded into the space (the recorded ones, with uuids made distinct where the recording shares one). */
  space: Story[];
  options: Omit<CompileOptions, 'snapshot' | 'out'>;
  /** Whether every uuid relation of the content names a story of the set. */
  closed?: boolean;
}

const A = 'aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46';
const B = 'cb1bb01a-e414-49ed-85d0-03f63f35171f';

function richTextStory(): Story {
  return {
    name: 'Rich text, one of each',
    created_at: '2024-01-01T00:00:00.000Z',
    published_at: '2024-01-01T00:00:00.000Z',
    id: 900001,
    uuid: '0b8e4c9a-1d2f-4e3a-8b7c-6d5e4f3a2b1c',
    content: {
      _uid: '5f0e7a1c-2b3d-4c5e-9f8a-7b6c5d4e3f2a',
      component: 'rich_page',
      body: realdata('johannes-lindgren-storyblok/richtext-one-of-each.json'),
    },
    slug: 'rich-text',
    full_slug: 'rich-text',
    sort_by_date: null,
    position: 0,
    tag_list: [],
    is_startpage: false,
    parent_id: 0,
    meta_data: null,
    group_id: '3c2b1a09-8f7e-4d6c-b5a4-938271605f4e',
    first_published_at: '2024-01-01T00:00:00.000Z',
    release_id: null,
    lang: 'default',
    path: null,
    alternates: [],
    default_full_slug: null,
    translated_slugs: null,
  } as Story;
}

function cases(): Case[] {
  const plain = (
    label: string,
    file: string,
    options: Case['options'] = { resolveLinks: 'url' },
  ): Omit<Case, 'key'> => {
    const stories = storiesOf(realdata(file));
    return { label, recorded: stories, space: stories, options };
  };
  const relation = realdata<{ story: Story }>('laravel-storyblok/relation.json').story;
  const targetA = realdata<{ story: Story }>(`laravel-storyblok/${A}.json`).story;
  const targetB = realdata<{ story: Story }>(`laravel-storyblok/${B}.json`).story;
  const list: Array<Omit<Case, 'key'>> = [
    plain('storyblok-php-client/v2-stories.json', 'storyblok-php-client/v2-stories.json', {
      resolveRelations: ['article.categories'],
      resolveLinks: 'url',
    }),
    {
      ...plain('storyblok-php-client/v2-stories-relations.json', 'storyblok-php-client/v2-stories-relations.json', {
        resolveRelations: ['popular-articles.articles'],
      }),
      closed: true,
    },
    {
      // The recordings of the set share one uuid and id (and both targets say full_slug `all-fields`):
      // each target gets the uuid of its file name, an id of its own and the full slug of its slug.
      label: 'laravel-storyblok relation set',
      recorded: [relation, targetA, targetB],
      space: [
        relation,
        { ...targetA, uuid: A, id: 14994142 },
        { ...targetB, uuid: B, id: 14994143, full_slug: targetB.slug },
      ],
      options: { resolveRelations: ['relation.single_option_story', 'relation.multi_options_stories'] },
      closed: true,
    },
    plain('laravel-storyblok/all-fields.json', 'laravel-storyblok/all-fields.json'),
    // Its dangling uuids kept, so that the recorded story stays assignable to its type.
    plain('laravel-storyblok/ep16.json', 'laravel-storyblok/ep16.json', {
      resolveRelations: ['linked_links.links'],
      resolveLinks: 'url',
      keepUnresolved: true,
    }),
    plain('laravel-storyblok/folder.json', 'laravel-storyblok/folder.json'),
    plain('laravel-storyblok/multi-option-self.json', 'laravel-storyblok/multi-option-self.json'),
    plain('laravel-storyblok/richtext.json', 'laravel-storyblok/richtext.json'),
    {
      ...plain('storyblok-astro playground', 'storyblok-astro/playground-content-layer.stories.decoded.json', {
        detectRelations: true,
        resolveLinks: 'url',
      }),
      closed: true,
    },
    plain('nackademin-WEBB24-cms-docs/story-home-draft.json', 'nackademin-WEBB24-cms-docs/story-home-draft.json'),
    plain(
      'nackademin-WEBB24-cms-docs/story-translated-slugs.json',
      'nackademin-WEBB24-cms-docs/story-translated-slugs.json',
    ),
    plain('storyblok-ruby/cdn-stories-draft.json', 'storyblok-ruby/cdn-stories-draft.json'),
    plain('storyblok-ruby/cdn-story-published.json', 'storyblok-ruby/cdn-story-published.json'),
    {
      label: 'johannes-lindgren richtext in a story',
      recorded: [richTextStory()],
      space: [richTextStory()],
      options: { resolveLinks: 'url' },
    },
  ];
  return list.map((c, i) => ({ key: `f${i}`, ...c }));
}

function emptySpace(): SpaceData {
  return {
    space: {
      id: 1001,
      name: 'Real data',
      domain: 'https://realdata.example.com/',
      version: 1_700_000_000,
      language_codes: [],
    },
    stories: [],
    folders: [],
    datasources: [],
    releases: [],
    workflowStages: [],
  };
}

/** The folder path a story sits in, from its full slug. */
function folderOf(s: Story): string {
  const trimmed = s.full_slug.replace(/\/$/, '');
  return s.full_slug.endsWith('/') ? trimmed : trimmed.split('/').slice(0, -1).join('/');
}

interface Loaded {
  c: Case;
  /** Service id of each story, by its uuid in the space. */
  ids: Map<string, number>;
  /** Service id of each recorded story, in recorded order. */
  order: number[];
  out: string;
  result: CompileResult;
  /** Each recorded story as its module exports it (relations resolved), in recorded order. */
  compiled: Story[];
}

/** Fills an empty space through the control plane, syncs it and compiles the snapshot. */
async function load(c: Case, root: string): Promise<Loaded> {
  const server: RunningServer = await startServer({
    space: emptySpace(),
    publicToken: TOKEN,
    rateLimit: false,
    admin: true,
  });
  try {
    const folders = new Map<string, number>([['', 0]]);
    const folderId = async (p: string): Promise<number> => {
      const known = folders.get(p);
      if (known !== undefined) return known;
      const parts = p.split('/');
      const parent = await folderId(parts.slice(0, -1).join('/'));
      const slug = parts[parts.length - 1]!;
      const made = (await admin(server.url, 'POST', '/stories', {
        name: slug,
        slug,
        is_folder: true,
        parent_id: parent,
      })) as { story: Story };
      folders.set(p, made.story.id);
      return made.story.id;
    };
    const ids = new Map<string, number>();
    const order: number[] = [];
    for (const s of c.space) {
      const parent = await folderId(folderOf(s));
      const made = (await admin(server.url, 'POST', '/stories', {
        name: s.name,
        slug: s.slug,
        uuid: s.uuid,
        parent_id: parent,
        is_startpage: Boolean(s.is_startpage),
        position: typeof s.position === 'number' ? s.position : 0,
        tag_list: s.tag_list ?? [],
        content: s.content,
      })) as { story: Story };
      expect(made.story.full_slug).toBe(s.full_slug);
      await admin(server.url, 'POST', `/stories/${made.story.id}/publish`);
      ids.set(s.uuid, made.story.id);
      order.push(made.story.id);
    }
    const snapshot = path.join(root, '.snapshots', c.key);
    await sync({ baseUrl: server.url, token: TOKEN, out: snapshot, ...unpaced() });
    const out = path.join(root, c.key, 'out');
    const result = await compile({ snapshot, out, ...c.options });
    const compiled: Story[] = [];
    for (const id of order)
      compiled.push((await importFresh<{ default: Story }>(path.join(out, 'stories', `${id}.js`))).default);
    return { c, ids, order, out, result, compiled };
  } finally {
    await server.close();
  }
}

const REQUIRED = [
  'id',
  'uuid',
  'name',
  'slug',
  'full_slug',
  'created_at',
  'published_at',
  'first_published_at',
  'lang',
  'content',
  'position',
  'is_startpage',
  'parent_id',
  'group_id',
  'alternates',
  'tag_list',
];
const TRIMMED = 'type Trimmed<S, K extends PropertyKey> = { [P in keyof S as P extends K ? never : P]: S[P] };\n';
const IS_UNKNOWN = 'type IsUnknown<T> = unknown extends T ? true : false;\n';

/**
 * check.ts of one case: every story module imported through its specifier and
 * its fields used with their inferred types; every recorded story assigned to
 * its generated story type; the index lookups used with their types.
 */
function checkModule(l: Loaded): string {
  const lines = [
    `import type { StoryTypes } from './out/index.js';`,
    `import { byComponent, getStory, load } from './out/index.js';`,
    TRIMMED,
    IS_UNKNOWN,
  ];
  l.c.recorded.forEach((s, i) => {
    const id = l.order[i]!;
    const component = s.content.component;
    lines.push(`import s${i} from 'content:stories/${id}';`);
    lines.push(`export const component${i}: ${JSON.stringify(component)} = s${i}.content.component;`);
    lines.push(`export const name${i}: string = s${i}.name;`);
    lines.push(`export const uuid${i}: string = s${i}.uuid;`);
    for (const key of Object.keys(s.content)) {
      if (key === 'component' || key === '_uid') continue;
      lines.push(
        `export const typed${i}_${key.replace(/[^A-Za-z0-9_]/g, '_')}: IsUnknown<(typeof s${i})["content"][${JSON.stringify(key)}]> = false;`,
      );
    }
    // What the module holds (the recorded story, its relations resolved as the compile resolves them).
    const compiled = l.compiled[i]!;
    const missing = REQUIRED.filter((k) => !(k in compiled));
    const type =
      missing.length === 0
        ? `StoryTypes[${JSON.stringify(component)}]`
        : `Trimmed<StoryTypes[${JSON.stringify(component)}], ${missing.map((k) => JSON.stringify(k)).join(' | ')}>`;
    lines.push(`export const recorded${i}: ${type} = ${JSON.stringify(compiled)};`);
  });
  const first = l.c.recorded[0]!;
  lines.push(`export async function use(): Promise<string> {
  const entries = byComponent(${JSON.stringify(first.content.component)});
  const entry = entries[0];
  if (!entry) return '';
  const story = await load(entry);
  const component: ${JSON.stringify(first.content.component)} = story.content.component;
  const found = await getStory(${JSON.stringify(first.full_slug)});
  const foundComponent: ${JSON.stringify(first.content.component)} = found.content.component;
  return component + entry.full_slug + found.name + foundComponent;
}`);
  return `${lines.join('\n')}\n`;
}

/** Where recorded content holds a uuid relation (not a link, not a _uid): path and uuid. */
function relationSites(content: unknown): Array<{ at: Array<string | number>; uuid: string }> {
  const out: Array<{ at: Array<string | number>; uuid: string }> = [];
  const visit = (v: unknown, at: Array<string | number>): void => {
    if (typeof v === 'string') {
      const key = at[at.length - 1];
      const field = typeof key === 'number' ? at[at.length - 2] : key;
      if (UUID.test(v) && field !== '_uid' && field !== 'uuid' && field !== 'id') out.push({ at, uuid: v });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => {
        visit(x, [...at, i]);
      });
    } else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.fieldtype === 'multilink' || typeof o.linktype === 'string') return;
      for (const [k, x] of Object.entries(o)) visit(x, [...at, k]);
    }
  };
  visit(content, []);
  return out;
}

function at(value: unknown, where: ReadonlyArray<string | number>): unknown {
  let v: any = value;
  for (const k of where) v = v?.[k];
  return v;
}

let root: string;
let loaded: Loaded[];
let build: BuildResult;
const NEGATIVES = {
  numberWhereNumericString: (c: any) => {
    c.number = 1234;
  },
  unknownComponentInBloks: (c: any) => {
    c.blocks.push({ _uid: 'x', component: 'nope' });
  },
  missingRequiredField: (c: any) => {
    delete c.text;
  },
  extraFieldOnComponent: (c: any) => {
    c.surprise = 'x';
  },
};

describeRealdata('real content: control plane -> sync -> compile -> tsc --strict', () => {
  beforeAll(async () => {
    root = await tempDir('compile-realdata');
    loaded = [];
    for (const c of cases()) loaded.push(await load(c, root));
    const projects = [];
    for (const l of loaded) {
      await fs.writeFile(path.join(root, l.c.key, 'check.ts'), checkModule(l));
      projects.push({ dir: l.c.key, include: ['out/**/*.ts', 'check.ts'] });
    }
    // Negative project: the all-fields output, with literals and uses that must not compile.
    const allFields = loaded.find((l) => l.c.label === 'laravel-storyblok/all-fields.json')!;
    await fs.cp(allFields.out, path.join(root, 'neg', 'out'), { recursive: true });
    const recorded = allFields.c.recorded[0]!;
    const neg: Record<string, string> = {
      'useAsWrongType.ts': `import s from 'content:stories/${allFields.order[0]}';\nexport const n: number = s.content.text;\n`,
      'wrongComponent.ts': `import s from 'content:stories/${allFields.order[0]}';\nexport const c: "page" = s.content.component;\n`,
      'noSuchModule.ts': `import s from 'content:stories/999999999';\nexport const x = s;\n`,
    };
    for (const [name, mutate] of Object.entries(NEGATIVES)) {
      const copy = structuredClone(recorded) as any;
      mutate(copy.content);
      neg[`${name}.ts`] =
        `import type { StoryTypes } from './out/index.js';\nexport const s: StoryTypes["all-fields"] = ${JSON.stringify(copy)};\n`;
    }
    for (const [name, text] of Object.entries(neg)) await fs.writeFile(path.join(root, 'neg', name), text);
    projects.push({ dir: 'neg', include: ['out/**/*.ts', ...Object.keys(neg)] });
    build = await buildProjects(root, projects);
  }, 120_000);

  afterAll(removeTempDirs);

  it('compiles every file, one module per story', () => {
    for (const l of loaded) {
      expect(l.result.mode, l.c.label).toBe('full');
      expect(l.result.stories, l.c.label).toBe(l.c.space.length);
      expect(l.result.modules, l.c.label).toBe(l.c.space.length);
      for (const id of l.order) expect(l.result.written, l.c.label).toContain(`stories/${id}.js`);
    }
  });

  it('the output and the per-file checks typecheck under --strict (recorded stories assignable, fields typed)', () => {
    const positives = [...build.errors.entries()].filter(
      ([file]) => !file.startsWith('neg/') || file.startsWith('neg/out/'),
    );
    expect(
      positives
        .map(([, e]) => e.join('\n'))
        .join('\n')
        .slice(0, 6000),
    ).toBe('');
    for (const l of loaded)
      expect(build.output, l.c.key).not.toContain(`Skipping build of project '${path.join(root, l.c.key)}`);
  });

  it('the negative checks fail to compile, each on its own', () => {
    const names = ['useAsWrongType', 'wrongComponent', 'noSuchModule', ...Object.keys(NEGATIVES)];
    for (const name of names) expect(build.errors.get(`neg/${name}.ts`)?.length ?? 0, name).toBeGreaterThan(0);
    expect(build.code).not.toBe(0);
  });

  it('relations of the closed sets are embedded in the compiled modules', async () => {
    let checked = 0;
    for (const l of loaded.filter((x) => x.c.closed)) {
      const inSet = new Map(l.c.space.map((s) => [s.uuid, s]));
      for (const s of l.c.space) {
        const mod = await importFresh<{ default: Story }>(path.join(l.out, 'stories', `${l.ids.get(s.uuid)}.js`));
        for (const site of relationSites(s.content)) {
          const target = inSet.get(site.uuid);
          if (!target) continue;
          const value = at(mod.default.content, site.at) as Story;
          expect(typeof value, `${l.c.label}: ${s.name} ${site.at.join('.')}`).toBe('object');
          expect(value.uuid).toBe(site.uuid);
          expect(value.name).toBe(target.name);
          expect(value.full_slug).toBe(target.full_slug);
          expect(value.content.component).toBe(target.content.component);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('the laravel set: single relation an object, multi relation an array of both targets', async () => {
    const l = loaded.find((x) => x.c.label === 'laravel-storyblok relation set')!;
    const rel = l.c.space[0]!;
    const mod = await importFresh<{ default: Story }>(path.join(l.out, 'stories', `${l.ids.get(rel.uuid)}.js`));
    const content = mod.default.content as Record<string, any>;
    expect(content.single_option_story.uuid).toBe(A);
    expect(content.single_option_story.id).toBe(l.ids.get(A));
    expect(content.multi_options_stories.map((s: Story) => s.uuid)).toEqual([A, B]);
    // The same target in both fields is one object in the module.
    expect(content.multi_options_stories[0]).toBe(content.single_option_story);
  });

  it('php v2-stories-relations: the popular articles are embedded in field order', async () => {
    const l = loaded.find((x) => x.c.label === 'storyblok-php-client/v2-stories-relations.json')!;
    const home = l.c.space[0]!;
    const mod = await importFresh<{ default: Story }>(path.join(l.out, 'stories', `${l.ids.get(home.uuid)}.js`));
    const body = mod.default.content.body as Array<Record<string, any>>;
    expect(body[1]!.articles.map((a: Story) => a.name)).toEqual(['Article 1', 'Article 4', 'Article 2']);
  });

  it('php v2-stories: category relations and story links in the set resolve', async () => {
    const l = loaded.find((x) => x.c.label === 'storyblok-php-client/v2-stories.json')!;
    const bySlug = new Map(l.c.space.map((s) => [s.full_slug, s]));
    const article = bySlug.get('article/article-1')!;
    const mod = await importFresh<{ default: Story }>(path.join(l.out, 'stories', `${l.ids.get(article.uuid)}.js`));
    const c = mod.default.content as Record<string, any>;
    const recorded = article.content as Record<string, any>;
    expect(Array.isArray(recorded.categories) && recorded.categories.length).toBeTruthy();
    expect(c.categories.map((x: Story) => x.uuid)).toEqual(recorded.categories);
    const author = l.c.space.find((s) => s.uuid === recorded.author.id)!;
    expect(c.author.story).toMatchObject({ uuid: author.uuid, full_slug: author.full_slug, url: author.full_slug });
    expect(c.author.cached_url).toBe(author.full_slug);
    expect(l.result.warnings).toEqual([]);
  });

  it('reports the dangling relation of ep16 by story name, and nothing for the closed sets', () => {
    const ep16 = loaded.find((x) => x.c.label === 'laravel-storyblok/ep16.json')!;
    expect(ep16.result.warnings).toHaveLength(1);
    const warning = ep16.result.warnings[0]!;
    expect(warning).toContain(ep16.c.space[0]!.name);
    expect(warning).toContain('15da551b-9937-440f-9ec6-185027fbff52');
    expect(warning).toContain('85b23871-b146-4db5-8ae8-ff524d2e5747');
    expect(warning).toContain('episode.features[0].body[8].links[0]');
    for (const l of loaded.filter((x) => x.c.closed)) expect(l.result.warnings, l.c.label).toEqual([]);
  });

  it('ep16, with keepUnresolved: the missing targets stay uuids in the module', async () => {
    const l = loaded.find((x) => x.c.label === 'laravel-storyblok/ep16.json')!;
    const s = l.c.space[0]!;
    const mod = await importFresh<{ default: Story }>(path.join(l.out, 'stories', `${l.ids.get(s.uuid)}.js`));
    const features = mod.default.content.features as Array<{ body: Array<Record<string, unknown>> }>;
    expect(features[0]!.body[8]!.links).toEqual([
      '15da551b-9937-440f-9ec6-185027fbff52',
      '85b23871-b146-4db5-8ae8-ff524d2e5747',
    ]);
  });

  /** The chunks of every compiled space that `which` chooses: their path in the output and on disk, a label, the text. */
  const chunksOf = async (which: (rel: string) => boolean) => {
    const chunks: Array<{ rel: string; file: string; label: string; text: string }> = [];
    for (const l of loaded) {
      for (const name of await fs.readdir(path.join(l.out, 'chunks'))) {
        const rel = `chunks/${name}`;
        if (!which(rel)) continue;
        const file = path.join(l.out, rel);
        chunks.push({ rel, file, label: `${l.c.label} ${rel}`, text: await fs.readFile(file, 'utf8') });
      }
    }
    return chunks;
  };

  it('each data chunk in its dev form (what a dev server loads) exports what the chunk does', async () => {
    const chunks = await chunksOf(isDataChunk);
    for (const { file, label, text } of chunks) {
      const dev = devDataChunk(text);
      expect(dev, label).toBeDefined();
      const devFile = file.replace(/\.js$/, '.dev.js');
      await fs.writeFile(devFile, dev!);
      try {
        const [original, served] = await Promise.all([
          importFresh<{ default: unknown }>(file),
          importFresh<{ default: unknown }>(devFile),
        ]);
        expect(served.default, label).toEqual(original.default);
      } finally {
        await fs.rm(devFile);
      }
    }
    expect(chunks.length).toBeGreaterThanOrEqual(2 * loaded.length);
  });

  it('each view chunk in its dev form has its entries, and its story loaders load what its loaders do', async () => {
    type ViewChunk = { default: unknown; loaders: Record<string, () => Promise<{ default: unknown }>> };
    const chunks = await chunksOf(isViewChunk);
    for (const { rel, file, label, text } of chunks) {
      // Written beside the chunk, so that their imports resolve as the dev server's do.
      const devFile = file.replace(/\.js$/, '.dev.js');
      const loadersFile = file.replace(/\.js$/, '.loaders.js');
      await fs.writeFile(devFile, devViewChunk(text, rel)!);
      await fs.writeFile(loadersFile, devStoryLoaders(text));
      try {
        const [original, served, storyLoaders] = await Promise.all([
          importFresh<ViewChunk>(file),
          importFresh<ViewChunk>(devFile),
          importFresh<{ default: ViewChunk['loaders'] }>(loadersFile),
        ]);
        expect(served.default, label).toEqual(original.default);
        expect(Object.keys(served.loaders), label).toEqual(Object.keys(original.loaders));
        expect(Object.keys(storyLoaders.default), label).toEqual(Object.keys(original.loaders));
        for (const id of Object.keys(original.loaders))
          expect((await storyLoaders.default[id]!()).default, `${label} ${id}`).toBe(
            (await original.loaders[id]!()).default,
          );
      } finally {
        await Promise.all([fs.rm(devFile), fs.rm(loadersFile)]);
      }
    }
    expect(chunks.length).toBeGreaterThanOrEqual(loaded.length);
  });
});
