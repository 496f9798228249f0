/**
 * The example site on the dev server: content changed and published through
 * the control plane of the embedded service reaches a page open in Chromium
 * without the test reloading it; an unpublished story's page goes away and
 * so do the links to it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  filesContaining,
  launchBrowser,
  loadIndex,
  siteApi,
  waitFor,
  type GeneratedIndex,
  type SiteDevServer,
} from './support.js';

/** A content directory of its own: the edits below never touch the one `npm run example` uses. */
const CONTENT_DIR = '.content/e2e-dev';

describe('the example site in dev', () => {
  let dev: SiteDevServer;
  let browser: Browser;
  let page: Page;
  let index: GeneratedIndex;
  const site = (p: string) => new URL(p, dev.url).href;

  beforeAll(async () => {
    const [api, launched] = await Promise.all([siteApi(), launchBrowser()]);
    browser = launched;
    dev = await api.startDevServer({ port: 0, logLevel: 'silent', contentDir: CONTENT_DIR });
    index = await loadIndex(dev.modulesDir);
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
  });

  it('shows a title published through the control plane on the open page, without a reload by the test', async () => {
    const entry = index.byComponent('article')[0]!;
    const before = (await index.load(entry)).content.title as string;
    await page.goto(site(`${entry.path}/`));
    await expect(page.locator('main > h1').textContent()).resolves.toBe(before);
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'still the first load';
    });

    const title = `Edited in the e2e test ${Date.now()}`;
    await admin(dev.serviceUrl, 'PUT', `stories/${entry.id}`, { content: { title } });
    await admin(dev.serviceUrl, 'POST', `stories/${entry.id}/publish`);

    await waitFor(
      'the open page to show the new title',
      async () =>
        (await page
          .locator('main > h1')
          .textContent()
          .catch(() => null)) === title,
    );
    // Vite reloaded the page (the marker is gone); the test did not.
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBeUndefined();
    const html = await (await fetch(site(`${entry.path}/`))).text();
    expect(html).toContain(title);
    for (const token of dev.tokens) expect(html).not.toContain(token);
    expect(await filesContaining([dev.modulesDir], dev.tokens)).toEqual([]);
  });

  it('answers a path that starts with two slashes as a path of this site, not as another host (a 500, or its path here)', async () => {
    const entry = index.byComponent('article')[0]!;
    const origin = dev.url.replace(/\/$/, '');
    const home = await fetch(`${origin}//`);
    expect(home.status).toBe(200);
    await home.arrayBuffer();
    const elsewhere = await fetch(`${origin}//elsewhere.example/${entry.path}/`);
    expect(elsewhere.status).toBe(404);
    await elsewhere.arrayBuffer();
  });

  it('answers 404 for an unpublished story and drops the links to it from the page that linked to it', async () => {
    await page.goto(site('/'));
    const hrefs = await page
      .locator('main a[href^="/articles/"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')!));
    const href = hrefs.find(
      (h) =>
        !h.endsWith('/articles/') &&
        index.entries.some((e) => e.lang === 'default' && `${e.path}/` === h.split('#')[0] && !e.is_startpage),
    );
    expect(href, 'the home page links to an article').toBeDefined();
    const target = href!.split('#')[0]!;
    const entry = index.entries.find((e) => e.lang === 'default' && `${e.path}/` === target)!;
    expect((await fetch(site(target))).status).toBe(200);

    await admin(dev.serviceUrl, 'POST', `stories/${entry.id}/unpublish`);

    await waitFor('the page to answer 404', async () => (await fetch(site(target))).status === 404);
    await waitFor(
      'the open home page to lose its links to the story',
      async () =>
        (await page.locator(`a[href^="${target}"]`).count()) === 0 && (await page.locator('main > h1').count()) === 1,
    );
    const notFound = await page.goto(site(target));
    expect(notFound?.status()).toBe(404);
    await expect(page.locator('main > h1').textContent()).resolves.toBe('Page not found');
  });

  it("tells once of a story whose page would be the site's own, and keeps the site's page", async () => {
    const warned: string[] = [];
    const logger = dev.server.config.logger;
    const warn = logger.warn;
    logger.warn = (message, options) => {
      warned.push(message);
      warn.call(logger, message, options);
    };
    try {
      const title = `A story named tags ${Date.now()}`;
      const created = (await admin(dev.serviceUrl, 'POST', 'stories', {
        name: 'Tags',
        slug: 'tags',
        content: { component: 'page', title, body: [] },
      })) as { story: { id: number } };
      await admin(dev.serviceUrl, 'POST', `stories/${created.story.id}/publish`);
      const told = (m: string) => m.includes(`story ${created.story.id} at "/tags/": it clashes with the tags index`);
      await waitFor('the clash to be told', async () => {
        await (await fetch(site('/'))).text();
        return warned.some(told);
      });
      const tags = await (await fetch(site('/tags/'))).text();
      expect(tags).not.toContain(title);
      expect(tags).toContain('<h1>Tags</h1>');
      await (await fetch(site('/de/'))).text();
      expect(warned.filter(told)).toHaveLength(1);
    } finally {
      logger.warn = warn;
    }
  });
});
