/**
 * The types are true of the values: every value every `content:` module exports (stories in every
 * language, index entries, lean index modules, datasources, tags) is written, as the JSON literal it
 * is at runtime, into a module that assigns it to the type content.d.ts declares for it, and tsc
 * --strict must accept them all. Spaces that are small on purpose, each about one way a declared
 * type can differ from the value.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CompileOptions, compile, servedFile } from '../../../src/compile/index.js';
import type { SpaceData } from '../../../src/snapshot/index.js';
import { sync } from '../../../src/sync/index.js';
import { fixtureSpace, uuidOf } from '../../helpers/fixture-space.js';
import { PUBLIC, startTestServer } from '../../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../../sync/support.js';
import { importFresh } from '../support.js';
import { checkMain } from './helpers.js';

afterAll(removeTempDirs);

/** Serves `space`, syncs it and compiles it with `options` into `<root>/.content`; the root. */
async function compiled(space: SpaceData, options: Partial<CompileOptions>): Promise<string> {
  const root = await tempDir('values-typed');
  const server = await startTestServer({ space });
  try {
    const snapshot = path.join(root, 'snapshot');
    await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
    await compile({ snapshot, out: path.join(root, '.content', 'modules'), ...options });
  } finally {
    await server.close();
  }
  return root;
}

/** Every `content:` module content.d.ts declares (the story modules in its chunks too). */
function declaredModules(root: string): string[] {
  const texts = [readFileSync(path.join(root, '.content', 'content.d.ts'), 'utf8')];
  const chunks = path.join(root, '.content', 'modules', 'chunks');
  for (const f of readdirSync(chunks)) if (f.endsWith('.d.ts')) texts.push(readFileSync(path.join(chunks, f), 'utf8'));
  const names = new Set<string>();
  for (const text of texts)
    for (const m of text.matchAll(/^declare module ("(?:[^"\\]|\\.)*")/gm)) names.add(JSON.parse(m[1]!) as string);
  return [...names].filter((n) => n !== 'content:types');
}

/** Runs tsc --strict over `<root>/main.ts` holding `main` (with content.d.ts); its diagnostics. */
const checkApp = (root: string, main: string): Promise<string> => checkMain(root, main, '.content/content.d.ts');

/** tsc's diagnostics for a module assigning each value exported by each content: module to its declared type. */
async function valuesAgainstTypes(root: string): Promise<string> {
  const lines: string[] = [];
  let i = 0;
  for (const spec of declaredModules(root)) {
    const file = servedFile(spec.slice('content:'.length))!;
    const mod = await importFresh(path.join(root, '.content', 'modules', file));
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'function') continue;
      lines.push(
        `export const v${++i}: typeof import(${JSON.stringify(spec)})[${JSON.stringify(name)}] = ${JSON.stringify(value)};`,
      );
    }
  }
  expect(i).toBeGreaterThan(10);
  return checkApp(root, `${lines.join('\n')}\n`);
}

const storyLink = (target: number, cached: string) => ({
  fieldtype: 'multilink',
  linktype: 'story',
  id: uuidOf(target),
  url: '',
  cached_url: cached,
});

/** The fixture space, its authors with a story link each, its home page with a blok that relates an article. */
function linkedSpace(): SpaceData {
  const space = fixtureSpace();
  const content = (id: number) => space.stories.find((r) => r.id === id)!.published!.story.content;
  content(16).website = storyLink(12, 'blog/first-post');
  content(17).website = storyLink(13, 'blog/second-post');
  content(10).body = [{ component: 'featured', _uid: 'featured-1', article: uuidOf(12) }];
  return space;
}

