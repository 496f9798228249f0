/**
 * Renders and writes a share of the site's pages in a worker thread; the build starts one per core.
 * It is bundled with the server entry, so it runs as plain JavaScript: no TypeScript loader stands
 * between it and the 20,000 content modules it imports from disk.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import PQueue from 'p-queue';
import { PageOutsideOutput, pageFile } from './page-file.js';
import { fillTemplate, pageContext, renderNotFound, renderRoute, routes } from './src/entry-server.js';

/** What a worker is given (as its workerData). */
export interface PrerenderTask {
  outDir: string;
  /** index.html after the client build. */
  template: string;
  /**
   * This worker renders the pages of the stories whose id modulo `shards` is `shard` (every
   * language of a story in one worker: they import the same module, which each worker would load
   * otherwise) and the other routes whose position modulo `shards` is; shard 0 adds the 404 page.
   */
  shard: number;
  shards: number;
}

export interface PrerenderResult {
  pages: number;
  /** Every file written (absolute). */
  files: string[];
  /** Pages not written because their URL would leave the output directory (each one warned about). */
  refused: string[];
}

/** Pages rendered at once (each may wait for its story module to load). */
const PAGE_CONCURRENCY = 16;

/**
 * Writes a page, making its folder only when it is missing (a rebuild finds them all there).
 * Synchronous: this thread has nothing else to do meanwhile, and 29,000 small writes cost less so.
 */
function writePage(file: string, html: string): void {
  try {
    writeFileSync(file, html);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, html);
  }
}

async function prerender(task: PrerenderTask): Promise<PrerenderResult> {
  const all = routes();
  const seen = new Set<string>();
  for (const route of all) {
    if (seen.has(route.url)) throw new Error(`two pages at ${route.url}`);
    seen.add(route.url);
  }
  const refused: string[] = [];
  let pages = 0;
  const files: string[] = [];
  /** Whether the page was written (not refused). */
  const write = async (url: string, html: () => Promise<string>): Promise<boolean> => {
    let file: string;
    try {
      file = pageFile(task.outDir, url);
    } catch (error) {
      if (!(error instanceof PageOutsideOutput)) throw error;
      refused.push(url);
      console.warn(`example-site: ${error.message}`);
      return false;
    }
    writePage(file, await html());
    files.push(file);
    return true;
  };
  const contexts = new Map<string, ReturnType<typeof pageContext>>();
  const contextOf = (lang: string) => contexts.get(lang) ?? contexts.set(lang, pageContext(lang)).get(lang)!;
  const queue = new PQueue({ concurrency: PAGE_CONCURRENCY });
  await queue.addAll(
    all
      .filter((route, i) => (route.kind === 'story' ? route.entry.id : i) % task.shards === task.shard)
      .map((route) => async () => {
        const page = async () => fillTemplate(task.template, await renderRoute(route, await contextOf(route.lang)));
        if (await write(route.url, page)) pages++;
      }),
  );
  if (task.shard === 0) await write('/404.html', async () => fillTemplate(task.template, await renderNotFound('/404')));
  return { pages, files, refused };
}

parentPort?.postMessage(await prerender(workerData as PrerenderTask));
