/**
 * content.d.ts: one include line types every `content:` import, with no `paths`. A small app
 * imports each module the plugin serves and is checked by the real tsc under the module
 * resolutions apps use (Bundler as create-vite sets it up, Node10, NodeNext) and with a
 * `/// <reference path>` instead of the include; wrong uses (an unknown module among them) must fail.
 */
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../../src/compile/index.js';
import { servedFile, viewModuleName } from '../../../src/compile/modules.js';
import { GENERATED_HEADER } from '../../../src/compile/emit.js';
import { sync } from '../../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../../sync/support.js';
import { expectOnlyWrongFail, tscBuild, tscProject } from './helpers.js';

let server: TestServer;
let snapshot: string;

beforeAll(async () => {
  server = await startTestServer();
  snapshot = path.join(await tempDir('content-dts'), 'snapshot');
  await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

/** Every module the plugin serves, used as an app would (types only where `verbatimModuleSyntax` wants them). */
const APP = `import { byComponent, entries, getStory, languages, load, type StoryEntry } from 'content:index';
import story, { de } from 'content:stories/12';
import { datasources, label } from 'content:datasources';
import { tags, type TagName } from 'content:tags';
import { backlinks, backlinksOf } from 'content:backlinks';
import type { ArticleStory, AuthorContent, ContentTypes } from 'content:types';
import * as deIndex from 'content:index/de';
import { entries as articles, load as loadArticle, bySlug } from 'content:index/default/article';

export const title: string = story.content.title;
export const german: ArticleStory = de;
const first: StoryEntry<'article'> | undefined = byComponent('article', 'de')[0];
export const component: 'article' | undefined = first?.component;
export async function bodies(): Promise<string[]> {
  const post: ArticleStory = await getStory('blog/first-post');
  const loaded = first ? await load(first) : post;
  return [post.content.title, loaded.content.title, ...languages, ...entries.map((e) => e.full_slug)];
}
export const colour: string | undefined = label('colors', 'red', 'de');
export const names: string[] = datasources.colors.entries.map((e) => e.name);
export const tagNames: TagName[] = tags.map((t) => t.name);
export const referrers: string[] = [...backlinksOf(story.uuid), ...(backlinks[story.uuid] ?? [])];
export const author = (c: AuthorContent): string => c.name;
export type Page = ContentTypes['page'];
export const germanSlugs: string[] = deIndex.entries.map((e) => e.full_slug);
export const lang: string = deIndex.language;
export async function firstArticle(): Promise<string | undefined> {
  const entry: StoryEntry<'article'> | undefined = articles[0] ?? bySlug('blog/first-post');
  return entry && (await loadArticle(entry)).content.title;
}
`;

/** Each line must fail on its own. */
const WRONG = [
  `import { nothing } from 'content:index';`,
  `import story from 'content:stories/12'; export const n: number = story.content.title;`,
  `import { label } from 'content:datasources'; label('no-such-datasource', 'red');`,
  `import type { NoSuchStory } from 'content:types'; export type X = NoSuchStory;`,
  `import { getStory } from 'content:index'; export const p: Promise<import('content:types').AuthorStory> = getStory('blog/first-post');`,
  `import { entries } from 'content:index/de/article'; export const e: import('content:index').StoryEntry<'page'>[] = entries;`,
  `import { entries, load } from 'content:index/de/article'; export const n = entries[0] && load(entries[0]).then((s) => s.content.nmae);`,
  `import { entries } from 'content:index/fr'; export const n = entries.length;`,
  `import { entries } from 'content:index/de/no-such-type'; export const n = entries.length;`,
  `import { entries } from 'content:nothing'; export const n = entries.length;`,
];

const BUNDLER = {
  // As create-vite 9's templates set it up (vanilla-ts: tsconfig.json; react-ts, vue-ts: tsconfig.app.json),
  // less `types: ["vite/client"]` (no Vite beside this app).
  target: 'es2023',
  module: 'esnext',
  lib: ['ES2023', 'DOM'],
  allowArbitraryExtensions: true,
  skipLibCheck: true,
  moduleResolution: 'bundler',
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
  moduleDetection: 'force',
  noEmit: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  erasableSyntaxOnly: true,
  noFallthroughCasesInSwitch: true,
  strict: true,
};
const NODE10 = {
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'Node10',
  strict: true,
  noEmit: true,
  types: [],
};
const NODENEXT = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  noEmit: true,
  types: [],
  skipLibCheck: false,
};

interface Setup {
  name: string;
  compilerOptions: Record<string, unknown>;
  /** How the app takes in the declarations. */
  via: 'include' | 'reference';
}

const SETUPS: Setup[] = [
  { name: 'Bundler (create-vite), include', compilerOptions: BUNDLER, via: 'include' },
  { name: 'Node10, include', compilerOptions: NODE10, via: 'include' },
  { name: 'NodeNext, /// <reference path>', compilerOptions: NODENEXT, via: 'reference' },
];

/** An app beside `.content/`, its tsconfig naming the declarations one way or the other. */
async function app(root: string, setup: Setup, files: Record<string, string>): Promise<void> {
  await fs.mkdir(path.join(root, 'src'), { recursive: true });
  await fs.writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const include = setup.via === 'include' ? ['src', '.content/content.d.ts'] : ['src'];
  await fs.writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: setup.compilerOptions, include }, null, 2),
  );
  if (setup.via === 'reference')
    files = { ...files, 'env.d.ts': '/// <reference path="../.content/content.d.ts" />\n' };
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(root, 'src', name), text);
}

