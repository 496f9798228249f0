/**
 * Pages open on the dev server whose imports a change makes appear or go, showing what a fresh
 * server shows without a reload by hand: one importing a module the snapshot does not have yet (a
 * content type's lean list before its first story) shows the list once a story of that type is
 * published; one importing a story's module directly says the import is unknown once the story is
 * deleted.
 *
 * Every page is written before the server starts, as Vite's watcher reloads a page whose html file
 * it sees created (whenever its event comes), and a page is changed only once its Vite client is
 * connected, as a reload sent before would not reach it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { contentSync } from '../../src/index.js';
import { writeSpaceDirectory } from '../../src/snapshot/index.js';
import { launchBrowser } from '../e2e/support.js';
import { admin, capturingLogger, clearContentEnv, embeddedService, project, removeDir, waitFor } from './support.js';

const MAIN = `import { entries } from 'content:index/default/event';
document.body.dataset.events = entries.map((e) => e.name).join(',');
`;

describe('pages importing modules that a later change creates or deletes', () => {
  let root: string;
  let server: ViteDevServer;
  let browser: Browser;
  /** A published article the story page imports directly. */
  let storyId: number;
  const logger = capturingLogger();

  beforeAll(async () => {
    clearContentEnv();
    root = await project(MAIN);
    const space = generateDemoSpace({ stories: 20 });
    await writeSpaceDirectory(path.join(root, 'space'), space);
    storyId = space.stories.find((s) => s.published && /^articles\/./.test(s.published.story.full_slug))!.id;
    await fs.writeFile(
      path.join(root, 'story.js'),
      `import story from 'content:stories/${storyId}';\ndocument.body.dataset.story = story.name;\n`,
    );
    await fs.writeFile(
      path.join(root, 'story.html'),
      '<!doctype html><html><body><script type="module" src="./story.js"></script></body></html>\n',
    );
    browser = await launchBrowser();
    server = await createServer({
      root,
      configFile: false,
      customLogger: logger as never,
      server: { port: 0, host: '127.0.0.1' },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync({ embedded: { data: 'space', admin: true } })],
    });
    await server.listen();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await removeDir(root);
  });

  /** `pathname` of the server in a new page, once the page's Vite client is connected. */
  async function open(pathname: string): Promise<Page> {
    const page = await browser.newPage();
    let connected = false;
    page.on('websocket', (ws) =>
      ws.on('framereceived', (f) => {
        if (JSON.parse(String(f.payload)).type === 'connected') connected = true;
      }),
    );
    await page.goto(new URL(pathname, server.resolvedUrls!.local[0]!).href);
    await waitFor("the page's Vite client to connect", () => connected);
    return page;
  }

  it("says a story's module is an unknown import once the story is deleted, as a fresh server does", async () => {
    const page = await open('/story.html');
    await waitFor('the story in the page', () =>
      page.evaluate(() => document.body.dataset.story).catch(() => undefined),
    );

    // How the server answers the page's module once the story is gone (the page reloads).
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/story.js') statuses.push(r.status());
    });
    await admin(embeddedService(server), 'DELETE', `stories/${storyId}`);
    // Not its old transform, importing the deleted file (a 404 that shows nothing): the import named unknown.
    const status = await waitFor('the page to ask for its module again', () => statuses[0]);
    expect(status).toBe(500);
    expect(logger.text()).toContain(`unknown import "content:stories/${storyId}"`);
    await page.close();
  }, 60_000);

  it('shows the new module once its first story is published', async () => {
    const page = await open('/');
    // The server said the import is unknown.
    await waitFor('the unknown import', () => logger.text().includes('unknown import "content:index/default/event"'));
    const service = embeddedService(server);
    const { story } = await admin<{ story: { id: number } }>(service, 'POST', 'stories', {
      name: 'Launch',
      slug: 'launch',
      content: { component: 'event', title: 'Launch' },
    });
    await admin(service, 'POST', `stories/${story.id}/publish`);
    const events = () => page.evaluate(() => document.body.dataset.events).catch(() => undefined);
    await waitFor('the page to list the new event', async () => (await events()) === 'Launch');
    expect(await page.locator('vite-error-overlay').count()).toBe(0);
  }, 60_000);
});
