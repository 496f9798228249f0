/**
 * The dev server's forms of the generated modules (compile's dev-forms.ts), in
 * each supported Vite major: what a page imports in dev equals what Node
 * imports from the files the compile wrote (every entry, every story body
 * through `load`, the backlinks); the data chunks reach Vite's SSR transform as
 * `JSON.parse` of their text without a source map, and the stories index
 * reaches the SSR transform without its story import expanded; in the
 * browser it loads a story through its entries chunk's loaders, which name the
 * story modules (for HMR) and learn of a story added; a view's chunk
 * (`content:index/<lang>/<component>`) does the same on the server and in the
 * browser. With localized assets, a chunk holding an asset URL is served as
 * written, so the URL still becomes the local file. A story renamed, then
 * unpublished, reaches a view's entries on the server through ssrLoadModule
 * (SvelteKit's) and through the environment's module runner (Astro's).
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as vite8 from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORY_LOADERS } from '../../src/compile/dev-forms.js';
import { CHUNKS, chunkCount, chunkOfId } from '../../src/compile/emit.js';
import { viewFile } from '../../src/compile/views.js';
import { contentSync, type ContentSyncOptions } from '../../src/index.js';
import { devResolve } from '../../src/vite/dev-modules.js';
import {
  admin,
  capturingLogger,
  clearContentEnv,
  embeddedService,
  project,
  publishNewPage,
  removeDir,
  waitFor,
  type CapturingLogger,
} from './support.js';
import { VITE_MAJORS } from './vite-majors.js';

interface Entry {
  id: number;
  name?: string;
  lang: string;
  component: string;
  fields?: { images?: Array<{ filename: string }> | '' };
}
interface IndexModule {
  entries: Entry[];
  load(entry: Entry): Promise<unknown>;
}

/** A dev server of `vite` with the plugin over a demo space (and `after` behind it), in `root`; closed by the caller. */
const devServer = (vite: typeof vite8, root: string, options: ContentSyncOptions, after: vite8.Plugin[] = []) =>
  vite.createServer({
    root,
    configFile: false,
    customLogger: capturingLogger() as never,
    server: { port: 0, host: '127.0.0.1', ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
    plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 40 } }, ...options }), ...after],
  });

/** How many entries chunks the browser's index loads stories through (one loaders module each). */
const loaderChunks = (browserIndex: string) => browserIndex.split(`?${STORY_LOADERS}`).length - 1;

/** The URL of the loaders of entries chunk `b`. */
const loadersUrl = (b: number) => `/.content/modules/${CHUNKS.entries(b)}?${STORY_LOADERS}`;

/** The browser's loaders of the story `id`, given the browser's index. */
const loadersOf = (browserIndex: string, id: number) => loadersUrl(chunkOfId(id, loaderChunks(browserIndex)));

/** The URL of the default language's view of pages (`content:index/default/page`). */
const PAGES_VIEW = `/.content/modules/${viewFile('default', 'page')}`;

/** The view chunks a view module imports (as the dev server serves it), by URL. */
const viewChunks = (view: string) => [...new Set(view.match(/\/\.content\/modules\/chunks\/view-[\w-]+\.js/g))];

/** What Node imports from the compile's output (the files as written). */
const fromFiles = async (root: string, file: string) =>
  (await import(`${pathToFileURL(path.join(root, '.content', 'modules', file)).href}?t=${Date.now()}`)) as unknown;

