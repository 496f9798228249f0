/**
 * Resolved relations in the generated types: a field listed in `resolveRelations` is the story the
 * compile embeds (the union of the target content types observed there), typed as deep as the
 * compile resolves, and checked by the real tsc in an app that takes content.d.ts in with one
 * include line. A target the compile cannot resolve is left out and named in the warning; the
 * command's `--keep-unresolved` and the plugin's `keepUnresolved` keep its uuid, and the type says so.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompileOptions, compile } from '../../../src/compile/index.js';
import { sync } from '../../../src/sync/index.js';
import { runCli } from '../../helpers/cli.js';
import { fixtureSpace, uuidOf } from '../../helpers/fixture-space.js';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../../sync/support.js';
import { importFresh } from '../support.js';
import { bundlerApp, expectOnlyWrongFail } from './helpers.js';

const RELATIONS = ['article.author', 'author.articles', 'page.featured'];
/** The plugin as a project's Vite config imports it (from source here, from the package in an app). */
const PLUGIN = fileURLToPath(new URL('../../../src/index.ts', import.meta.url));
/** Story 15 is a draft only (not in the published view); no story has id 99. */
const UNPUBLISHED = uuidOf(15);
const MISSING = uuidOf(99);

/** The fixture space with targets the published view cannot resolve: story 13's author and one of Jane's articles. */
function spaceWithMissingTargets(): ReturnType<typeof fixtureSpace> {
  const space = fixtureSpace();
  const content = (id: number) => space.stories.find((r) => r.id === id)!.published!.story.content;
  content(13).author = UNPUBLISHED;
  content(16).articles = [uuidOf(12), MISSING, uuidOf(14)];
  return space;
}

const servers: TestServer[] = [];
let complete: string;
let incomplete: string;

beforeAll(async () => {
  const dir = await tempDir('relations-tsc');
  for (const [space, out] of [
    [fixtureSpace(), 'complete'],
    [spaceWithMissingTargets(), 'incomplete'],
  ] as const) {
    const server = await startTestServer({ space });
    servers.push(server);
    await sync({ baseUrl: server.url, token: PUBLIC, out: path.join(dir, out), ...unpaced() });
  }
  complete = path.join(dir, 'complete');
  incomplete = path.join(dir, 'incomplete');
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await removeTempDirs();
});

/**
 * Type-checks `good` and each line of `wrong` in one tsc run over the app: `good` must check clean
 * and every wrong line must fail on its own.
 */
async function expectTypes(root: string, good: string, wrong: readonly string[]): Promise<void> {
  const files = Object.fromEntries(wrong.map((text, i) => [`wrong${i}.ts`, `${PREAMBLE}${text}\nexport {};\n`]));
  await bundlerApp(root, { 'main.ts': `${PREAMBLE}${good}`, ...files });
  await expectOnlyWrongFail(root, wrong);
}

const PREAMBLE = `import { getStory } from 'content:index';
const post = await getStory('blog/first-post');
const second = await getStory('blog/second-post');
const home = await getStory('home');
const jane = await getStory('authors/jane');
`;

async function compileInto(root: string, options: Partial<CompileOptions> & { snapshot: string }): Promise<string> {
  const out = path.join(root, '.content', 'modules');
  await compile({ out, resolveRelations: RELATIONS, ...options });
  return readFileSync(path.join(out, 'types.d.ts'), 'utf8');
}

