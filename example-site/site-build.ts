/**
 * The example site's build: the client bundle and the server bundle through
 * Vite's `build()`, then one prerendered HTML page per route.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import PQueue from 'p-queue';
import { build, type Plugin } from 'vite';
import { PageOutsideOutput, pageFile } from './page-file.js';
import { siteConfig, siteRoot } from './vite.config.js';

export interface BuildOptions {
  /** Where the site goes; default example-site/dist. */
  outDir?: string;
  logLevel?: 'info' | 'warn' | 'error' | 'silent';
}

export interface BuildResult {
  outDir: string;
  pages: number;
  durationMs: number;
  /** The tokens of the embedded service used for this build (they must not appear in the output). */
  tokens: string[];
  /** Where the generated content modules are. */
  modulesDir: string;
  /** Pages not written because their URL would leave the output directory (each one warned about). */
  refused: string[];
}

/** Pages rendered and written at once: enough to keep both cores busy, few enough for any file limit. */
const PAGE_CONCURRENCY = 32;

/** The shape of the server bundle (src/entry-server.ts). */
type ServerEntry = typeof import('./src/entry-server.js');

export async function buildSite(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const outDir = path.resolve(options.outDir ?? path.join(siteRoot, 'dist'));
  const ssrDir = path.join(siteRoot, '.content', 'ssr');
  const logLevel = options.logLevel ?? 'warn';
  const { config, content } = siteConfig();
  const tokens: string[] = [];
  let modulesDir = '';
  const readTokens: Plugin = {
    name: 'example-site:service-tokens',
    renderStart() {
      const pipeline = content.api?.pipeline;
      const service = pipeline?.server?.service;
      if (service) tokens.push(service.publicToken, service.previewToken);
      if (pipeline) modulesDir = pipeline.modulesDir;
    },
  };

  // One plugin instance for both builds: the content is synced and compiled once.
  await build({
    ...config,
    logLevel,
    plugins: [...(config.plugins ?? []), readTokens],
    build: { outDir, emptyOutDir: true },
  });
  await build({
    ...config,
    logLevel: logLevel === 'info' ? 'warn' : logLevel,
    ssr: { noExternal: true },
    build: {
      ssr: 'src/entry-server.ts',
      outDir: ssrDir,
      emptyOutDir: true,
      // Pages are rendered on the server only: the images they use are emitted by this build.
      ssrEmitAssets: true,
      rolldownOptions: { output: { entryFileNames: 'entry-server.js', codeSplitting: false } },
    },
  });
  await fs
    .cp(path.join(ssrDir, 'assets'), path.join(outDir, 'assets'), { recursive: true, force: true })
    .catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });

  const templateFile = path.join(outDir, 'index.html');
  const template = await fs.readFile(templateFile, 'utf8');
  const entry = (await import(pathToFileURL(path.join(ssrDir, 'entry-server.js')).href)) as ServerEntry;
  const refused: string[] = [];
  const write = async (url: string, html: () => Promise<string>) => {
    let file: string;
    try {
      file = pageFile(outDir, url);
    } catch (error) {
      if (!(error instanceof PageOutsideOutput)) throw error;
      refused.push(url);
      console.warn(`example-site: ${error.message}`);
      return;
    }
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, await html());
  };
  const routes = entry.routes();
  const seen = new Set<string>();
  for (const route of routes) {
    if (seen.has(route.url)) throw new Error(`two pages at ${route.url}`);
    seen.add(route.url);
  }
  const contexts = new Map<string, ReturnType<typeof entry.pageContext>>();
  const contextOf = (lang: string) => contexts.get(lang) ?? contexts.set(lang, entry.pageContext(lang)).get(lang)!;
  // Bounded: one promise per page at once opened a file per page (EMFILE on large sites).
  const pages = new PQueue({ concurrency: PAGE_CONCURRENCY });
  await Promise.all(
    routes.map((route) =>
      pages.add(() =>
        write(route.url, async () =>
          entry.fillTemplate(template, await entry.renderRoute(route, await contextOf(route.lang))),
        ),
      ),
    ),
  );
  await write('/404.html', async () => entry.fillTemplate(template, await entry.renderNotFound('/404')));
  return {
    outDir,
    pages: routes.length - refused.length,
    durationMs: performance.now() - started,
    tokens,
    modulesDir,
    refused,
  };
}
