/**
 * `entryFields`: the content fields a compile copies into every story's index entries, in each
 * language, as the snapshot has them (a relation is its uuid), so that lists of stories show
 * them without loading each story. They follow content edits incrementally, a `__proto__` key in a
 * value stays data, they are typed from the content types, and names that cannot be fields are
 * refused by the compile, the command and the plugin.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { languageExports } from '../../src/compile/emit.js';
import { compile } from '../../src/compile/index.js';
import { sync } from '../../src/sync/index.js';
import { parseOptions } from '../../src/vite/options.js';
import { runCli } from '../helpers/cli.js';
import { fixtureSpace, uuidOf } from '../helpers/fixture-space.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { readGenerated, walk } from './support.js';
import { bundlerApp, expectOnlyWrongFail } from './types/helpers.js';

interface Entry {
  id: number;
  lang: string;
  name: string;
  fields?: Record<string, unknown>;
}
interface Index {
  entries: Entry[];
}

const FIELDS = ['title', 'name', 'author', 'seo'];
const RELATIONS = ['article.author'];

let server: TestServer;
let root: string;
let snapshot: string;
const doSync = () => sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
/** The entries as the chunk files hold them now (an import would give this process's first load of a chunk). */
async function indexOf(out: string): Promise<Index> {
  const chunks = (await walk(out)).filter((f) => /^chunks\/entries-\d+\.js$/.test(f));
  const entries: Entry[] = [];
  for (const rel of chunks) {
    // An entries chunk is one `export default` of an expression: evaluated as a function's result.
    const text = await fs.readFile(path.join(out, rel), 'utf8');
    entries.push(...(new Function(text.replace('export default ', 'return ')) as () => Entry[])());
  }
  return { entries };
}

