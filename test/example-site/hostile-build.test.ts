/**
 * The example site built over a 30-story demo space whose stories were given hostile slugs and
 * link URLs (as a compromised CMS could deliver them): one real build, real files.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';
import { filesUnder, serveStatic, siteApi, type SiteBuild, type StaticServer } from '../e2e/support.js';

type Json = Record<string, unknown>;

const LONG = 'a'.repeat(300);

/** The slug each story is given (ids of the deterministic 30-story demo space). */
const SLUGS: Record<number, string> = {
  610000027: '', // contact: would be the home page
  610000032: 'de', // imprint: would be the German home page
  610000013: '404.html',
  610000014: 'index.html',
  610000015: 'tags',
  610000017: LONG,
  610000018: 'articles/same-page',
  610000019: 'articles/same-page/', // the page of 610000018 as well
  610000020: 'articles/100%-off?x#y',
  610000023: 'articles/half-\ud800', // a lone surrogate: encodeURIComponent throws on it
};

/** A tag no page can be written for (a separator once decoded), given to one story. */
const SLASHED_TAG = 'a/b';
/** A tag holding half a character (JSON carries it), given to the same story. */
const HALF_TAG = 'half-\ud800';
const TAGGED = 610000021;

/** The home story. */
const HOME = 610000005;

/** A story whose title holds what String.replace reads as patterns in a replacement string. */
const DOLLARS = 610000024;
const DOLLAR_TITLE = 'Prices $$ and $& and $` stay';

/**
 * Stories published before any of their fields was filled in (content holds only `component` and
 * `_uid`): an article, the author articles embed, a product; and bloks added and never filled in.
 */
const EMPTIED = [610000025, 610000011, 610000031];
const UNFILLED_BLOKS = 610000026;

/** The story whose page must be reached by its link. */
const REACHABLE = 610000020;

const HOSTILE_URLS = ['javascript:alert(1)', '  JaVaScRiPt:alert(2)', 'data:text/html,<script>alert(5)</script>'];

/** Gives every url multilink and rich-text url link under `node` a hostile URL; how many it changed. */
function poisonLinks(node: unknown, count = { n: 0 }): number {
  if (Array.isArray(node)) for (const item of node) poisonLinks(item, count);
  else if (node && typeof node === 'object') {
    const o = node as Json;
    if (o.linktype === 'url' && o.fieldtype === 'multilink') {
      const url = HOSTILE_URLS[count.n++ % HOSTILE_URLS.length]!;
      o.url = url.startsWith(' ') ? '' : url;
      o.cached_url = url;
    } else if (o.linktype === 'url' && 'href' in o) {
      o.href = count.n++ % 2 ? 'javascript:alert(3)' : '\tvbscript:msgbox(4)';
    }
    for (const value of Object.values(o)) poisonLinks(value, count);
  }
  return count.n;
}

/** The title of each story edited (its published one). */
const titles = new Map<number, string>();
/** The full slug and the name of each story edited (its published one). */
const slugs = new Map<number, string>();
const names = new Map<number, string>();

/** Edits a story file of the space: its slug in every view, and its links; how many links it changed. */
async function makeHostile(space: string, id: number): Promise<number> {
  const file = path.join(space, 'stories', `${id}.json`);
  const record = JSON.parse(await fs.readFile(file, 'utf8')) as Json;
  for (const view of ['published', 'draft'] as const) {
    const story = (record[view] as { story?: Json } | undefined)?.story;
    if (!story) continue;
    if (id in SLUGS) story.full_slug = SLUGS[id];
    if (id === DOLLARS) (story.content as Json).title = DOLLAR_TITLE;
    const content = story.content as Json;
    if (EMPTIED.includes(id)) story.content = { component: content.component, _uid: content._uid };
    if (id === UNFILLED_BLOKS)
      content.blocks = ['grid', 'feature', 'teaser', 'cta', 'quote', 'gallery'].map((component, i) => ({
        component,
        _uid: `unfilled-${i}`,
      }));
    if (id === TAGGED) story.tag_list = [...((story.tag_list as string[] | undefined) ?? []), SLASHED_TAG, HALF_TAG];
    if (view === 'published') {
      titles.set(id, String((story.content as Json).title));
      slugs.set(id, String(story.full_slug));
      names.set(id, String(story.name));
    }
  }
  const poisoned = poisonLinks(record);
  await fs.writeFile(file, JSON.stringify(record));
  return poisoned;
}