describe.each(VITE_MAJORS)('Vite %s dev server', (_major, vite) => {
  const roots: string[] = [];
  /** A project of its own for each server (each syncs its own demo space). */
  const newRoot = async () => {
    roots.push(await project("import 'content:index';\n"));
    return roots.at(-1)!;
  };
  beforeAll(() => clearContentEnv());
  afterAll(() => Promise.all(roots.map(removeDir)));

  it('serves the content Node imports from the files, data chunks as JSON without a source map', async () => {
    const root = await newRoot();
    const server = await devServer(vite, root, { resolveRelations: ['article.author'] });
    try {
      const served = (await server.ssrLoadModule('content:index')) as IndexModule;
      const written = (await fromFiles(root, 'index.js')) as IndexModule;
      expect(served.entries.length).toBeGreaterThan(40);
      expect(served.entries).toEqual(written.entries);
      for (const [k, entry] of served.entries.entries()) {
        expect(await served.load(entry)).toEqual(await written.load(written.entries[k]!));
      }
      const backlinks = (await server.ssrLoadModule('content:backlinks')) as { backlinks: object };
      expect(Object.keys(backlinks.backlinks).length).toBeGreaterThan(0);
      expect(backlinks.backlinks).toEqual(((await fromFiles(root, 'backlinks.js')) as typeof backlinks).backlinks);

      const { ssr, client } = server.environments;
      for (const env of [ssr, client]) {
        const chunk = await env.transformRequest('/.content/modules/chunks/entries-0.js');
        expect(chunk?.code, env.name).toContain('JSON.parse(');
        expect(chunk?.map?.mappings ?? '', env.name).toBe('');
      }
      // Expanded, the index's import would name each story module: on the server it is left alone...
      const { id } = served.entries[0]!;
      const story = `/stories/${id}.js`;
      const serverIndex = await ssr.transformRequest('/.content/modules/index.js');
      expect(serverIndex?.code).toContain('./stories/${entry.id}.js');
      expect(serverIndex?.code).not.toContain(story);
      // ...in the browser a story loads through its chunk's loaders, which name its module, so that
      // its change reaches the modules importing the index (HMR).
      const clientIndex = await client.transformRequest('/.content/modules/index.js');
      expect(clientIndex?.code).not.toContain(story);
      const loaders = await client.transformRequest(loadersOf(clientIndex!.code, id));
      expect(loaders?.code).toContain(`/.content/modules${story}`);
      expect(loaders?.map?.mappings ?? '').toBe('');
      // A view's chunk names no story module; its loaders name each of its stories (server and browser).
      const pages = served.entries.filter((e) => e.component === 'page' && e.lang === 'default').map((e) => e.id);
      for (const env of [ssr, client]) {
        const chunks = viewChunks((await env.transformRequest(PAGES_VIEW))!.code);
        expect(chunks.length, env.name).toBeGreaterThan(0);
        const named: number[] = [];
        for (const chunk of chunks) {
          expect((await env.transformRequest(chunk))!.code, chunk).not.toContain('/.content/modules/stories/');
          const chunkLoaders = (await env.transformRequest(`${chunk}?${STORY_LOADERS}`))!.code;
          for (const m of chunkLoaders.matchAll(/\/\.content\/modules\/stories\/(\d+)\.js/g)) named.push(Number(m[1]));
        }
        expect(
          named.sort((a, b) => a - b),
          env.name,
        ).toEqual(pages.sort((a, b) => a - b));
      }
      // What the server's view loads is what Node imports from the files.
      const view = (await server.ssrLoadModule('content:index/default/page')) as IndexModule;
      const viewFromFiles = (await fromFiles(root, viewFile('default', 'page'))) as IndexModule;
      expect(view.entries).toEqual(viewFromFiles.entries);
      for (const [k, entry] of view.entries.entries())
        expect(await view.load(entry)).toEqual(await viewFromFiles.load(viewFromFiles.entries[k]!));
    } finally {
      await server.close();
    }
  }, 120_000);

  it("transforms a view's chunks on the server once the view is, before the module runner asks for them", async () => {
    const root = await newRoot();
    const server = await devServer(vite, root, {});
    try {
      // The content compiled (the index imports no view).
      await server.ssrLoadModule('content:index');
      const { ssr } = server.environments;
      const view = await ssr.transformRequest(`/.content/modules/${viewFile('default')}`);
      const chunks = viewChunks(view!.code);
      expect(chunks.length).toBeGreaterThan(1);
      // Nothing imported them yet (a server environment does not transform imports ahead by itself).
      const files = chunks.map((url) => path.join(root, url));
      await waitFor('the chunks transformed', () =>
        files.every((file) => ssr.moduleGraph.getModuleById(file)?.transformResult),
      );
      const served = (await server.ssrLoadModule('content:index/default')) as IndexModule;
      const fromFile = (await fromFiles(root, viewFile('default'))) as IndexModule;
      expect(served.entries).toEqual(fromFile.entries);
    } finally {
      await server.close();
    }
  }, 120_000);

  // SvelteKit loads server modules through ssrLoadModule, whose runner re-evaluates a module only when
  // its own request finds it untransformed: a view's chunk transformed ahead after a change stayed old.
  it.each([
    ['ssrLoadModule (SvelteKit)', (server: vite8.ViteDevServer, id: string) => server.ssrLoadModule(id)],
    [
      "the server environment's module runner (Astro)",
      (server: vite8.ViteDevServer, id: string) =>
        (server.environments.ssr as vite8.RunnableDevEnvironment).runner.import(id),
    ],
  ])(
    "has a story renamed, then unpublished, reach a view's entries through %s",
    async (_how, importModule) => {
      const root = await newRoot();
      const server = await devServer(vite, root, { embedded: { data: 'space', demo: { stories: 40 }, admin: true } });
      try {
        // Listening: the embedded service posts its changes to the dev server's webhook.
        await server.listen();
        const logger = server.config.logger as CapturingLogger;
        // A page module importing the view, as a route module does.
        await fs.writeFile(path.join(root, 'page.js'), "export { entries } from 'content:index/default';\n");
        const entries = async () => ((await importModule(server, '/page.js')) as IndexModule).entries;
        /** Makes a change through the control plane and waits until the dev server reloaded it. */
        const change = async (method: string, route: string, body?: unknown) => {
          const reloads = logger.text('info').split(' reloaded in ').length;
          await admin(embeddedService(server), method, route, body);
          if (method === 'PUT') await admin(embeddedService(server), 'POST', `${route}/publish`);
          await waitFor('the change reloaded', () => logger.text('info').split(' reloaded in ').length > reloads);
        };
        const { id } = (await entries()).at(-1)!;
        await change('PUT', `stories/${id}`, { name: 'Renamed in dev' });
        expect((await entries()).find((e) => e.id === id)).toMatchObject({ name: 'Renamed in dev' });
        await change('POST', `stories/${id}/unpublish`);
        expect((await entries()).map((e) => e.id)).not.toContain(id);
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it("resolves the generated modules' imports of one another itself, to the files", async () => {
    const root = await newRoot();
    const modules = path.join(root, '.content', 'modules');
    // Behind the plugin (both `pre`, before Vite's resolver): a relative import that reaches it reaches Vite's resolver too.
    const asked: string[] = [];
    const behind: vite8.Plugin = {
      name: 'behind',
      enforce: 'pre',
      resolveId(id, importer) {
        if (importer?.startsWith(modules) && id.startsWith('.')) asked.push(id);
        return null;
      },
    };
    const server = await devServer(vite, root, { resolveRelations: ['article.author'] }, [behind]);
    try {
      const { client, ssr } = server.environments;
      const browserIndex = await client.transformRequest('/.content/modules/index.js');
      const served = (await server.ssrLoadModule('content:index')) as IndexModule;
      for (const entry of served.entries) await served.load(entry);
      const story = served.entries.find((e) => e.component === 'article')!.id;
      const storyModule = await client.transformRequest(`/.content/modules/stories/${story}.js`);
      await ssr.transformRequest(`/.content/modules/stories/${story}.js`);
      // The browser's loaders name each story module (the chunks and stories are files of the output).
      const loaders = await client.transformRequest(loadersOf(browserIndex!.code, story));
      expect(loaders?.code).toContain(`/.content/modules/stories/${story}.js`);
      expect(browserIndex?.code).toContain('/.content/modules/chunks/entries-0.js');
      expect(storyModule?.code).toContain(`/.content/modules/raw/${story}.js`);
      expect(asked).toEqual([]);
      // What is not one generated module importing another is resolved as usual.
      const index = path.join(modules, 'index.js');
      expect(devResolve(modules, './stories/1.js', index)).toBe(path.join(modules, 'stories', '1.js'));
      const chunkLoaders = `${path.join(modules, 'chunks', 'entries-0.js')}?story-loaders`;
      expect(devResolve(modules, '../stories/1.js', chunkLoaders)).toBe(path.join(modules, 'stories', '1.js'));
      expect(devResolve(modules, './chunks/entries-0.js?story-loaders', index)).toBe(chunkLoaders);
      expect(devResolve(modules, './stories/1.js', path.join(root, 'main.js'))).toBeUndefined();
      expect(devResolve(modules, '../main.js', index)).toBeUndefined();
      expect(devResolve(modules, './a.jpg', index)).toBeUndefined();
      expect(devResolve(modules, './stories/1.js?url', index)).toBeUndefined();
      expect(devResolve(modules, 'vite/client', index)).toBeUndefined();
    } finally {
      await server.close();
    }
  }, 120_000);

  it("has a story added reach the browser's loaders, so that it loads the new story", async () => {
    const root = await newRoot();
    const server = await devServer(vite, root, {
      embedded: { data: 'space', demo: { stories: 40 }, admin: true },
      webhook: { secret: 'a secret' },
    });
    try {
      // Listening: the embedded service posts its changes to the dev server's webhook.
      await server.listen();
      const { client } = server.environments;
      const index = (await client.transformRequest('/.content/modules/index.js'))!.code;
      // Every chunk's loaders transformed (and kept by Vite) before the story exists, the view's too.
      for (let b = 0; b < loaderChunks(index); b++) await client.transformRequest(loadersUrl(b));
      const viewBefore = viewChunks((await client.transformRequest(PAGES_VIEW))!.code);
      for (const chunk of viewBefore) await client.transformRequest(`${chunk}?${STORY_LOADERS}`);
      const id = await publishNewPage(server, 'Added in dev');
      const loaders = loadersOf(index, id);
      const added = `/.content/modules/stories/${id}.js`;
      // The compile writes the story module and its entries chunk; the dev server is told after.
      const file = path.join(root, '.content', 'modules', 'stories', `${id}.js`);
      await waitFor('the new story module', () => existsSync(file));
      const code = await waitFor('the loaders to name it', async () => {
        const text = (await client.transformRequest(loaders))?.code;
        return text?.includes(added) && text;
      });
      expect(code.split(added).length).toBe(2);
      // A view chunk the browser had loaded learns of it too (40 stories: the view has one chunk).
      expect(viewBefore.length).toBe(1);
      const viewLoaders = await waitFor('the view chunk’s loaders to name it', async () => {
        const text = (await client.transformRequest(`${viewBefore[0]}?${STORY_LOADERS}`))?.code;
        return text?.includes(added) && text;
      });
      expect(viewLoaders.split(added).length).toBe(2);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('serves a chunk holding asset URLs as written where assets are localized', async () => {
    const server = await devServer(vite, await newRoot(), {
      assets: 'download',
      entryFields: ['images'],
    });
    try {
      const served = (await server.ssrLoadModule('content:index')) as IndexModule;
      const filenames = served.entries.flatMap((e) =>
        Array.isArray(e.fields?.images) ? e.fields.images.map((i) => i.filename) : [],
      );
      expect(filenames.length).toBeGreaterThan(0);
      // Each is the local file Vite serves, not the CDN's URL.
      for (const f of filenames) expect(f).not.toMatch(/^https?:/);
      const withAssets = served.entries.find((e) => Array.isArray(e.fields?.images))!;
      const chunks = chunkCount(new Set(served.entries.map((e) => e.id)).size);
      const chunk = await server.environments.ssr.transformRequest(
        `/.content/modules/${CHUNKS.entries(chunkOfId(withAssets.id, chunks))}`,
      );
      expect(chunk?.code).not.toContain('JSON.parse(');
      // A view's chunks too: their entries' asset URLs are the local files.
      const view = (await server.ssrLoadModule(`content:index/default/${withAssets.component}`)) as IndexModule;
      const inView = view.entries.flatMap((e) => (Array.isArray(e.fields?.images) ? e.fields.images : []));
      expect(inView.length).toBeGreaterThan(0);
      for (const image of inView) expect(image.filename).not.toMatch(/^https?:/);
    } finally {
      await server.close();
    }
  }, 120_000);
});
