/**
 * A page open on the dev server that imports a module the snapshot does not have yet (a content
 * type's lean list before its first story): Vite shows the unknown import; once a story of that
 * type is published, the page shows the list without a reload by hand, as a fresh server would.
 */
import type { Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { launchBrowser } from '../e2e/support.js';
import { admin, capturingLogger, clearContentEnv, embeddedService, project, removeDir, waitFor } from './support.js';

const MAIN = `import { entries } from 'content:index/default/event';
document.body.dataset.events = entries.map((e) => e.name).join(',');
`;

describe('a page importing a module that a later change creates', () => {
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
      plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 20 }, admin: true } })],
    });
    await server.listen();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await removeDir(root);
  });

  it('shows the new module once its first story is published', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => void errors.push(m.text()));
    await page.goto(server.resolvedUrls!.local[0]!);
    // Vite's overlay says the import is unknown.
    await waitFor('the error overlay', () => page.locator('vite-error-overlay').count());
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
