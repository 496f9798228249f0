/**
 * Renders and writes a share of the site's pages in a worker thread; the build starts one per core.
 * It is bundled with the server entry, so it runs as plain JavaScript: no TypeScript loader stands
 * between it and the 20,000 content modules it imports from disk.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import PQueue from 'p-queue';
import { PageOutsideOutput, pageFile } from './page-file.js';
import { fillTemplate, renderNotFound, renderRoute, routes } from './src/entry-server.js';

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
  /** Pages whose file was written (the others were there with the same bytes). */
  rewritten: number;
  /** Every file written (absolute). */
  files: string[];
  /** Pages not written because their URL would leave the output directory (each one warned about). */
  refused: string[];
}

/** Pages rendered at once (each may wait for its story module to load). */
const PAGE_CONCURRENCY = 16;

/** The bytes of a page already written, or undefined when there is none. */
function written(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes a page unless it is there with the same bytes (a rebuild of unchanged content rewrites
 * nothing: reading a page costs less than replacing it, and deploys that compare times upload only
 * what changed), making its folder only when it is missing. Synchronous: this thread has nothing
 * else to do meanwhile, and 29,000 small files cost less so. True when it wrote.
 */
function writePage(file: string, html: string): boolean {
  const bytes = Buffer.from(html);
  const there = written(file);
  if (there?.equals(bytes)) return false;
  if (!there) mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return true;
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
  let rewritten = 0;
  const files: string[] = [];
  /** Whether the page is in the output (not refused), and whether its file was written now. */
  const write = async (url: string, html: () => Promise<string>): Promise<{ rewritten: boolean } | undefined> => {
    let file: string;
    try {
      file = pageFile(task.outDir, url);
    } catch (error) {
      if (!(error instanceof PageOutsideOutput)) throw error;
      refused.push(url);
      console.warn(`example-site: ${error.message}`);
      return undefined;
    }
    const rewrote = writePage(file, await html());
    files.push(file);
    return { rewritten: rewrote };
  };
  const queue = new PQueue({ concurrency: PAGE_CONCURRENCY });
  await queue.addAll(
    all
      .filter((route, i) => (route.kind === 'story' ? route.entry.id : i) % task.shards === task.shard)
      .map((route) => async () => {
        const page = async () => fillTemplate(task.template, await renderRoute(route));
        const result = await write(route.url, page);
        if (result) pages++;
        if (result?.rewritten) rewritten++;
      }),
  );
  if (task.shard === 0) await write('/404.html', async () => fillTemplate(task.template, await renderNotFound('/404')));
  return { pages, rewritten, files, refused };
}

parentPort?.postMessage(await prerender(workerData as PrerenderTask));
