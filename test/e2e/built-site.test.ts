/**
 * The example site as built by `npm run example`: prerendered pages checked
 * in Chromium against the content snapshot they were built from.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SITE_ROOT,
  filesContaining,
  filesUnder,
  launchBrowser,
  loadIndex,
  serveStatic,
  siteApi,
  type GeneratedIndex,
  type SiteBuild,
  type StaticServer,
} from './support.js';

interface Datasources {
  datasources: Record<
    string,
    { entries: Array<{ name: string; value: string; dimension_values: Record<string, string> }> }
  >;
}

const urlOf = (entryPath: string) => (entryPath === '/home' ? '/' : `${entryPath}/`);

describe('the built example site', () => {
  let tmp: string;
  let site: SiteBuild;
  let server: StaticServer;
  let browser: Browser;
  let page: Page;
  let index: GeneratedIndex;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'example-site-'));
    const [api, launched] = await Promise.all([siteApi(), launchBrowser()]);
    browser = launched;
    site = await api.buildSite({ outDir: path.join(tmp, 'dist'), logLevel: 'silent' });
    server = await serveStatic(site.outDir);
    index = await loadIndex(site.modulesDir);
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('writes one page per published story in every language, plus tag pages', async () => {
    expect(site.pages).toBeGreaterThan(index.entries.length);
    for (const entry of index.entries) {
      const url =
        entry.full_slug === 'home'
          ? '/'
          : entry.lang !== 'default' && index.bySlug('home')?.id === entry.id
            ? `/${entry.lang}/`
            : `${entry.path}/`;
      await expect(
        fs.access(path.join(site.outDir, ...url.split('/').filter(Boolean), 'index.html')),
      ).resolves.toBeUndefined();
    }
    await expect(fs.access(path.join(site.outDir, 'tags', 'news', 'index.html'))).resolves.toBeUndefined();
  });

  it('renders the home page: its title, rich text with every kind of node, images with alt text', async () => {
    const home = await index.load(index.bySlug('home')!);
    await page.goto(`${server.url}/`);
    expect(await page.title()).toContain(String(home.content.title));
    await expect(page.locator('main > h1').textContent()).resolves.toBe(home.content.title);
    const rich = page.locator('.richtext').first();
    for (const selector of [
      'h2',
      'strong',
      'em',
      's',
      'u',
      'code',
      'sup',
      'sub',
      'ul li',
      'ol li',
      'blockquote',
      'pre code',
      'hr',
      'table td',
      'img',
      'a[href^="/"]',
      'a[href^="mailto:"]',
    ]) {
      expect(await rich.locator(selector).count(), `rich text ${selector}`).toBeGreaterThan(0);
    }
    // A blok embedded in the rich text is rendered by the site's component renderer.
    expect(await page.locator('.richtext .quote, .richtext .cta').count()).toBeGreaterThan(0);
    const images = await page.locator('img').evaluateAll((els) => els.map((e) => e.getAttribute('alt')));
    expect(images.length).toBeGreaterThan(0);
    for (const alt of images) expect(alt).toBeTruthy();
  });

  it("shows an article's author through the relation and links to the author's page, which a click opens", async () => {
    const entry = index.byComponent('article')[0]!;
    const article = await index.load(entry);
    const author = article.content.author as { uuid: string; content: { name: string } };
    expect(typeof author).toBe('object');
    const authorEntry = index.byUuid(author.uuid)!;
    await page.goto(`${server.url}${urlOf(entry.path)}`);
    await expect(page.locator('main > h1').textContent()).resolves.toBe(article.content.title);
    const link = page.locator('a[rel="author"]');
    await expect(link.textContent()).resolves.toBe(author.content.name);
    await link.click();
    await page.waitForURL(`${server.url}${urlOf(authorEntry.path)}`);
    await expect(page.locator('main > h1').textContent()).resolves.toBe(author.content.name);
  });

  it('shows datasource labels in the language of a /de/ page, and switches language', async () => {
    const { datasources } = (await import(
      pathToFileURL(path.join(site.modulesDir, 'datasources.js')).href
    )) as Datasources;
    const translated = (color: string) => datasources.colors!.entries.find((e) => e.name === color);
    let found: { path: string; label: string; english: string; defaultPath: string } | undefined;
    for (const entry of index.byComponent('article', 'de')) {
      const story = await index.load(entry);
      const color = translated(String(story.content.color));
      if (color?.dimension_values.de && color.dimension_values.de !== color.value) {
        found = {
          path: entry.path,
          label: color.dimension_values.de,
          english: color.value,
          defaultPath: index.byUuid(entry.uuid)!.path,
        };
        break;
      }
    }
    expect(found, 'a German article with a translated colour').toBeDefined();
    await page.goto(`${server.url}${found!.path}/`);
    expect(found!.path.startsWith('/de/')).toBe(true);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await expect(page.locator('.meta .datasource-label').textContent()).resolves.toBe(found!.label);
    await page.locator('.languages a[hreflang="en"]').click();
    await page.waitForURL(`${server.url}${found!.defaultPath}/`);
    await expect(page.locator('.meta .datasource-label').textContent()).resolves.toBe(found!.english);
  });

  it('navigates from the home page through the folder navigation to a start page listing its folder', async () => {
    const start = index.bySlug('articles/')!;
    const title = (await index.load(start)).content.title as string;
    await page.goto(`${server.url}/`);
    await page.locator('.main-nav a', { hasText: title }).click();
    await page.waitForURL(`${server.url}/articles/`);
    await expect(page.locator('main > h1').textContent()).resolves.toBe(title);
    expect(await page.locator('.section-index a').count()).toBeGreaterThan(0);
  });

  it('lists the stories of a tag on its tag page', async () => {
    const tagged = index.entries.filter(
      (e) => e.lang === 'default' && (e as { tag_list?: string[] }).tag_list?.includes('news'),
    );
    await page.goto(`${server.url}/tags/news/`);
    expect(await page.locator('.tagged li a').count()).toBe(tagged.length);
  });

  it('links only to pages that exist', async () => {
    const missing = new Set<string>();
    for (const file of await filesUnder(site.outDir)) {
      if (!file.endsWith('.html')) continue;
      const html = await fs.readFile(file, 'utf8');
      for (const [, href] of html.matchAll(/href="(\/[^"#?]*)/g)) {
        const target = decodeURIComponent(href!);
        const onDisk = path.join(
          site.outDir,
          ...target.split('/').filter(Boolean),
          target.endsWith('/') ? 'index.html' : '',
        );
        try {
          await fs.access(onDisk);
        } catch {
          missing.add(`${path.relative(site.outDir, file)} -> ${href}`);
        }
      }
    }
    expect([...missing].slice(0, 10)).toEqual([]);
  });

  it('publishes no server code: every script of the site is from the client bundle', async () => {
    const scripts = (await filesUnder(site.outDir)).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const file of scripts) expect(await fs.readFile(file, 'utf8'), file).not.toContain('renderNotFound');
  });

  it('publishes the files of public/ as they are (robots.txt)', async () => {
    const published = await fs.readFile(path.join(site.outDir, 'robots.txt'), 'utf8');
    expect(published).toBe(await fs.readFile(path.join(SITE_ROOT, 'public', 'robots.txt'), 'utf8'));
  });

  it('writes no token of the content service to the site or the generated modules', async () => {
    expect(site.tokens.length).toBe(2);
    for (const token of site.tokens) expect(token.length).toBeGreaterThan(8);
    expect(await filesContaining([site.outDir, site.modulesDir], site.tokens)).toEqual([]);
  });

  it('a rebuild over the output removes what it no longer writes, folders left empty included, and keeps the rest', async () => {
    const stale = path.join(site.outDir, 'gone', 'deeper', 'index.html');
    await fs.mkdir(path.dirname(stale), { recursive: true });
    await fs.writeFile(stale, 'a page of a story since deleted');
    // A stale file beside a page that stays: the page's folder stays.
    const beside = path.join(site.outDir, 'tags', 'leftover.html');
    await fs.writeFile(beside, 'stale');
    const before = (await filesUnder(site.outDir)).filter((f) => f !== stale && f !== beside).sort();
    const again = await (await siteApi()).buildSite({ outDir: site.outDir, logLevel: 'silent' });
    expect(again.pages).toBe(site.pages);
    // Content unchanged: every page was there with its bytes and was left alone, not even rendered,
    // but the home page (the client build writes its template to index.html first).
    expect(site.rendered).toBe(site.pages);
    expect(site.rewritten).toBe(site.pages);
    expect(again.rendered).toBe(1);
    expect(again.rewritten).toBe(1);
    await expect(fs.access(path.join(site.outDir, 'gone'))).rejects.toThrow();
    await expect(fs.access(beside)).rejects.toThrow();
    expect((await filesUnder(site.outDir)).sort()).toEqual(before);
  }, 60_000);

  it('type-checks (tsc over example-site against the generated modules)', async () => {
    const tsc = path.join(SITE_ROOT, '..', 'node_modules', 'typescript', 'bin', 'tsc');
    const run = promisify(execFile);
    const result = await run(process.execPath, [tsc, '--noEmit', '-p', path.join(SITE_ROOT, 'tsconfig.json')]).catch(
      (err: { stdout?: string; stderr?: string }) => err,
    );
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
  }, 60_000);
});