describe('content.d.ts', () => {
  it('is written beside the modules, and rewritten only when it changes', async () => {
    const root = await tempDir('content-dts-app');
    const out = path.join(root, '.content', 'modules');
    const first = await compile({ snapshot, out, resolveRelations: ['article.author'], resolveLinks: 'url' });
    const file = path.join(root, '.content', 'content.d.ts');
    expect(first.declaration).toBe(file);
    const text = readFileSync(file, 'utf8');
    for (const name of [
      'index',
      'datasources',
      'tags',
      'backlinks',
      'types',
      'index/default',
      'index/de',
      'index/de/article',
      'index/default/product',
    ])
      expect(text).toContain(`declare module "content:${name}" {`);
    expect(text).not.toMatch(/declare module "content:\*/);
    expect(text).toContain('/// <reference path="./modules/stories.d.ts" />');
    const again = await compile({ snapshot, out, resolveRelations: ['article.author'], resolveLinks: 'url' });
    expect(again.declaration).toBeUndefined();
    // Gone while nothing else changed: the next compile writes it again.
    await fs.rm(file);
    expect(
      (await compile({ snapshot, out, resolveRelations: ['article.author'], resolveLinks: 'url' })).declaration,
    ).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(text);
    // Beside a directory whose name starts with `..` (inside the app, not above it).
    const dotted = path.join(root, 'dotted');
    await compile({
      snapshot,
      out: path.join(dotted, '..content', 'modules'),
      declaration: path.join(dotted, 'content.d.ts'),
    });
    expect(readFileSync(path.join(dotted, 'content.d.ts'), 'utf8')).toContain('import("./..content/modules/types.js")');
    await app(dotted, SETUPS[0]!, {
      'main.ts': `import { getStory } from 'content:index';\nexport const t: string = (await getStory('blog/first-post')).content.title;\n`,
    });
    await fs.writeFile(
      path.join(dotted, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: SETUPS[0]!.compilerOptions, include: ['src', 'content.d.ts'] }),
    );
    expect((await tscProject(dotted)).output).toBe('');
    // Elsewhere, or not at all.
    const elsewhere = path.join(root, 'types', 'content.d.ts');
    await compile({ snapshot, out: path.join(root, 'other'), declaration: elsewhere });
    expect(readFileSync(elsewhere, 'utf8')).toContain('/// <reference path="../other/stories.d.ts" />');
    await compile({ snapshot, out: path.join(root, 'none', 'modules'), declaration: false });
    expect(existsSync(path.join(root, 'none', 'content.d.ts'))).toBe(false);
  }, 60_000);

  for (const setup of SETUPS) {
    it(`types every content: import of an app with one line, no paths: ${setup.name}`, async () => {
      const root = await tempDir('content-dts-app');
      await compile({
        snapshot,
        out: path.join(root, '.content', 'modules'),
        resolveRelations: ['article.author'],
        resolveLinks: 'url',
      });
      // One run: the app must check clean, and each wrong use must fail on its own.
      const wrong = Object.fromEntries(WRONG.map((text, i) => [`wrong${i}.ts`, `${text}\nexport {};\n`]));
      await app(root, setup, { 'main.ts': APP, ...wrong });
      await expectOnlyWrongFail(root, WRONG);
    }, 120_000);
  }
});

describe('content.d.ts written away from the modules, across a folder whose name holds a double quote', () => {
  it('references them so that tsc finds them (a reference path has no escapes)', async () => {
    const root = await tempDir('content-dts-app');
    await compile({
      snapshot,
      out: path.join(root, 'say "cheese"', 'modules'),
      declaration: path.join(root, 'types', 'content.d.ts'),
    });
    await fs.writeFile(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: NODENEXT, include: ['main.ts', 'types/content.d.ts'] }),
    );
    await fs.writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await fs.writeFile(
      path.join(root, 'main.ts'),
      "import story from 'content:stories/12';\nexport const title: string = story.content.title;\n",
    );
    expect(await tscProject(root)).toEqual({ code: 0, output: '' });
  }, 60_000);
});