/** Text as the site escapes it. */
const esc = (text: string): string =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

const titleOf = (html: string): string => /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';

describe('the example site built over hostile slugs and links', () => {
  let tmp: string;
  let site: SiteBuild;
  let warnings: string;
  let server: StaticServer;
  let poisoned = 0;
  const pageOf = (url: string) =>
    fs.readFile(path.join(site.outDir, ...url.split('/').filter(Boolean), 'index.html'), 'utf8');

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'example-hostile-'));
    const contentDir = path.join(tmp, 'content');
    const space = path.join(contentDir, 'space');
    await writeDemoSpace(space, { stories: 30 });
    for (const file of await fs.readdir(path.join(space, 'stories')))
      poisoned += await makeHostile(space, Number.parseInt(file, 10));
    // The workers' warnings reach this process's stderr.
    const chunks: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      chunks.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      const api = await siteApi();
      site = (await api.buildSite({
        outDir: path.join(tmp, 'dist'),
        contentDir,
        stories: 30,
        logLevel: 'silent',
      })) as SiteBuild;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.stderr.write = write;
    }
    warnings = chunks.join('');
    server = await serveStatic(site.outDir);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('keeps the home story on the home pages, and the not-found page', async () => {
    // The home story's titles in the demo space; a story given the slug '' or 'de' would have its own.
    expect(titleOf(await pageOf('/'))).toBe(`${titles.get(HOME)} · Demo site`);
    expect(titleOf(await pageOf('/de/'))).toBe('Willkommen · Demo site');
    expect(titleOf(await pageOf('/fr/'))).toBe('Bienvenue · Demo site');
    const notFound = await fs.readFile(path.join(site.outDir, '404.html'), 'utf8');
    expect(notFound).toContain('<code>/404</code>');
  });

  it('shows a title holding $$, $& and $` as it is', async () => {
    const html = await pageOf(`/${slugs.get(DOLLARS)}/`);
    const escaped = DOLLAR_TITLE.replaceAll('&', '&amp;');
    expect(titleOf(html)).toBe(`${escaped} · Demo site`);
    expect(html).toContain(`<h1>${escaped}</h1>`);
  });

  it('renders the pages of stories and bloks whose fields were never filled in, titled by the name', async () => {
    for (const id of EMPTIED) {
      const html = await pageOf(`/${slugs.get(id)}/`);
      expect(titleOf(html), String(id)).toBe(`${esc(names.get(id)!)} · Demo site`);
      expect(html).toContain(`<h1>${esc(names.get(id)!)}</h1>`);
    }
    // The articles that embed the emptied author name it.
    expect(await pageOf(`/${slugs.get(UNFILLED_BLOKS)}/`)).toContain('<p class="more">');
    const author = `/${slugs.get(EMPTIED[1]!)}/">${esc(names.get(EMPTIED[1]!)!)}</a>`;
    let embedding = 0;
    for (const file of await filesUnder(site.outDir))
      if (file.endsWith('.html') && (await fs.readFile(file, 'utf8')).includes(author)) embedding++;
    expect(embedding).toBeGreaterThan(0);
  });

  it('writes the pages of a slug and a tag holding a lone surrogate where their files are, and links to them', async () => {
    // A file name cannot hold half a character: it is the replacement character there, and in the URL.
    for (const url of ['/articles/half-\uFFFD/', '/tags/half-\uFFFD/']) {
      expect(await pageOf(url), url).toContain('<h1>');
      expect(site.refused, url).not.toContain(url);
    }
    const pages = await filesUnder(site.outDir);
    const linking = async (href: string) => {
      for (const file of pages) if ((await fs.readFile(file, 'utf8')).includes(`href="${href}"`)) return true;
      return false;
    };
    expect(await linking('/articles/half-%EF%BF%BD/')).toBe(true);
    expect(await linking('/tags/half-%EF%BF%BD/')).toBe(true);
  });

  it('refuses the pages that clash or cannot be files, warns naming the story, and builds the rest', () => {
    const refused = [
      ['/de/', 610000032],
      ['/404.html/', 610000013],
      ['/index.html/', 610000014],
      ['/tags/', 610000015],
      [`/${LONG}/`, 610000017],
      ['/articles/same-page/', 610000019],
    ] as const;
    for (const [url, id] of refused) {
      expect(site.refused, url).toContain(url);
      expect(warnings, url).toContain(`story ${id} at ${JSON.stringify(url)}`);
    }
    expect(warnings).toContain('story 610000019 at "/articles/same-page/": it clashes with story 610000018');
    expect(warnings).toContain(`story 610000017 at "/${LONG}/": a segment is longer than a file name may be`);
    expect(warnings).toContain(`tag "a/b" at "/tags/a%2Fb/": a segment holds a path separator`);
    expect(site.pages).toBeGreaterThan(60);
  });

  it('links only to pages it wrote: no link leads to a refused page, another page or none', async () => {
    const targets = new Map<string, string>();
    for (const file of await filesUnder(site.outDir)) {
      if (!file.endsWith('.html')) continue;
      for (const [, href] of (await fs.readFile(file, 'utf8')).matchAll(/href="([^"]*)"/g)) {
        const url = new URL(href!.replaceAll('&amp;', '&'), server.url);
        if (url.origin === new URL(server.url).origin && !url.pathname.startsWith('/assets/'))
          targets.set(url.pathname, file);
      }
    }
    expect(targets.size).toBeGreaterThan(50);
    const broken: string[] = [];
    for (const [target, from] of targets) {
      const res = await fetch(new URL(target, server.url));
      await res.arrayBuffer();
      if (res.status !== 200) broken.push(`${target} (${res.status}, linked from ${path.relative(site.outDir, from)})`);
    }
    expect(broken).toEqual([]);
  });

  it('reaches a page whose slug holds % ? and # by its link', async () => {
    const wanted = `/${SLUGS[REACHABLE]}/`;
    const hrefs = new Set<string>();
    for (const file of await filesUnder(site.outDir))
      if (file.endsWith('.html'))
        for (const [, href] of (await fs.readFile(file, 'utf8')).matchAll(/href="([^"]*)"/g))
          if (decodeURIComponent(new URL(href!.replaceAll('&amp;', '&'), server.url).pathname) === wanted)
            hrefs.add(href!);
    expect([...hrefs]).toEqual(['/articles/100%25-off%3Fx%23y/']);
    const res = await fetch(new URL([...hrefs][0]!, server.url));
    expect(res.status).toBe(200);
    expect(titleOf(await res.text())).toBe(`${titles.get(REACHABLE)} · Demo site`);
  });

  it('puts no javascript:, data: or vbscript: URL in any href, and keeps the labels of those links', async () => {
    expect(poisoned).toBeGreaterThan(10);
    const bad: string[] = [];
    for (const file of await filesUnder(site.outDir)) {
      if (!file.endsWith('.html')) continue;
      for (const [, href] of (await fs.readFile(file, 'utf8')).matchAll(/href="([^"]*)"/g)) {
        const url = new URL(href!.replaceAll('&amp;', '&').replaceAll('&#39;', "'"), 'https://site.invalid/');
        if (!['http:', 'https:', 'mailto:', 'tel:'].includes(url.protocol)) bad.push(`${file}: ${href}`);
      }
    }
    expect(bad.slice(0, 5)).toEqual([]);
  });
});
