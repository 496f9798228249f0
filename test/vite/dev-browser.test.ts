/**
 * A browser app on the dev server (a page that imports `content:index`, as a
 * create-vite app does), in Chromium: every story the page loads through the
 * index's `load` is what Node imports from the files the compile wrote (the
 * browser's index loads stories through its entries chunks' loaders, see
 * dev-modules.ts), and a story published after the page opened reaches it and
 * loads too.
 */
import type { Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { launchBrowser } from '../e2e/support.js';
import { capturingLogger, clearContentEnv, project, publishNewPage, removeDir, waitFor } from './support.js';

// The index's exports on `window`, for the test to call in the page.
const MAIN = "import * as content from 'content:index';\nObject.assign(window, { content });\n";

interface PageContent {
  entries: Array<{ id: number; lang: string }>;
  load(entry: unknown): Promise<{ name: string }>;
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

  it('loads every story as the files have it, and one published after the page opened', async () => {
    const page = await browser.newPage();
    await page.goto(server.resolvedUrls!.local[0]!);
    // Undefined while the page reloads.
    const count = () =>
      page
        .evaluate(() => (window as unknown as { content?: PageContent }).content?.entries.length)
        .catch(() => undefined);
    const before = await waitFor('the index in the page', count);
    const inPage = await page.evaluate(() => {
      const { content } = window as unknown as { content: PageContent };
      return Promise.all(content.entries.map((e) => content.load(e)));
    });
    const written = (await import(
      pathToFileURL(path.join(root, '.content', 'modules', 'index.js')).href
    )) as PageContent;
    expect(written.entries.length).toBe(before);
    // As the page receives them: JSON.
    const fromFiles = JSON.parse(JSON.stringify(await Promise.all(written.entries.map((e) => written.load(e)))));
    expect(inPage).toEqual(fromFiles);

    const id = await publishNewPage(server, 'Published in dev');

    // The page imports the index again (Vite reloads it: nothing in it accepts the change).
    await waitFor('the new story among the page’s entries', async () => ((await count()) ?? 0) > before);
    const loaded = await page.evaluate(async (storyId) => {
      const { content } = window as unknown as { content: PageContent };
      const entry = content.entries.find((e) => e.id === storyId && e.lang === 'default');
      return content.load(entry).then(
        (s) => s.name,
        (err: Error) => `failed: ${err.message}`,
      );
    }, id);
    expect(loaded).toBe('Published in dev');
    await page.close();
  }, 120_000);
});