beforeAll(async () => {
  const space = fixtureSpace();
  // Hostile content: a key that would set a prototype if the entry were written as plain JSON text.
  const first = space.stories.find((r) => r.id === 12)!.published!.story.content;
  first.seo = JSON.parse('{"title":"SEO alpha","__proto__":{"polluted":true}}');
  server = await startTestServer({ space, admin: true });
  root = await tempDir('entry-fields');
  snapshot = path.join(root, 'snapshot');
  await doSync();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('entry fields', () => {
  it('are the listed fields each story has in each language, as its raw module (the snapshot) has them', async () => {
    const out = path.join(root, 'with');
    await compile({ snapshot, out, resolveRelations: RELATIONS, entryFields: FIELDS, chunkSize: 4 });
    const index = await indexOf(out);
    const exports = languageExports(['default', 'de']);
    expect(index.entries.length).toBeGreaterThan(10);
    for (const entry of index.entries) {
      const raw = readGenerated<Record<string, { content: Record<string, unknown> }>>(out, `raw/${entry.id}.js`);
      const { content } = raw[exports.get(entry.lang)!]!;
      const expected = Object.fromEntries(FIELDS.filter((f) => Object.hasOwn(content, f)).map((f) => [f, content[f]]));
      expect(entry.fields, `${entry.id} ${entry.lang}`).toEqual(expected);
    }
    const home = (lang: string) => index.entries.find((e) => e.id === 10 && e.lang === lang)!;
    expect(home('default').fields).toEqual({ title: 'Welcome' });
    expect(home('de').fields).toEqual({ title: 'Willkommen' });
    // A relation is the uuid the snapshot has, though the story module embeds the author.
    const post = index.entries.find((e) => e.id === 12 && e.lang === 'default')!;
    expect(post.fields!.author).toBe(uuidOf(16));
    // The `__proto__` key is the content's own, and nothing else changed.
    const seo = post.fields!.seo as Record<string, unknown>;
    expect(Object.hasOwn(seo, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(seo)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('are not there unless asked for: entries are what they were', async () => {
    const out = path.join(root, 'without');
    await compile({ snapshot, out, resolveRelations: RELATIONS, chunkSize: 4 });
    for (const entry of (await indexOf(out)).entries) expect(Object.hasOwn(entry, 'fields')).toBe(false);
    const chunks = (await walk(out)).filter((f) => f.startsWith('chunks/entries-') && f.endsWith('.js'));
    for (const rel of chunks) expect(await fs.readFile(path.join(out, rel), 'utf8')).not.toContain('"fields"');
  });

  it('follow an edit incrementally, and another list of fields compiles everything again', async () => {
    const out = path.join(root, 'incremental');
    await compile({ snapshot, out, resolveRelations: RELATIONS, entryFields: FIELDS, chunkSize: 4 });
    await admin(server.url, 'PUT', '/stories/13', { content: { title: 'Beta edited' } });
    await admin(server.url, 'POST', '/stories/13/publish');
    await admin(server.url, 'PUT', '/stories/16', { content: { name: 'Jane Roe' } });
    await admin(server.url, 'POST', '/stories/16/publish');
    await doSync();
    const again = await compile({ snapshot, out, resolveRelations: RELATIONS, entryFields: FIELDS, chunkSize: 4 });
    expect(again.mode).toBe('incremental');
    const entries = (await indexOf(out)).entries.filter((e) => e.lang === 'default');
    expect(entries.find((e) => e.id === 13)!.fields!.title).toBe('Beta edited');
    expect(entries.find((e) => e.id === 16)!.fields!.name).toBe('Jane Roe');
    // What a full compile of the same snapshot writes.
    const full = path.join(root, 'incremental-full');
    await compile({ snapshot, out: full, resolveRelations: RELATIONS, entryFields: FIELDS, chunkSize: 4 });
    expect((await indexOf(out)).entries).toEqual((await indexOf(full)).entries);

    const other = await compile({ snapshot, out, resolveRelations: RELATIONS, entryFields: ['title'], chunkSize: 4 });
    expect(other.mode).toBe('full');
    for (const entry of (await indexOf(out)).entries)
      expect(Object.keys(entry.fields!).every((k) => k === 'title')).toBe(true);
  });

  it('are typed from the content types: a field is what the types that have it say, and optional', async () => {
    const app = path.join(root, 'app');
    await compile({
      snapshot,
      out: path.join(app, '.content', 'modules'),
      resolveRelations: RELATIONS,
      entryFields: ['title', 'name', 'author'],
    });
    const preamble = "import { entries, byComponent } from 'content:index';\n";
    const wrong = [
      'export const t: string = entries[0]!.fields.title;',
      'entries[0]!.fields.teaser;',
      "export const n: number = byComponent('author')[0]!.fields.name ?? 0;",
      "byComponent('article')[0]!.fields.author?.content;",
    ];
    await bundlerApp(app, {
      'main.ts': `${preamble}export const titles: string[] = entries.map((e) => e.fields.title ?? e.fields.name ?? e.name);
export const authors: string[] = byComponent('author').map((e) => e.fields.name ?? '');
// A resolved relation (the module embeds the author) is its uuid in an entry.
export const authorUuids: Array<string | undefined> = byComponent('article').map((e) => e.fields.author);
`,
      ...Object.fromEntries(wrong.map((line, i) => [`wrong${i}.ts`, `${preamble}${line}\nexport {};\n`])),
    });
    await expectOnlyWrongFail(app, wrong);
  }, 120_000);

  it('refuses names that cannot be fields: the compile, the command and the plugin say which', async () => {
    const out = path.join(root, 'refused');
    await expect(compile({ snapshot, out, entryFields: ['__proto__'] })).rejects.toThrow(
      'entryFields: "__proto__" is not a content field name',
    );
    await expect(compile({ snapshot, out, entryFields: ['title', 'title'] })).rejects.toThrow(
      'entryFields: "title" is listed twice',
    );
    const cli = await runCli(['compile', '--snapshot', snapshot, '--out', out, '--entry-fields', 'title,__proto__']);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('--entry-fields: "__proto__" is not a content field name');
    expect(() => parseOptions({ entryFields: ['__proto__'] })).toThrow(
      /option "entryFields": "__proto__" is not a content field name/,
    );
    expect(() => parseOptions({ entryFields: ['title', 'title'] })).toThrow(
      /option "entryFields": "title" is listed twice/,
    );
    expect(parseOptions({}).entryFields).toEqual([]);
  });
});
