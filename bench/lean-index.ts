/**
 * The client chunk of a page that lists one content type in one language:
 * through `content:index` (every story of every language) against the lean
 * `content:index/<lang>/<component>` (those entries only). Bytes of the entry
 * chunk of a production `vite build` (bodies load lazily in chunks of their
 * own either way), 10,000-story demo space (`BENCH_INDEX_STORIES` to change).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import { contentSync, type ContentSyncOptions } from '../src/index.js';
import { demoSpace, fmt, serve } from './lib.js';

const PAGES = {
  full: "import { byComponent } from 'content:index';\ndocument.body.textContent = byComponent('article', 'de').map((e) => e.name).join();\n",
  lean: "import { entries } from 'content:index/de/article';\ndocument.body.textContent = entries.map((e) => e.name).join();\n",
};

/** Bytes of the entry chunk a production build emits for `source`, and the build's time. */
async function entryChunk(
  root: string,
  source: string,
  options: ContentSyncOptions,
): Promise<{ bytes: number; ms: number }> {
  const entry = path.join(root, 'page.js');
  await fs.writeFile(entry, source);
  const started = performance.now();
  const output = await build({
    root,
    configFile: false,
    logLevel: 'error',
    plugins: [contentSync(options)],
    build: {
      outDir: path.join(root, 'dist'),
      emptyOutDir: true,
      modulePreload: false,
      write: false,
      rolldownOptions: { input: entry },
    },
  });
  const ms = performance.now() - started;
  const outputs = (Array.isArray(output) ? output : [output]).flatMap((o) => ('output' in o ? o.output : []));
  const chunk = outputs.find((o) => o.type === 'chunk' && o.isEntry);
  if (chunk?.type !== 'chunk') throw new Error('the build emitted no entry chunk');
  return { bytes: Buffer.byteLength(chunk.code), ms };
}

export async function benchLeanIndex(): Promise<void> {
  const stories = Number(process.env.BENCH_INDEX_STORIES ?? 10_000);
  const dir = await demoSpace(stories);
  const s = await serve(dir, ['--no-rate-limit']);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-bench-index-'));
  try {
    const options: ContentSyncOptions = { baseUrl: s.url, token: 'bench-public' };
    // The first build syncs and compiles; both pages are then built from the same output.
    const full = await entryChunk(root, PAGES.full, options);
    const lean = await entryChunk(root, PAGES.lean, { ...options, offline: true });
    console.log(
      `index: client chunk of a page listing the articles in German, ${stories.toLocaleString('en-US')} stories: content:index ${fmt(full.bytes / 1024, 0)} kB, ` +
        `content:index/de/article ${fmt(lean.bytes / 1024, 0)} kB (${fmt((lean.bytes / full.bytes) * 100, 1)}% of it); builds ${fmt(full.ms / 1000, 1)} s (with sync and compile) and ${fmt(lean.ms / 1000, 1)} s`,
    );
  } finally {
    await s.stop();
    await fs.rm(root, { recursive: true, force: true });
  }
}
