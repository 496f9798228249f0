import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/index.js';
import { languageExports } from '../../src/compile/emit.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { importFresh, walk } from './support.js';
import { checkMain } from './types/helpers.js';

// `p`, `$0`, `$1` and `story` are names the story modules and their declarations hold themselves.
const CODES = [
  'de',
  'eval',
  'arguments',
  '',
  'default',
  'zh-CN',
  'zh_CN',
  'if',
  '1x',
  'zh_CN_2',
  'pt-br',
  'p',
  '$0',
  '$1',
  'story',
];

let server: TestServer;
let root: string;
let out: string;
let result: CompileResult;

beforeAll(async () => {
  const space = fixtureSpace();
  space.space.language_codes = CODES;
  server = await startTestServer({ space });
  root = await tempDir('languages');
  const snapshot = path.join(root, 'snapshot');
  out = path.join(root, 'modules');
  await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
  result = await compile({ snapshot, out, resolveLinks: 'url' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('language codes as exports', () => {
  it('are valid, distinct names, plain codes kept as they are', () => {
    const names = languageExports(['default', ...CODES]);
    expect(names.get('default')).toBe('default');
    expect(names.get('de')).toBe('de');
    expect(names.get('zh_CN')).toBe('zh_CN');
    expect(names.get('zh_CN_2')).toBe('zh_CN_2');
    expect(names.get('zh-CN')).toBe('zh_CN_3');
    expect(names.get('eval')).toBe('_eval');
    expect(names.get('')).toBe('_');
    expect(names.get('p')).toBe('_p');
    expect(names.get('$0')).toBe('_$0');
    expect(names.get('story')).toBe('_story');
    expect(new Set(names.values()).size).toBe(names.size);
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- each name as a declaration of a module (strict mode)
    for (const name of names.values())
      if (name !== 'default')
        expect(() => new Function(`'use strict'; const ${name} = 1; return ${name};`)()).not.toThrow();
  });

  it('every generated module imports, and every language of a story is its own export', async () => {
    const files = (await walk(out)).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) await importFresh(path.join(out, f));
    // `default` beside the default language: one language, said so.
    expect(result.warnings.join('\n')).toContain('twice');

    const index = await importFresh<{
      languages: string[];
      entries: Array<{ id: number; lang: string }>;
      load: (e: unknown) => Promise<{ id: number }>;
    }>(path.join(out, 'index.js'));
    expect(index.languages).toEqual(['default', ...CODES.filter((c) => c !== 'default')]);
    const story = await importFresh<Record<string, { id: number; lang?: string }>>(path.join(out, 'stories', '10.js'));
    const names = languageExports(index.languages);
    expect(Object.keys(story).sort()).toEqual([...names.values()].sort());
    for (const lang of index.languages) {
      const entry = index.entries.find((e) => e.id === 10 && e.lang === lang)!;
      expect(entry, lang).toBeDefined();
      expect((await index.load(entry)).id).toBe(10);
    }
    // The German story is the German one, not another language's.
    expect(JSON.stringify(story.de)).toContain('Willkommen');
    expect(JSON.stringify(story.zh_CN)).not.toContain('Willkommen');
  });

  it('the declarations declare each language once: an app importing every export checks under tsc', async () => {
    const names = [...languageExports(['default', ...CODES]).values()].filter((n) => n !== 'default');
    const main = `import story, { ${names.join(', ')} } from 'content:stories/10';
export const titles: string[] = [story, ${names.join(', ')}].map((s) => s.content.title);
`;
    expect(await checkMain(root, main, 'content.d.ts')).toBe('');
  }, 60_000);
});
