/**
 * The example site at a size of its own, checked in Chromium on a fixed sample of pages: each story
 * page shows its story in its language, its language switcher and breadcrumbs lead to pages that
 * exist, and its images load. The suite builds 40 stories; `EXAMPLE_STORIES=10000` runs the same
 * test over the 10,000-story site (29,000+ pages; several minutes):
 *
 *   EXAMPLE_STORIES=10000 npx vitest run test/e2e/site-sample.test.ts
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GeneratedIndex,
  type IndexEntry,
  launchBrowser,
  loadIndex,
  type SiteBuild,
  type StaticServer,
  serveStatic,
  siteApi,
} from './support.js';

const STORIES = Number(process.env.EXAMPLE_STORIES ?? 40);
/** Story pages checked, spread evenly over every language. */
const SAMPLE = 24;
const BUILD_TIMEOUT = STORIES > 1000 ? 30 * 60_000 : 5 * 60_000;

/** The sample: every n-th entry of the index (all languages), so it reaches deep into a large space. */
function sample(entries: readonly IndexEntry[]): IndexEntry[] {
  const step = Math.max(1, Math.floor(entries.length / SAMPLE));
  return entries.filter((_, i) => i % step === 0).slice(0, SAMPLE);
}

describe(`the example site over ${STORIES} stories, on a sample of pages`, () => {
  let tmp: string;
  let site: SiteBuild;
  let server: StaticServer;
  let browser: Browser;
  let page: Page;
  let index: GeneratedIndex;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'example-sample-'));
    const [api, launched] = await Promise.all([siteApi(), launchBrowser()]);
    browser = launched;
    site = await api.buildSite({ outDir: path.join(tmp, 'dist'), stories: STORIES, logLevel: 'silent' });
    server = await serveStatic(site.outDir);
    index = await loadIndex(site.modulesDir);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('builds a page per story in every language, and the tag pages of every language', async () => {
    const { tags } = (await import(pathToFileURL(path.join(site.modulesDir, 'tags.js')).href)) as { tags: unknown[] };
    const languages = new Set(index.entries.map((e) => e.lang)).size;
    expect(new Set(index.entries.map((e) => e.id)).size).toBeGreaterThan(STORIES * 0.9); // the published ones
    expect(site.pages).toBe(index.entries.length + languages * (tags.length + 1));
  });

  it(
    'shows each sampled story in its language, with switcher and breadcrumb links that exist, and its images loaded',
    async () => {
      const home = index.bySlug('home');
      const checked: string[] = [];
      for (const entry of sample(index.entries)) {
        const story = await index.load(entry);
        const title = String(story.content.title ?? story.content.name);
        const url = entry.id === home?.id ? (entry.lang === 'default' ? '/' : `/${entry.lang}/`) : `${entry.path}/`;
        const response = await page.goto(`${server.url}${url}`);
        expect(response?.status(), url).toBe(200);
        await expect(page.locator('main > h1').textContent(), url).resolves.toBe(title);
        await expect(page.locator('html').getAttribute('lang')).resolves.toBe(
          entry.lang === 'default' ? 'en' : entry.lang,
        );
        const links = await page
          .locator('.languages a, .breadcrumbs a')
          .evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).href));
        expect(links.length, url).toBeGreaterThan(0);
        for (const link of links) expect((await fetch(link)).status, `${url} -> ${link}`).toBe(200);
        const images = await page.evaluate(async () => {
          const imgs = [...document.images];
          for (const img of imgs) img.loading = 'eager';
          await Promise.all(imgs.map((img) => img.decode().catch(() => undefined)));
          return imgs.map((img) => ({ src: img.currentSrc, loaded: img.naturalWidth > 0 }));
        });
        for (const image of images) expect(image.loaded, `${url}: ${image.src}`).toBe(true);
        checked.push(url);
      }
      expect(checked.length).toBe(Math.min(SAMPLE, index.entries.length));
    },
    BUILD_TIMEOUT,
  );

  it('serves a tag page listing its stories, and the not-found page for an unknown path', async () => {
    const tagged = index.entries.filter(
      (e) => e.lang === 'default' && (e as { tag_list?: string[] }).tag_list?.includes('news'),
    );
    expect((await page.goto(`${server.url}/tags/news/`))?.status()).toBe(200);
    expect(await page.locator('.tagged li a').count()).toBe(tagged.length);
    const missing = await page.goto(`${server.url}/no/such/page/`);
    expect(missing?.status()).toBe(404);
  });
});
