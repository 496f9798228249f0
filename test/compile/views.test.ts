/**
 * The lean index modules: `content:index/<lang>` and `content:index/<lang>/<component>` hold the
 * entries of one language (of one content type) and nothing else, load those stories' bodies, and
 * stay equal to a full compile's after incremental compiles.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { servedFile, servedModules, viewModuleName } from '../../src/compile/modules.js';
import { chunksOfView, isViewModule } from '../../src/compile/views.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { bytesDiff, importFresh, readOutput } from './support.js';

interface Entry {
  id: number;
  lang: string;
  component: string;
  full_slug: string;
}
interface View {
  language: string;
  entries: Entry[];
  load(e: Entry): Promise<{ id: number; content: Record<string, unknown> }>;
  bySlug(slug: string): Entry | undefined;
}

let server: TestServer;
let root: string;
let snapshot: string;
let out: string;
const doSync = () => sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
const view = (name: string) => importFresh<View>(path.join(out, servedFile(name)!));

beforeAll(async () => {
  server = await startTestServer({ space: fixtureSpace(), admin: true });
  root = await tempDir('views');
  snapshot = path.join(root, 'snapshot');
  out = path.join(root, 'modules');
  await doSync();
  await compile({ snapshot, out, resolveLinks: 'url', chunkSize: 4 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('lean index modules', () => {
  it('hold the entries of their language and content type only, by id, and load their bodies', async () => {
    const index = await importFresh<{ entries: Entry[]; languages: string[]; load: View['load'] }>(
      path.join(out, 'index.js'),
    );
    const components = [...new Set(index.entries.map((e) => e.component))].sort();
    expect(index.languages).toEqual(['default', 'de']);
    expect(components.length).toBeGreaterThan(1);
    for (const lang of index.languages) {
      const all = await view(viewModuleName(lang));
      expect(all.language).toBe(lang);
      expect(all.entries).toEqual(index.entries.filter((e) => e.lang === lang).sort((a, b) => a.id - b.id));
      for (const component of components) {
        const one = await view(viewModuleName(lang, component));
        const expected = index.entries
          .filter((e) => e.lang === lang && e.component === component)
          .sort((a, b) => a.id - b.id);
        expect(one.entries, `${lang} ${component}`).toEqual(expected);
        const first = expected[0]!;
        expect(one.bySlug(first.full_slug)).toEqual(first);
        expect(await one.load(first)).toEqual(await index.load(first));
      }
      // Nothing else: the module text names no story of another language or content type.
      const text = readFileSync(path.join(out, servedFile(viewModuleName(lang, 'article'))!), 'utf8');
      expect(text).not.toContain('stories/');
    }
    const de = await view(viewModuleName('de', 'page'));
    await expect(de.load({ ...index.entries.find((e) => e.component === 'article')!, lang: 'de' })).rejects.toThrow(
      /not in this index/,
    );
  });

  it('are the modules served, by name; other names are none', async () => {
    const modules = servedModules(['default', 'de'], ['article', 'page']);
    expect(modules.map((m) => m.name)).toEqual(
      expect.arrayContaining(['index', 'types', 'index/default', 'index/de', 'index/de/article', 'index/default/page']),
    );
    for (const m of modules) expect(existsSync(path.join(out, m.file)), m.name).toBe(true);
    expect(servedFile('stories/12')).toBe('stories/12.js');
    for (const name of ['constructor', '__proto__', 'index/a/b/c', 'stories/x', 'index/%E0%A4%A', '../index'])
      expect(servedFile(name), name).toBeUndefined();
    // A name with a slash is written encoded, and is then a module like any other.
    expect(servedFile(viewModuleName('a/b', 'c%d'))).toMatch(/^views\/[0-9a-f]{16}-[0-9a-f]{16}\.js$/);
  });

  it('name their chunks for a dev server to transform ahead: every chunk a view imports, and only views', async () => {
    const views = servedModules(['default', 'de'], ['article', 'page']).filter((m) => m.name.startsWith('index/'));
    for (const { file } of views) {
      expect(isViewModule(file), file).toBe(true);
      const text = readFileSync(path.join(out, file), 'utf8');
      const imported = [...text.matchAll(/from '\.\.\/([^']+)'/g)].map((m) => m[1]);
      expect(imported.length, file).toBeGreaterThan(0);
      expect(chunksOfView(text), file).toEqual(imported);
      for (const chunk of imported) expect(existsSync(path.join(out, chunk!)), chunk).toBe(true);
    }
    for (const other of ['index.js', 'views/x.js', 'chunks/entries-0.js', `${views[0]!.file.replace('.js', '.d.ts')}`])
      expect(isViewModule(other), other).toBe(false);
  });

  it('of each language are there before anything is published, empty, as content:index lists none', async () => {
    const unpublished = await startTestServer({ space: { ...fixtureSpace(), stories: [] } });
    try {
      const dir = await tempDir('views-empty');
      const emptyOut = path.join(dir, 'modules');
      await sync({ baseUrl: unpublished.url, token: PUBLIC, out: path.join(dir, 'snapshot'), ...unpaced() });
      await compile({ snapshot: path.join(dir, 'snapshot'), out: emptyOut });
      const declarations = readFileSync(path.join(dir, 'content.d.ts'), 'utf8');
      for (const lang of ['default', 'de']) {
        const empty = await importFresh<View>(path.join(emptyOut, servedFile(viewModuleName(lang))!));
        expect(empty.language).toBe(lang);
        expect(empty.entries).toEqual([]);
        expect(empty.bySlug('home')).toBeUndefined();
        expect(declarations).toContain(`declare module "content:${viewModuleName(lang)}"`);
      }
    } finally {
      await unpublished.close();
    }
  });

  it('follow incremental compiles: a story changing content type moves between them, as a full compile has it', async () => {
    const articles = (await view(viewModuleName('default', 'article'))).entries;
    const moved = articles[0]!;
    await admin(server.url, 'PUT', `/stories/${moved.id}`, { content: { component: 'page', title: 'Now a page' } });
    await admin(server.url, 'POST', `/stories/${moved.id}/publish`);
    await doSync();
    const result = await compile({ snapshot, out, resolveLinks: 'url', chunkSize: 4 });
    expect(result.mode).toBe('incremental');
    expect((await view(viewModuleName('default', 'article'))).entries.map((e) => e.id)).not.toContain(moved.id);
    expect((await view(viewModuleName('de', 'page'))).entries.map((e) => e.id)).toContain(moved.id);
    const fresh = path.join(root, 'fresh');
    await compile({ snapshot, out: fresh, resolveLinks: 'url', chunkSize: 4, full: true });
    expect(bytesDiff(await readOutput(out), await readOutput(fresh), ['.content-sync-compile.json'])).toEqual([]);
  });

  it('of a language hold a story whose translation there sets another content type, as content:index does', async () => {
    const index = await importFresh<{ entries: Entry[] }>(path.join(out, 'index.js'));
    const story = index.entries.find((e) => e.lang === 'de' && e.component === 'page')!;
    await admin(server.url, 'PUT', `/stories/${story.id}`, { lang: 'de', content: { component: 'landing' } });
    await admin(server.url, 'POST', `/stories/${story.id}/publish`);
    await doSync();
    // An output of its own: this process holds the chunks of `out` as it first imported them.
    const fresh = path.join(root, 'landing');
    await compile({ snapshot, out: fresh, resolveLinks: 'url', chunkSize: 4 });
    const de = await importFresh<View>(path.join(fresh, servedFile(viewModuleName('de'))!));
    const all = await importFresh<{ byLanguage(lang: string): Entry[] }>(path.join(fresh, 'index.js'));
    const entry = de.entries.find((e) => e.id === story.id);
    expect(entry?.component).toBe('landing');
    expect((await de.load(entry!)).content.component).toBe('landing');
    expect(de.entries).toEqual(all.byLanguage('de').sort((a, b) => a.id - b.id));
  });
});
