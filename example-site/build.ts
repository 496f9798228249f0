/**
 * `npm run example`: builds the example site against the embedded local
 * Content Delivery Service over the demo space. No network, no account, no
 * token to set: the service runs in this process on a free loopback port.
 *
 * Every published story, in every language of the space, becomes
 * `dist/<full_slug>/index.html` (a folder's start page at the folder's path).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDemoSpace } from '../src/demo/index.js';
import { startServer } from '../src/server/index.js';
import { readSpaceDirectory } from '../src/snapshot/index.js';
import type { Story } from '../src/api/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const spaceDir = path.join(here, '.content', 'space');
const outDir = path.join(here, 'dist');
const TOKEN = 'example-public-token';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function fetchJson(url: string): Promise<{ body: any; headers: Headers }> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${res.status} from ${url}: ${await res.text()}`);
  return { body: await res.json(), headers: res.headers };
}

async function allStories(base: string, cv: number, language: string): Promise<Story[]> {
  const out: Story[] = [];
  for (let page = 1; ; page++) {
    const q = new URLSearchParams({ token: TOKEN, cv: String(cv), per_page: '25', page: String(page) });
    if (language !== 'default') q.set('language', language);
    const { body, headers } = await fetchJson(`${base}/v2/cdn/stories?${q}`);
    out.push(...(body.stories as Story[]));
    if (page * Number(headers.get('per-page')) >= Number(headers.get('total'))) return out;
  }
}

function pagePath(story: Story): string {
  const slug = story.full_slug.replace(/\/$/, '');
  return slug === '' || slug === 'home' ? 'index.html' : path.join(slug, 'index.html');
}

function render(story: Story, nav: Story[]): string {
  const title = String((story.content as Record<string, unknown>).title ?? story.name);
  const links = nav
    .map((s) => `<li><a href="/${s.full_slug.replace(/\/$/, '')}/">${escape(s.name)}</a></li>`)
    .join('');
  return `<!doctype html>
<html lang="${story.lang === 'default' ? 'en' : story.lang}">
<head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body>
<nav><ul>${links}</ul></nav>
<main><h1>${escape(title)}</h1><p>${escape(story.content.component)} · ${escape(story.full_slug)}</p></main>
</body>
</html>
`;
}

async function main(): Promise<void> {
  const started = performance.now();
  try {
    await fs.access(path.join(spaceDir, 'manifest.json'));
  } catch {
    await writeDemoSpace(spaceDir, { stories: 200, seed: 1 });
  }
  const server = await startServer({ space: await readSpaceDirectory(spaceDir), publicToken: TOKEN, rateLimit: false });
  try {
    const { body } = await fetchJson(`${server.url}/v2/cdn/spaces/me?token=${TOKEN}`);
    const cv = body.space.version as number;
    const languages = ['default', ...(body.space.language_codes as string[])];
    await fs.rm(outDir, { recursive: true, force: true });
    let pages = 0;
    for (const language of languages) {
      const stories = await allStories(server.url, cv, language);
      const nav = stories.filter((s) => s.is_startpage);
      for (const story of stories) {
        const file = path.join(outDir, pagePath(story));
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, render(story, nav));
        pages++;
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`Built ${pages} pages in ${seconds}s into ${path.relative(process.cwd(), outDir) || outDir}`);
    console.log(`Preview: npx vite preview --outDir ${path.relative(process.cwd(), outDir)}`);
  } finally {
    await server.close();
  }
}

main().catch((err: unknown) => {
  console.error(`example build failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