describe('resolved relations are typed as the stories they embed', () => {
  it('a relation field is the target story: its fields check without a cast, a wrong one fails', async () => {
    const root = await tempDir('relations-app');
    const types = await compileInto(root, { snapshot: complete });
    expect(types).toContain('  author: Related<AuthorStory>;\n');
    expect(types).toContain('  articles: Related<ArticleStory>[];\n');
    expect(types).toContain('  featured?: Related<ArticleStory>[];\n');
    expect(types).not.toMatch(/: Relation</);
    await expectTypes(
      root,
      `export const name: string = post.content.author.content.name;
export const slug: string = post.content.author.full_slug;
export const titles: string[] = (home.content.featured ?? []).map((a) => a.content.title);
// Depth 1: the author is embedded as the snapshot has it, its own relations uuids.
export const articleUuids: string[] = post.content.author.content.articles;
`,
      [
        'post.content.author.content.nmae;',
        'export const n: number = post.content.author.content.name;',
        'post.content.author.content.articles[0]?.content;',
        'export const s: string = post.content.author;',
      ],
    );
  }, 120_000);

  it('at depth 2 the embedded story has its relations resolved in turn, and theirs are uuids', async () => {
    const root = await tempDir('relations-app');
    await compileInto(root, { snapshot: complete, depth: 2 });
    await expectTypes(
      root,
      `export const title: string | undefined = post.content.author.content.articles[0]?.content.title;
export const authorUuid: string | undefined = post.content.author.content.articles[0]?.content.author;
`,
      ['post.content.author.content.articles[0]?.content.author.content;'],
    );
  }, 120_000);

  it('a target not in the snapshot is left out, named in the warning with story, field and uuid, and typed so', async () => {
    const root = await tempDir('relations-app');
    const out = path.join(root, '.content', 'modules');
    const result = await compile({ snapshot: incomplete, out, resolveRelations: RELATIONS });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain(`Second post (article.author -> ${UNPUBLISHED})`);
    expect(result.warnings[0]).toContain(`Jane (author.articles[1] -> ${MISSING})`);
    // The generated modules: the single value is null, the array lost the item.
    const secondModule = await importFresh<{ default: any }>(path.join(out, 'stories', '13.js'));
    expect(secondModule.default.content.author).toBeNull();
    const janeModule = await importFresh<{ default: any }>(path.join(out, 'stories', '16.js'));
    expect(janeModule.default.content.articles.map((a: any) => a.uuid)).toEqual([uuidOf(12), uuidOf(14)]);

    const types = readFileSync(path.join(out, 'types.d.ts'), 'utf8');
    expect(types).toContain('  author: Related<AuthorStory> | null;\n');
    expect(types).toContain('  articles: Related<ArticleStory>[];\n');
    await expectTypes(
      root,
      `export const name: string | undefined = second.content.author?.content.name;
export const titles: string[] = jane.content.articles.map((a) => a.content.title);
`,
      ['post.content.author.content.name;'],
    );
  }, 120_000);

  it('content-sync compile --keep-unresolved keeps the uuid, and the type adds string', async () => {
    const root = await tempDir('relations-app');
    const out = path.join(root, '.content', 'modules');
    const cli = await runCli([
      'compile',
      '--snapshot',
      incomplete,
      '--out',
      out,
      '--resolve-relations',
      RELATIONS.join(','),
      '--keep-unresolved',
    ]);
    expect(cli.stderr + cli.stdout).toContain(`Second post (article.author -> ${UNPUBLISHED})`);
    expect(cli.stderr + cli.stdout).toContain('relations keep their uuids (keepUnresolved)');
    expect(cli.code).toBe(0);
    const secondModule = await importFresh<{ default: any }>(path.join(out, 'stories', '13.js'));
    expect(secondModule.default.content.author).toBe(UNPUBLISHED);
    const janeModule = await importFresh<{ default: any }>(path.join(out, 'stories', '16.js'));
    const articles = janeModule.default.content.articles.map((a: any) => (typeof a === 'string' ? a : a.uuid));
    expect(articles).toEqual([uuidOf(12), MISSING, uuidOf(14)]);

    const types = readFileSync(path.join(out, 'types.d.ts'), 'utf8');
    expect(types).toContain('  author: Related<AuthorStory> | string;\n');
    expect(types).toContain('  articles: (Related<ArticleStory> | string)[];\n');
    await expectTypes(root, KEPT, KEPT_WRONG);
  }, 120_000);

  it('the plugin option keepUnresolved does the same through the plugin (content-sync prepare)', async () => {
    const root = await tempDir('relations-plugin');
    const options = { baseUrl: servers[1]!.url, token: PUBLIC, resolveRelations: RELATIONS, keepUnresolved: true };
    await fs.writeFile(
      path.join(root, 'vite.config.mjs'),
      `import { contentSync } from ${JSON.stringify(PLUGIN)};\nexport default { plugins: [contentSync(${JSON.stringify(options)})] };\n`,
    );
    const prepare = await runCli(
      ['prepare'],
      { CONTENT_BASE_URL: '', CONTENT_TOKEN: '', CONTENT_WEBHOOK_SECRET: '' },
      root,
    );
    expect(prepare.code, prepare.stderr).toBe(0);
    expect(prepare.stdout + prepare.stderr).toContain(`Second post (article.author -> ${UNPUBLISHED})`);
    const out = path.join(root, '.content', 'modules');
    expect((await importFresh<{ default: any }>(path.join(out, 'stories', '13.js'))).default.content.author).toBe(
      UNPUBLISHED,
    );
    expect(readFileSync(path.join(out, 'types.d.ts'), 'utf8')).toContain('  author: Related<AuthorStory> | string;\n');
    await expectTypes(root, KEPT, KEPT_WRONG);
  }, 180_000);
});

/** With kept uuids: a relation is the story or a uuid, and only narrowing reaches the story. */
const KEPT = `const author = second.content.author;
export const name: string = typeof author === 'string' ? author : author.content.name;
export const titles: string[] = jane.content.articles.flatMap((a) => (typeof a === 'string' ? [] : [a.content.title]));
`;
const KEPT_WRONG = ['post.content.author.content.name;', 'jane.content.articles.map((a) => a.content.title);'];
