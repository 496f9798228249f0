/**
 * A browser app on the dev server (a page that imports `content:index` and a
 * view of it, `content:index/default/page`, as a create-vite app does), in
 * Chromium: every story the page loads through their `load` is what Node
 * imports from the files the compile wrote (in the browser both load stories
 * through per-chunk story loaders, see dev-modules.ts), a story published
 * after the page opened reaches both and loads too, and a story edited loads
 * in its new version.
 */
import type { Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewFile } from '../../src/compile/views.js';
import { contentSync } from '../../src/index.js';
import { launchBrowser } from '../e2e/support.js';
import {
  capturingLogger,
  clearContentEnv,
  embeddedService,
  project,
  publishNewPage,
  publishTitle,
  removeDir,
  waitFor,
} from './support.js';

// The index's and the view's exports on `window`, for the test to call in the page.
const MAIN = `import * as content from 'content:index';
import * as pages from 'content:index/default/page';
Object.assign(window, { content, pages });
`;

type Module = 'content' | 'pages';

interface PageContent {
  entries: Array<{ id: number; lang: string }>;
  load(entry: unknown): Promise<{ name: string; content: { title?: string } }>;
}

describe('a browser app on the dev server', () => {
  let root: string;
  let server: ViteDevServer;
  let browser: Browser;

  beforeAll(async () => {
    clearContentEnv();
    root = await project(MAIN);
    browser = await launchBrowser();
    server = await createServer({
      root,
      configFile: false,
      customLogger: capturingLogger() as never,
      server: { port: 0, host: '127.0.0.1' },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [
        contentSync({
          // More than one entries chunk (256 stories a chunk): stories load through the loaders of each.
          embedded: { data: 'space', demo: { stories: 300 }, admin: true },
          webhook: { secret: 'a secret' },
        }),
      ],
    });
    // Listening: the embedded service posts its changes to the dev server's webhook.
    await server.listen();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await removeDir(root);
  });

  it('loads every story as the files have it, one published after the page opened and one edited', async () => {
    const page = await browser.newPage();
    await page.goto(server.resolvedUrls!.local[0]!);
    // Undefined while the page reloads.
    const count = (module: Module) =>
      page
        .evaluate((m) => (window as unknown as Record<Module, PageContent | undefined>)[m]?.entries.length, module)
        .catch(() => undefined);
    const files: Record<Module, string> = { content: 'index.js', pages: viewFile('default', 'page') };
    const before = {} as Record<Module, number>;
    for (const module of ['content', 'pages'] as const) {
      before[module] = await waitFor(`${module} in the page`, () => count(module));
      const inPage = await page.evaluate((m) => {
        const content = (window as unknown as Record<Module, PageContent>)[m];
        return Promise.all(content.entries.map((e) => content.load(e)));
      }, module);
      const written = (await import(
        pathToFileURL(path.join(root, '.content', 'modules', files[module])).href
      )) as PageContent;
      expect(written.entries.length, module).toBe(before[module]);
      // As the page receives them: JSON.
      const fromFiles = JSON.parse(JSON.stringify(await Promise.all(written.entries.map((e) => written.load(e)))));
      expect(inPage, module).toEqual(fromFiles);
    }
    expect(before.pages).toBeGreaterThan(0);
    expect(before.pages).toBeLessThan(before.content);

    const id = await publishNewPage(server, 'Published in dev');

    // The page imports the index and the view again (Vite reloads them: nothing in them accepts the change).
    for (const module of ['content', 'pages'] as const) {
      await waitFor(
        `the new story among ${module}' entries`,
        async () => ((await count(module)) ?? 0) > before[module],
      );
      const loaded = await page.evaluate(
        async ([m, storyId]) => {
          const content = (window as unknown as Record<Module, PageContent>)[m];
          const entry = content.entries.find((e) => e.id === storyId && e.lang === 'default');
          return content.load(entry).then(
            (s) => s.name,
            (err: Error) => `failed: ${err.message}`,
          );
        },
        [module, id] as const,
      );
      expect(loaded, module).toBe('Published in dev');
    }

    // A story the page loaded changes: the page loads its new version through either.
    const [edited] = await page.evaluate(() =>
      (window as unknown as Record<Module, PageContent>).pages.entries.filter((e) => e.lang === 'default'),
    );
    await publishTitle(embeddedService(server), edited!.id, 'Edited in dev');
    for (const module of ['content', 'pages'] as const) {
      const title = () =>
        page
          .evaluate(
            async ([m, storyId]) => {
              const content = (window as unknown as Record<Module, PageContent | undefined>)[m];
              const entry = content?.entries.find((e) => e.id === storyId && e.lang === 'default');
              return entry && (await content!.load(entry)).content.title;
            },
            [module, edited!.id] as const,
          )
          .catch(() => undefined);
      await waitFor(`the edited story through ${module}`, async () => (await title()) === 'Edited in dev');
    }
    await page.close();
  }, 120_000);
});
