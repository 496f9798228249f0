/**
 * The example site at scale, as `npm run example -- --stories N` builds it: cold (no demo space,
 * snapshot, modules or output: every phase from the demo to the last page) and warm (the same
 * content again), each with its phases, against the targets of 90 s cold and 45 s warm for
 * 10,000 stories on a 2-core machine; then warm after one story changed (an article, then
 * an author that articles embed), with the pages rendered again and rewritten; and the example's
 * dev server over the same content, to its first page.
 * `npm run bench -- site`; `SITE_STORIES=N` for another size.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ViteDevServer } from 'vite';
import { contentDirFor, siteRoot } from '../example-site/vite.config.js';
import { SpaceStore } from '../src/server/store.js';
import { readSpaceDirectory } from '../src/snapshot/read.js';
import { writeSpaceDirectory } from '../src/snapshot/write.js';
import { fmt, loadavg } from './lib.js';

const TARGETS = { cold: 90, warm: 45 };

interface SiteBuild {
  pages: number;
  rendered: number;
  rewritten: number;
  durationMs: number;
  phases: Array<{ name: string; ms: number }>;
}

/**
 * The example site's build, loaded at run time: the site is typed against its generated modules,
 * which exist only once it has synced, so it is type-checked on its own (see test/e2e).
 */
async function siteBuilder(): Promise<
  (options: { stories: number; outDir: string; logLevel: 'silent' }) => Promise<SiteBuild>
> {
  const module = (await import(pathToFileURL(path.join(siteRoot, 'site-build.ts')).href)) as {
    buildSite: (options: { stories: number; outDir: string; logLevel: 'silent' }) => Promise<SiteBuild>;
  };
  return module.buildSite;
}

/**
 * The example's dev server over the same content (`npm run example:dev` at that size): how long it
 * takes to listen, to answer its first page (the plugin syncs on the first request, then Vite loads
 * the index and what the page imports) and then another page; then what a server-rendered page
 * that lists one content type or one language waits for when it first imports that view (the
 * example's pages import none, so each is loaded for the first time).
 */
async function devFirstPages(stories: number): Promise<void> {
  // Loaded at run time, as the site's build is (see siteBuilder).
  const { startDevServer } = (await import(pathToFileURL(path.join(siteRoot, 'dev-server.ts')).href)) as {
    startDevServer: (options: {
      stories: number;
      port: number;
      logLevel: 'silent';
    }) => Promise<{ url: string; server: ViteDevServer; close(): Promise<void> }>;
  };
  const started = performance.now();
  const dev = await startDevServer({ stories, port: 0, logLevel: 'silent' });
  const ready = performance.now() - started;
  try {
    const timed = async (page: string) => {
      const t = performance.now();
      const response = await fetch(new URL(page, dev.url));
      await response.text();
      if (!response.ok) throw new Error(`the dev server answered ${response.status} for ${page}`);
      return performance.now() - t;
    };
    const first = await timed('/');
    const next = await timed('/de/');
    console.log(
      `dev server over the same content: listening in ${fmt(ready / 1000)} s, first page (/: the sync, then the index and what the page imports) ${fmt(first / 1000)} s, then /de/ ${fmt(next, 0)} ms; load ${loadavg()}`,
    );
    // Two views that share no chunk: German articles, then every French story.
    const views: string[] = [];
    for (const id of ['content:index/de/article', 'content:index/fr']) {
      const t = performance.now();
      const view = (await dev.server.ssrLoadModule(id)) as { entries: unknown[] };
      views.push(
        `${id} (${view.entries.length.toLocaleString('en-US')} stories) ${fmt((performance.now() - t) / 1000, 2)} s`,
      );
    }
    console.log(`dev server, a view's first server-side load: ${views.join(', ')}`);
  } finally {
    await dev.close();
  }
}

/** Publishes a new text in the rich-text field `field` of the space's first published story of `component`, as an editor would. */
async function editOne(spaceDir: string, component: string, field: string): Promise<void> {
  const store = new SpaceStore(await readSpaceDirectory(spaceDir));
  const record = [...store.records()].find((r) => r.published?.story.content.component === component);
  if (!record) throw new Error(`the demo space has no published ${component}`);
  const text = `Edited at ${new Date().toISOString()}.`;
  store.updateStory(record.id, {
    content: { [field]: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] } },
  });
  store.publish(record.id);
  await writeSpaceDirectory(spaceDir, store.toData());
}

export async function benchSite(): Promise<void> {
  const stories = Number(process.env.SITE_STORIES ?? 10_000);
  const outDir = path.join(os.tmpdir(), `content-sync-bench-site-${stories}`);
  await fs.rm(path.join(siteRoot, contentDirFor(stories)), { recursive: true, force: true });
  await fs.rm(outDir, { recursive: true, force: true });
  console.log(`\n## The example site over ${stories.toLocaleString('en-US')} stories (${os.cpus().length} cores)`);
  const buildSite = await siteBuilder();
  try {
    const report = (run: string, result: SiteBuild, target?: number) => {
      const phases = result.phases.map((p) => `${p.name} ${fmt(p.ms / 1000)}`).join(', ');
      const goal = target ? ` (target ${target} s at 10,000 stories)` : '';
      console.log(
        `${run}: ${result.pages} pages in ${fmt(result.durationMs / 1000)} s${goal}, ${result.rendered} rendered, ${result.rewritten} written: ${phases}; load ${loadavg()}`,
      );
    };
    for (const run of ['cold', 'warm'] as const)
      report(run, await buildSite({ stories, outDir, logLevel: 'silent' }), TARGETS[run]);
    const spaceDir = path.join(siteRoot, contentDirFor(stories), 'space');
    for (const [what, component, field] of [
      ['an article', 'article', 'body'],
      ['an author articles embed', 'author', 'bio'],
    ] as const) {
      await editOne(spaceDir, component, field);
      report(`warm after ${what} changed`, await buildSite({ stories, outDir, logLevel: 'silent' }));
    }
    await devFirstPages(stories);
  } finally {
    await fs.rm(outDir, { recursive: true, force: true });
  }
}
