/**
 * The built example site offline: its images and documents come with the
 * build. Served statically, with the content service stopped, every image
 * loads from the site's own origin, has its size set, and the pages fit a
 * 1280 px wide window.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, launchBrowser, type SiteBuild, type StaticServer, serveStatic, siteApi } from './support.js';

describe('the built example site, offline', () => {
  let tmp: string;
  let site: SiteBuild;
  let server: StaticServer;
  let browser: Browser;
  let page: Page;
  let pages: string[];
  const requests: string[] = [];

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'example-offline-'));
    const [api, launched] = await Promise.all([siteApi(), launchBrowser()]);
    browser = launched;
    // The build stops its embedded content service when it ends: nothing but the static files remains.
    site = await api.buildSite({ outDir: path.join(tmp, 'dist'), logLevel: 'silent' });
    server = await serveStatic(site.outDir);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    // Every page with an image, in a fixed sample: the home page and every 40th of the rest.
    const html = (await filesUnder(site.outDir)).filter((f) => f.endsWith('index.html'));
    const withImages: string[] = [];
    for (const file of html.sort()) if ((await fs.readFile(file, 'utf8')).includes('<img')) withImages.push(file);
    const urlOf = (file: string) =>
      `/${path.relative(site.outDir, path.dirname(file)).split(path.sep).join('/')}/`.replace(/^\/\/$/, '/');
    pages = ['/', ...withImages.map(urlOf).filter((u, i) => u !== '/' && i % 40 === 0)];
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('refers to no asset host: every image and document is a file of the build', async () => {
    const html = (await filesUnder(site.outDir)).filter((f) => f.endsWith('.html'));
    for (const file of html) {
      const text = await fs.readFile(file, 'utf8');
      expect(text, file).not.toMatch(/demo-assets\.invalid|https?:\/\/127\.0\.0\.1|\/f\/\d+\//);
    }
    const assets = (await fs.readdir(path.join(site.outDir, 'assets'))).filter((f) =>
      /\.(jpg|png|webp|svg|pdf)$/.test(f),
    );
    expect(assets.length).toBeGreaterThan(20);
    // Named by the digest of the file (and the width of a rendition the build resized): the prerender
    // loads the content modules from disk (ssrModules: 'external') and the plugin writes the files
    // they show under those names.
    for (const name of assets) expect(name).toMatch(/^[0-9a-f]{64}(-\d+w)?\.(jpg|png|webp|svg|pdf)$/);
    expect(assets.filter((name) => /-\d+w\./.test(name)).length).toBeGreaterThan(20);
  });

  it('loads every <img> of the sampled pages from the site itself, each with width and height, and no page is wider than 1280 px', async () => {
    expect(pages.length).toBeGreaterThan(5);
    let images = 0;
    for (const url of pages) {
      await page.goto(`${server.url}${url}`);
      const report = await page.evaluate(async () => {
        const imgs = [...document.images];
        for (const img of imgs) img.loading = 'eager';
        await Promise.all(imgs.map((img) => img.decode().catch(() => undefined)));
        return {
          images: imgs.map((img) => ({
            src: img.currentSrc,
            natural: img.naturalWidth,
            width: img.getAttribute('width'),
            height: img.getAttribute('height'),
          })),
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        };
      });
      for (const img of report.images) {
        expect(img.natural, `${url}: ${img.src}`).toBeGreaterThan(0);
        expect(Number(img.width), `${url}: ${img.src} width`).toBeGreaterThan(0);
        expect(Number(img.height), `${url}: ${img.src} height`).toBeGreaterThan(0);
      }
      images += report.images.length;
      expect(report.scrollWidth, url).toBeLessThanOrEqual(report.innerWidth);
    }
    expect(images).toBeGreaterThan(pages.length);
    const foreign = requests.filter((r) => new URL(r).origin !== server.url);
    expect(foreign).toEqual([]);
  }, 240_000);

  it('serves every asset link of the home page (documents included) from the build', async () => {
    await page.goto(`${server.url}/`);
    const hrefs = await page.$$eval('a[href^="/assets/"]', (links) => links.map((a) => a.getAttribute('href')!));
    for (const href of hrefs) {
      const res = await fetch(`${server.url}${href}`);
      expect(res.status, href).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });
});