describe('values the compile leaves as the snapshot has them are typed so', () => {
  for (const resolveLinks of ['url', 'story', 'link'] as const) {
    it(`a story link inside an embedded story has no resolved story (resolveLinks: '${resolveLinks}')`, async () => {
      // Every top-level author link resolves, so `story` is required in StoryLink; the author an
      // article embeds (depth 1) is as the snapshot has it, its link without `story`.
      const root = await compiled(linkedSpace(), { resolveRelations: ['article.author'], resolveLinks });
      const post = (await importFresh<{ default: any }>(path.join(root, '.content', 'modules', 'stories', '12.js')))
        .default;
      expect(post.content.author.content.website.linktype).toBe('story');
      expect(post.content.author.content.website).not.toHaveProperty('story');
      expect(await valuesAgainstTypes(root)).toBe('');
    }, 120_000);
  }

  it('entry fields are typed as the snapshot has them: nested relations are uuids, links unresolved', async () => {
    const root = await compiled(linkedSpace(), {
      resolveRelations: ['article.author', 'featured.article'],
      resolveLinks: 'url',
      entryFields: ['title', 'body', 'website'],
    });
    expect(await valuesAgainstTypes(root)).toBe('');
  }, 120_000);
});

describe('getStory is typed by the language it looks in', () => {
  it('a full slug of another language is not typed as found (at runtime it is undefined)', async () => {
    const root = await compiled(fixtureSpace(), {});
    const index = await importFresh<{ getStory: (s: string, l?: string) => Promise<unknown> }>(
      path.join(root, '.content', 'modules', 'index.js'),
    );
    // What the types must reflect: a lookup finds a full slug only in the language that delivers it.
    expect(await index.getStory('blog/first-post', 'de')).toBeUndefined();
    expect(await index.getStory('de/blog/erster-beitrag')).toBeUndefined();
    expect(await index.getStory('de/blog/erster-beitrag', 'de')).toBeDefined();
    const output = await checkApp(
      root,
      `import { getStory } from 'content:index';
const inDefault = await getStory('blog/first-post');
export const a: string = inDefault.content.title;
const inGerman = await getStory('de/blog/erster-beitrag', 'de');
export const b: string = inGerman.content.title;
// Not found at runtime: the default language's slug looked up in German, and the other way round.
const wrong1 = await getStory('blog/first-post', 'de');
export const c: string = wrong1.content.title;
const wrong2 = await getStory('de/blog/erster-beitrag');
export const d: string = wrong2.content.title;
`,
    );
    const errors = output.split('\n').filter((l) => / error /.test(l));
    expect(errors.filter((l) => !/^main\.ts\((8|10),/.test(l))).toEqual([]);
    expect(output).toMatch(/^main\.ts\(8,\d+\): error/m);
    expect(output).toMatch(/^main\.ts\(10,\d+\): error/m);
  }, 120_000);

  it('a full slug two stories share in different languages, in different chunks, leaves every lookup typed', async () => {
    // Article 13's German slug is `de/about`, the default slug of page 18 (in the root folder `de`).
    const space = fixtureSpace();
    const r = space.stories.find((s) => s.id === 13)!;
    r.published!.languages = { ...(r.published!.languages ?? {}), de: { full_slug: 'de/about' } };
    const root = await compiled(space, { chunkSize: 4 });
    const output = await checkApp(
      root,
      `import { getStory } from 'content:index';
const home = await getStory('home');
export const title: string = home.content.title;
const about = await getStory('de/about');
export const c: "page" = about.content.component;
`,
    );
    expect(output).toBe('');
  }, 120_000);
});

describe('type names from component names stay identifiers TypeScript reads', () => {
  it('a component named with a letter whose capital is newer than TypeScript (ƛ, ɤ) compiles under tsc', async () => {
    const space = fixtureSpace();
    const runner = space.stories.find((r) => r.id === 19)!.published!.story;
    runner.content = { ...runner.content, component: 'ƛ', parts: [{ component: 'ɤ_block', _uid: 'p-1', label: 'x' }] };
    const root = await compiled(space, {});
    const types = readFileSync(path.join(root, '.content', 'modules', 'types.d.ts'), 'utf8');
    expect(types).toMatch(/component: "ƛ";/);
    expect(await valuesAgainstTypes(root)).toBe('');
  }, 120_000);
});

describe('an incremental compile types options as a full compile does', () => {
  it('a value past the cap is not held in room a removal made while others are still past it', async () => {
    const { TypeInferrer } = await import('../../../src/compile/types/index.js');
    const { story } = await import('./helpers.js');
    // Twelve values held (the cap), `L`..`B` twice and `A` once; `M` past the cap.
    const size = (value: string, id: number) => story({ component: 'opt', size: value }, { uuid: `u-${id}` });
    const before = [
      size('A', 1),
      ...'BCDEFGHIJKL'.split('').flatMap((v, i) => [size(v, 10 + i), size(v, 30 + i)]),
      size('M', 99),
    ];
    // Story 1 changes from `A` to `M`, as an incremental compile applies it: its old variant out, its new one in.
    const changed = size('M', 1);
    const incremental = new TypeInferrer();
    for (const s of before) incremental.add(s);
    incremental.remove(before[0]!);
    incremental.add(changed);
    const full = new TypeInferrer();
    for (const s of [changed, ...before.slice(1)]) full.add(s);
    const model = incremental.model();
    // Either the same types, or the compile is told to observe every story again (it then gets them).
    if (!model.undecided) expect(incremental.emit()).toBe(full.emit());
    expect(full.emit()).toMatch(/size: "B" \| "C" .* \| "M";/);
  });
});

describe('assets', () => {
  it('an asset field only ever empty, its filename null (counted as empty), is typed so', async () => {
    const space = fixtureSpace();
    for (const id of [19, 20]) {
      const s = space.stories.find((r) => r.id === id)!.published!.story;
      s.content.image = {
        fieldtype: 'asset',
        id: null,
        filename: null,
        alt: null,
        name: '',
        focus: null,
        title: null,
        copyright: null,
      };
    }
    const root = await compiled(space, {});
    expect(readFileSync(path.join(root, '.content', 'modules', 'types.d.ts'), 'utf8')).toContain(
      '  image: EmptyAsset;\n',
    );
    expect(await valuesAgainstTypes(root)).toBe('');
  }, 120_000);
});

describe('datasources in the types (README: "a field whose values are all entry names of a datasource is that datasource\'s names")', () => {
  it('a field holding entry names of the colors datasource is typed as its names', async () => {
    const space = fixtureSpace();
    const content = (id: number) => space.stories.find((r) => r.id === id)!.published!.story.content;
    content(19).color = 'red';
    content(20).color = 'blue';
    const root = await compiled(space, {});
    const types = readFileSync(path.join(root, '.content', 'modules', 'types.d.ts'), 'utf8');
    expect(types).toContain('  color: "blue" | "green" | "red";\n');
    expect(await valuesAgainstTypes(root)).toBe('');
  }, 120_000);
});

describe('lean index modules are declared in the form the README gives and the plugin serves', () => {
  it('a language code with a character that needs no encoding (ü) is importable as written', async () => {
    const space = fixtureSpace();
    space.space.language_codes = [...(space.space.language_codes ?? []), 'ü'];
    const root = await compiled(space, {});
    const { servedFile: served } = await import('../../../src/compile/modules.js');
    // The plugin serves the name as written and encoded alike.
    expect(served('index/ü')).toBe(served('index/%C3%BC'));
    expect(served('index/ü')).toBeDefined();
    const output = await checkApp(
      root,
      `import { entries } from 'content:index/ü';
export const n: number = entries.length;
`,
    );
    expect(output).toBe('');
  }, 120_000);
});

describe('fields named like the members every object inherits', () => {
  it('a toString or constructor some stories lack is typed as what they have there: the inherited member', async () => {
    // Product 19 has both fields, product 20 neither: its content's toString is Object.prototype's.
    const space = fixtureSpace();
    const content = (id: number) => space.stories.find((r) => r.id === id)!.published!.story.content;
    Object.assign(content(19), { toString: 'plain', constructor: 'oak', valueOf: 3 });
    const root = await compiled(space, { entryFields: ['name', 'toString', 'constructor'] });
    expect(await valuesAgainstTypes(root)).toBe('');
    const output = await checkApp(
      root,
      `import story from 'content:stories/20';
import { byComponent } from 'content:index';
// @ts-expect-error it is Object.prototype.toString here, not undefined
export const wrong: string | undefined = story.content.toString;
// @ts-expect-error the same in an entry's fields
export const wrongEntry: string | undefined = byComponent('product')[0]?.fields.toString;
const read = story.content.toString;
export const text: string = typeof read === 'string' ? read : 'none';
`,
    );
    expect(output).toBe('');
  }, 120_000);
});
