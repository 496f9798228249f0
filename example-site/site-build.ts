/**
 * The example site's build: the client bundle and the server bundle through
 * Vite's `build()`, then one prerendered HTML page per route, on every core.
 */
import { promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { build, type Plugin } from 'vite';
import { SERVER_CONTENT_DIR } from '../src/prerender/index.js';
import { prerender } from './prerender.js';
import { keepRendered, takeRendered } from './rendered-pages.js';
import { DEFAULT_STORIES, contentDirFor, siteConfig, siteRoot } from './vite.config.js';

export interface BuildOptions {
  /** Where the site goes; default example-site/dist. */
  outDir?: string;
  /** Stories in the demo space the site is built over; default 200. */
  stories?: number;
  /** The content directory (demo space, snapshot, modules), relative to example-site/; default the one for `stories`. */
  contentDir?: string;
  logLevel?: 'info' | 'warn' | 'error' | 'silent';
}

export interface BuildResult {
  outDir: string;
  pages: number;
  /** Pages this build rendered (the others are made from what they were last rendered from, and were left alone). */
  rendered: number;
  /** Pages whose file this build wrote (the others were there with the same bytes, and kept their time). */
  rewritten: number;
  durationMs: number;
  /** The tokens of the embedded service used for this build (they must not appear in the output). */
  tokens: string[];
  /** Where the generated content modules are. */
  modulesDir: string;
  /**
   * Pages not written (each one warned about): their URL would leave the output directory, another
   * page has their file (the site's own pages first, then stories by id), or their path cannot be a
   * file there (a folder on the way is a file, a segment is too long).
   */
  refused: string[];
  /** Where the time went, in order (ms). */
  phases: Phase[];
}

export interface Phase {
  name: 'demo' | 'sync' | 'compile' | 'client bundle' | 'server bundle' | 'render+write';
  ms: number;
}

/** Stale files removed at once. */
const PRUNE_CONCURRENCY = 32;

/** The size of a file, or undefined when there is none. */
const sizeOf = (file: string): Promise<number | undefined> =>
  fs.stat(file).then(
    (stat) => stat.size,
    () => undefined,
  );

/** The files a Vite build wrote, relative to its output directory. */
function outputFiles(output: Awaited<ReturnType<typeof build>>): string[] {
  const outputs = Array.isArray(output) ? output : 'output' in output ? [output] : [];
  return outputs.flatMap((o) => o.output.map((chunk) => chunk.fileName));
}

/** The files under `dir`, relative to it; none when it is missing. */
async function filesIn(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Removes every file under `dir` that is not in `keep` (absolute paths), and the folders left empty. */
async function prune(dir: string, keep: ReadonlySet<string>): Promise<void> {
  // Listed synchronously: nothing else runs meanwhile, and the asynchronous listing of 40,000
  // entries in 10,000 folders took 1.8 s against 0.7 s.
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  const stale = entries.filter((e) => !e.isDirectory() && !keep.has(path.join(e.parentPath, e.name)));
  const queue = new PQueue({ concurrency: PRUNE_CONCURRENCY });
  await queue.addAll(stale.map((e) => () => fs.rm(path.join(e.parentPath, e.name))));
  // A folder stays when it holds a kept file, or a folder that does; the others are empty now. (Told
  // from the listing: asking each of 10,000 page folders whether it is empty took seconds.)
  const held = new Set<string>();
  for (const file of keep)
    for (let d = path.dirname(file); d.length > dir.length && !held.has(d); d = path.dirname(d)) held.add(d);
  const folders = entries
    .filter((e) => e.isDirectory())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((folder) => !held.has(folder));
  // Deepest first, so that a folder whose sub-folders all go is empty by its turn.
  for (const folder of folders.sort((a, b) => b.length - a.length)) await fs.rmdir(folder);
}

/** The client build's time as the content phases that ran inside it (its buildStart) and the bundle itself. */
function splitContent(clientBuildMs: number, content: Partial<Record<'demo' | 'sync' | 'compile', number>>): Phase[] {
  const phases = (['demo', 'sync', 'compile'] as const).map((name) => ({ name, ms: content[name] ?? 0 }));
  const bundle = clientBuildMs - phases.reduce((sum, p) => sum + p.ms, 0);
  return [...phases, { name: 'client bundle', ms: bundle }];
}

export async function buildSite(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const outDir = path.resolve(options.outDir ?? path.join(siteRoot, 'dist'));
  const stories = options.stories ?? DEFAULT_STORIES;
  const contentDir = options.contentDir ?? contentDirFor(stories);
  const contentPath = path.resolve(siteRoot, contentDir);
  const ssrDir = path.join(contentPath, 'ssr');
  const logLevel = options.logLevel ?? 'warn';
  const { config, content } = siteConfig({ stories, contentDir });
  const tokens: string[] = [];
  let modulesDir = '';
  /** The folder whose files the client build copies to the output as they are (Vite's `publicDir`). */
  let publicDir: string | undefined;
  const phases: Phase[] = [];
  const readTokens: Plugin = {
    name: 'example-site:service-tokens',
    configResolved(resolved) {
      if (resolved.publicDir && resolved.build.copyPublicDir) publicDir = resolved.publicDir;
    },
    renderStart() {
      const pipeline = content.api?.pipeline;
      const service = pipeline?.server?.service;
      if (service) tokens.push(service.publicToken, service.previewToken);
      if (pipeline) modulesDir = pipeline.modulesDir;
    },
  };
  let phaseStarted = performance.now();
  const endPhase = (name: Phase['name']) => {
    const now = performance.now();
    phases.push({ name, ms: now - phaseStarted });
    phaseStarted = now;
  };

  // One plugin instance for both builds: the content is synced and compiled once (in the first).
  // The output is not emptied first: removing 29,000 pages to write them again costs more than
  // overwriting them; what this build did not write is pruned at the end.
  const client = await build({
    ...config,
    logLevel,
    plugins: [...(config.plugins ?? []), readTokens],
    build: { outDir, emptyOutDir: false },
  });
  phases.push(...splitContent(performance.now() - phaseStarted, content.api?.pipeline?.durations ?? {}));
  phaseStarted = performance.now();
  // The server output is kept for the content modules beside the bundle and the assets they show;
  // the rest is the last bundle's.
  for (const entry of await fs.readdir(ssrDir).catch(() => []))
    if (entry !== SERVER_CONTENT_DIR && entry !== 'assets') await fs.rm(path.join(ssrDir, entry), { recursive: true });
  await build({
    ...config,
    logLevel: logLevel === 'info' ? 'warn' : logLevel,
    ssr: { noExternal: true },
    build: {
      ssr: true,
      outDir: ssrDir,
      // Kept: the content modules written beside the bundle are then only updated (ssrModules: 'external').
      emptyOutDir: false,
      // Pages are rendered on the server only: the images they use are emitted by this build.
      ssrEmitAssets: true,
      rolldownOptions: {
        input: { 'entry-server': 'src/entry-server.ts', prerender: 'prerender-worker.ts' },
        // Shared chunks beside the entries, not in assets/: what is there is copied to the public output.
        output: { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
  endPhase('server bundle');
  // The client build's index.html is the page template: it stays as the home page's file, written
  // over it below, and goes when the site has no home page (a bare template is no page).
  const templateFile = path.join(outDir, 'index.html');
  const keep = new Set(outputFiles(client).map((f) => path.join(outDir, f)));
  keep.delete(templateFile);
  // The client build copied these too, though its output does not name them.
  if (publicDir) for (const file of await filesIn(publicDir)) keep.add(path.join(outDir, file));
  // Only the images and documents pages show: no server code (an older layout put chunks there).
  const ssrAssets = (await fs.readdir(path.join(ssrDir, 'assets')).catch(() => [])).filter((f) => !f.endsWith('.js'));
  await fs.mkdir(path.join(outDir, 'assets'), { recursive: true });
  for (const file of ssrAssets) {
    const to = path.join(outDir, 'assets', file);
    keep.add(to);
    // Asset names carry a digest of their bytes: one already there is the same file, unless a build
    // stopped while copying it left it cut short.
    const from = path.join(ssrDir, 'assets', file);
    const [size, there] = await Promise.all([sizeOf(from), sizeOf(to)]);
    if (there !== size) await fs.copyFile(from, to);
  }

  const template = await fs.readFile(templateFile, 'utf8');
  const last = await takeRendered(contentPath, outDir);
  const results = await prerender(path.join(ssrDir, 'prerender.js'), {
    outDir,
    template,
    previous: last.stamps,
    lastPages: last.pages,
  });
  for (const result of results) for (const file of result.files) keep.add(file);
  await prune(outDir, keep);
  await keepRendered(
    contentPath,
    outDir,
    results.flatMap((r) => r.stamps),
  );
  endPhase('render+write');
  const refused = results.flatMap((r) => r.refused);
  return {
    outDir,
    pages: results.reduce((sum, r) => sum + r.pages, 0),
    rendered: results.reduce((sum, r) => sum + r.rendered, 0),
    rewritten: results.reduce((sum, r) => sum + r.rewritten, 0),
    durationMs: performance.now() - started,
    tokens,
    modulesDir,
    refused,
    phases,
  };
}