describe('content.d.ts of content types whose names are hostile', () => {
  /** A `*` is a wildcard in `declare module`; a lone surrogate cannot be percent-encoded. */
  const COMPONENTS = ['a*b*c', '*', 'half\uD800'];

  it('declares each lean module as itself: the app checks, an unknown content type still fails', async () => {
    const hostile = await startTestServer({ admin: true });
    try {
      for (const [k, component] of COMPONENTS.entries()) {
        const created = await fetch(`${hostile.url}/__admin/stories`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Odd ${k}`, content: { component, title: 'x' } }),
        }).then((r) => r.json());
        expect(
          (await fetch(`${hostile.url}/__admin/stories/${created.story.id}/publish`, { method: 'POST' })).status,
        ).toBe(200);
      }
      const root = await tempDir('content-dts-hostile');
      const own = path.join(root, 'snapshot');
      await sync({ baseUrl: hostile.url, token: PUBLIC, out: own, ...unpaced() });
      const out = path.join(root, '.content', 'modules');
      await compile({ snapshot: own, out });
      const text = readFileSync(path.join(root, '.content', 'content.d.ts'), 'utf8');
      // No declared name holds a `*`: each declares one module.
      expect(text.match(/declare module "[^"]*\*/g)).toBeNull();
      for (const component of COMPONENTS) {
        const name = viewModuleName('default', component);
        expect(existsSync(path.join(out, servedFile(name)!)), component).toBe(true);
        expect(text, component).toContain(`declare module "content:${name}" {`);
      }
      const main = COMPONENTS.map(
        (c, k) =>
          `import { entries as e${k} } from 'content:${viewModuleName('default', c)}';\nexport const n${k}: number = e${k}.length;\n`,
      ).join('');
      const wrong = [`import { entries } from 'content:index/default/no-such-type'; export const n = entries.length;`];
      await app(root, SETUPS[0]!, { 'main.ts': main, 'wrong0.ts': `${wrong[0]}\nexport {};\n` });
      await expectOnlyWrongFail(root, wrong);
    } finally {
      await hostile.close();
    }
  }, 120_000);
});

describe('content.d.ts in a project that emits', () => {
  /** A module of the app that re-exports content types, so its declaration emit names them. */
  const POSTS = `import { getStory } from 'content:index';
import type { ArticleStory } from 'content:types';
export type { ArticleStory, AuthorContent } from 'content:types';
export const post = (): Promise<ArticleStory> => getStory('blog/first-post');
`;

  it('keeps every generated file out of its sources: rootDir holds, a composite project builds, only its own output is emitted', async () => {
    const root = await tempDir('content-dts-emit');
    const out = path.join(root, '.content', 'modules');
    await compile({ snapshot, out });
    // The types.ts an earlier version wrote, left where no state lists it, would shadow types.d.ts.
    await fs.rm(path.join(out, '.content-sync-compile.json'));
    await fs.writeFile(path.join(out, 'types.ts'), `${GENERATED_HEADER}export type ArticleStory = number;\n`);
    await compile({ snapshot, out });
    expect(existsSync(path.join(out, 'types.ts'))).toBe(false);
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await fs.writeFile(path.join(root, 'src', 'posts.ts'), POSTS);
    // As a package of a monorepo with project references has it.
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      strict: true,
      composite: true,
      declaration: true,
      rootDir: 'src',
      outDir: 'dist',
      types: [],
    };
    await fs.writeFile(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, include: ['src', '.content/content.d.ts'] }),
    );
    const { code, output } = await tscBuild(root);
    expect(output).toBe('');
    expect(code).toBe(0);
    expect((await fs.readdir(path.join(root, 'dist'))).filter((f) => !f.endsWith('.tsbuildinfo')).sort()).toEqual([
      'posts.d.ts',
      'posts.js',
    ]);
    expect(readFileSync(path.join(root, 'dist', 'posts.d.ts'), 'utf8')).toContain(`from 'content:types'`);
  }, 120_000);
});

describe('content modules under src/ of a project that checks JavaScript', () => {
  it('add no errors under checkJs (as SvelteKit sets it up), where the include reaches them', async () => {
    const root = await tempDir('content-dts-checkjs');
    await compile({ snapshot, out: path.join(root, 'src', 'content'), resolveRelations: ['article.author'] });
    await fs.writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await fs.writeFile(path.join(root, 'src', 'main.ts'), APP);
    // SvelteKit's generated tsconfig: allowJs and checkJs, every .js and .ts under src/ included.
    const compilerOptions = { ...BUNDLER, allowJs: true, checkJs: true };
    await fs.writeFile(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, include: ['src/**/*.js', 'src/**/*.ts'] }),
    );
    expect((await tscProject(root)).output).toBe('');
  }, 60_000);
});
