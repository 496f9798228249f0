/**
 * Names from content that try to become code: a component, field, multilink `linktype`, plugin,
 * rich-text node or mark, option value, datasource (slug, entry, dimension), tag and relation
 * target named to close a comment, a string or an object literal. The space is served by the real
 * local service, synced and compiled; every generated module is imported (nothing may run), the
 * values come back as they were, and the generated types typecheck with tsc.
 */
import { readFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../../src/compile/index.js';
import ts from 'typescript';
import { backlinksChunk } from '../../../src/compile/emit.js';
import { jsonExpression, stringLiteral, docText, typeKey, objectKey } from '../../../src/compile/escape.js';
import { pascalCase } from '../../../src/compile/types/index.js';
import type { SpaceData } from '../../../src/snapshot/index.js';
import { sync } from '../../../src/sync/index.js';
import { fixtureSpace, uuidOf } from '../../helpers/fixture-space.js';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../../sync/support.js';
import { importFresh, walk } from '../support.js';
import { checkMain } from './helpers.js';

/** Each sets a different value on globalThis if it ever runs. */
const HOSTILE = [
  '*/ export const PWNED = (globalThis.PWNED = 1); /*',
  '"; globalThis.PWNED = 2; "',
  "'); globalThis.PWNED = 3; //",
  '\u2028globalThis.PWNED = 4; //\u2029',
  '${globalThis.PWNED = 5}`',
  '\\',
  '</script><script>globalThis.PWNED = 6</script>',
  '__proto__',
  '*/ } declare global { var PWNED: 7 } /*',
  'a\nb */ x',
];
const [close, quote] = HOSTILE as [string, string];

declare global {
  // eslint-disable-next-line no-var
  var PWNED: unknown;
}

function hostileSpace(): SpaceData {
  const space = fixtureSpace();
  const base = space.stories.find((r) => r.id === 19)!;
  let id = 900;
  for (const name of HOSTILE) {
    const record = structuredClone(base);
    record.id = ++id;
    record.uuid = uuidOf(id);
    const story = record.published!.story;
    Object.assign(story, {
      id,
      uuid: uuidOf(id),
      name: `Hostile ${id}`,
      slug: `hostile-${id}`,
      full_slug: `hostile/${id}`,
      tag_list: [name],
      group_id: `g-${id}`,
    });
    story.content = {
      _uid: `u-${id}`,
      component: name,
      [name]: name,
      option: close,
      target: name === '__proto__' ? name : uuidOf(12),
      nested: [{ _uid: `n-${id}`, component: name, [name]: [name] }],
      link: { fieldtype: 'multilink', linktype: name, id: '', url: name, cached_url: name },
      plugin: { _uid: `p-${id}`, plugin: name, [name]: name },
      body: {
        type: 'doc',
        content: [{ type: name, content: [{ type: 'text', text: name, marks: [{ type: name }] }] }],
      },
    } as typeof story.content;
    space.stories.push(record);
  }
  space.datasources.push({
    datasource: { id: 300, name: close, slug: quote, dimensions: [{ id: 3001, entry_value: quote, name: close }] },
    entries: HOSTILE.map((name, i) => ({ id: 3101 + i, name, value: name, dimension_values: { [quote]: `${name}!` } })),
  });
  space.datasources.push({
    datasource: { id: 400, name: '__proto__', slug: '__proto__', dimensions: [] },
    entries: [{ id: 4001, name: 'x', value: close }],
  });
  return space;
}

let server: TestServer;
let out: string;
let root: string;

beforeAll(async () => {
  delete globalThis.PWNED;
  server = await startTestServer({ space: hostileSpace() });
  root = await tempDir('hostile');
  const snapshot = path.join(root, 'snapshot');
  out = path.join(root, 'modules');
  await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
  await compile({ snapshot, out, resolveLinks: 'url' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('names from content in generated code', () => {
  it('import as data: no generated module runs any of it, and the values come back whole', async () => {
    const files = (await walk(out)).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) await importFresh(path.join(out, f));
    expect(globalThis.PWNED).toBeUndefined();

    const { datasources, label } = await importFresh<{
      datasources: Record<string, any>;
      label: (...args: unknown[]) => unknown;
    }>(path.join(out, 'datasources.js'));
    expect(Object.keys(datasources)).toEqual(expect.arrayContaining([quote, '__proto__']));
    // biome-ignore lint/suspicious/noProto: the datasource is named '__proto__'; it must be an own key.
    expect(datasources.__proto__.entries[0].value).toBe(close);
    expect(datasources[quote].entries.map((e: any) => e.name)).toEqual(HOSTILE);
    expect(label(quote, HOSTILE[0], quote)).toBe(`${HOSTILE[0]}!`);
    expect(label(quote, HOSTILE[0], 'toString')).toBe(HOSTILE[0]);
    // A datasource the snapshot lacks, named like what every object inherits: none.
    for (const inherited of ['valueOf', 'constructor', 'toString', 'hasOwnProperty'])
      expect(label(inherited, 'x'), inherited).toBeUndefined();

    const { tags } = await importFresh<{ tags: Array<{ name: string }> }>(path.join(out, 'tags.js'));
    expect(tags.map((t) => t.name)).toEqual(expect.arrayContaining(HOSTILE));

    // Backlinks are keyed by story uuids; a chunk keyed `__proto__` still holds it as a key.
    const chunk = path.join(root, 'backlinks-chunk.js');
    await fs.writeFile(
      chunk,
      backlinksChunk(
        new Map([
          ['__proto__', [close]],
          ['a', ['b']],
        ]),
      ),
    );
    const lists = (await importFresh<{ default: Record<string, string[]> }>(chunk)).default;
    // biome-ignore lint/suspicious/noProto: the language is named '__proto__'; it must be an own key.
    expect(Object.hasOwn(lists, '__proto__') && lists.__proto__).toEqual([close]);

    const story = await importFresh<{ default: any }>(path.join(out, 'stories', '901.js'));
    expect(story.default.content.component).toBe(close);
    expect(story.default.content[close]).toBe(close);
    expect(story.default.content.link.linktype).toBe(close);
    const proto = await importFresh<{ default: any }>(path.join(out, 'stories', '908.js'));
    expect(proto.default.content.link.linktype).toBe('__proto__');
    expect(Object.getPrototypeOf(proto.default.content)).toBe(Object.prototype);
    expect(globalThis.PWNED).toBeUndefined();
  });

  it('typecheck: types.d.ts and every declaration file compile under tsc --strict, and name the hostile components', async () => {
    // A module of types holds no statement: compiled to JavaScript, nothing is left of it.
    const types = readFileSync(path.join(out, 'types.d.ts'), 'utf8');
    expect(ts.transpileModule(types, { compilerOptions: { module: ts.ModuleKind.ESNext } }).outputText.trim()).toBe(
      'export {};',
    );
    const dts = (await walk(out)).filter((f) => f.endsWith('.d.ts'));
    const main = [
      `/// <reference path="./modules/stories.d.ts" />`,
      `import type { ContentTypes } from './modules/types.js';`,
      `import { datasources } from './modules/datasources.js';`,
      `import { tags } from './modules/tags.js';`,
      `import { byComponent } from './modules/index.js';`,
      `type Hostile = ContentTypes[${stringLiteral(close)}];`,
      `export const field = (c: Hostile): string | string[] => c[${stringLiteral(close)}];`,
      `export const entries = byComponent(${stringLiteral(quote)}).length + tags.length + datasources[${stringLiteral(quote)}].entries.length;`,
    ].join('\n');
    const output = await checkMain(root, main, ['modules/types.d.ts', ...dts.map((f) => `modules/${f}`)]);
    expect(output).toBe('');
    expect(globalThis.PWNED).toBeUndefined();
  }, 120_000);
});

describe('the escaping functions', () => {
  it('keep every hostile string inside its context', async () => {
    for (const s of HOSTILE) {
      const literal = stringLiteral(s);
      expect(literal).not.toMatch(/[\u2028\u2029\n]/);
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: evaluating it gives the string back
      expect(new Function(`return ${literal};`)()).toBe(s);
      expect(docText(s)).not.toContain('*/');
      expect(docText(s)).not.toMatch(/[\n\r\u2028\u2029]/);
      expect(new Function(`return {${objectKey(s)}: 1};`)()).toEqual(
        Object.defineProperty({}, s, { value: 1, enumerable: true, writable: true, configurable: true }),
      );
      expect(typeKey(s) === s || typeKey(s) === literal).toBe(true);
      expect(pascalCase(s)).toMatch(/^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u);
      const value = { [s]: [s, { [s]: s }] };
      expect(new Function(`return ${jsonExpression(value)};`)()).toEqual(value);
    }
    expect(pascalCase('a½b')).toBe('AB');
    expect(globalThis.PWNED).toBeUndefined();
  });
});
