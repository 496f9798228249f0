/**
 * The example site built over a space whose home story is not published (unpublished, or its slug
 * changed): the site has no page at `/`, so the output has no file there, and a static host answers
 * the not-found page, and no page links there. Real builds of a small demo space, real files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeSpace, filesUnder, serveStatic, type SiteApi, siteInTemp } from './support.js';

const STORIES = 60;

describe('the example site without a home story', () => {
  let tmp: string;
  let api: SiteApi;
  let contentDir: string;
  let outDir: string;

  beforeAll(async () => {
    ({ tmp, api, contentDir, outDir } = await siteInTemp('no-home', STORIES));
  }, 120_000);

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('writes no page at / once the home story is unpublished, and / is not found', async () => {
    expect(await fs.readFile(path.join(outDir, 'index.html'), 'utf8')).toContain('lang="en"');
    await changeSpace(contentDir, (store) => {
      const home = [...store.records()].find((r) => r.published?.story.full_slug === 'home')!;
      store.unpublish(home.id);
    });

    await api.buildSite({ outDir, contentDir, stories: STORIES, logLevel: 'silent' });
    // The client build writes the page template to index.html; no page filled it.
    const unfilled: string[] = [];
    for (const file of await filesUnder(outDir))
      if (file.endsWith('.html') && (await fs.readFile(file, 'utf8')).includes('<!--app-html-->'))
        unfilled.push(path.relative(outDir, file));
    expect(unfilled).toEqual([]);
    const site = await serveStatic(outDir);
    try {
      const res = await fetch(`${site.url}/`);
      expect(res.status).toBe(404);
      // The other pages are there.
      expect((await fetch(`${site.url}/tags/`)).status).toBe(200);
    } finally {
      await site.close();
    }
  }, 120_000);

  it('links no page to the home page it does not have', async () => {
    const broken = new Set<string>();
    for (const file of await filesUnder(outDir)) {
      if (!file.endsWith('.html')) continue;
      for (const [, href] of (await fs.readFile(file, 'utf8')).matchAll(/ href="(\/[^"#]*)/g)) {
        const target = path.join(outDir, decodeURIComponent(href!), href!.endsWith('/') ? 'index.html' : '');
        if (!(await fs.stat(target).catch(() => undefined))) broken.add(href!);
      }
    }
    expect([...broken].sort()).toEqual([]);
  }, 60_000);
});
