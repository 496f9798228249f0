/**
 * Renders and writes a share of the site's pages in a worker thread; the build starts one per core.
 * It is bundled with the server entry, so it runs as plain JavaScript: no TypeScript loader stands
 * between it and the 20,000 content modules it imports from disk. A page whose digest (what it is
 * made from, page-keys.ts) is the one it was last rendered with, and whose file is as that build
 * left it, is not rendered again.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import PQueue from 'p-queue';
import { clearLeftover, isPathError, PageOutsideOutput, pageFile } from './page-file.js';
import { PageKeys } from './page-keys.js';
import {
  describeRoute,
  fillTemplate,
  NOT_FOUND_URL,
  refusedRoutes,
  renderNotFound,
  renderRoute,
  routes,
  type Route,
} from './src/entry-server.js';

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
  /** What each page was last rendered with and left as (`pageStamp`), by URL (empty when none is known). */
  previous: ReadonlyMap<string, string>;
  /** The URLs of the pages the last finished build wrote (stamped or not), as far as known. */
  lastPages: ReadonlySet<string>;
}

export interface PrerenderResult {
  pages: number;
  /** Pages rendered (the others' digests were the ones they were last rendered with). */
  rendered: number;
  /** Pages whose file was written (the others were there with the same bytes). */
  rewritten: number;
  /** Every file written (absolute). */
  files: string[];
  /**
   * Pages not written (each one warned about): their URL would leave the output directory, another
   * page has their file (reported by shard 0), or their path cannot be a file there (page-file.ts).
   */
  refused: string[];
  /** What each page was rendered with and left as, by URL (see PrerenderTask.previous). */
  stamps: Array<[string, string]>;
}

/** What `read` gives of a file, or undefined when the file is not there. */
function unlessMissing<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * A page as rendered from `key` (page-keys.ts) and as its file is: a file that another writer
 * replaced since (the client build writes its template to the home page's, another site's build
 * may have written any) has another time or size, and the page is rendered again.
 */
function pageStamp(key: string, file: string): string | undefined {
  return unlessMissing(() => {
    const { size, mtimeMs } = statSync(file);
    return `${key} ${size} ${mtimeMs}`;
  });
}

/** Pages rendered at once (each may wait for its story module to load). */
const PAGE_CONCURRENCY = 16;

/**
 * Writes a page unless it is there with the same bytes (a rebuild of unchanged content rewrites
 * nothing: reading a page costs less than replacing it, and deploys that compare times upload only
 * what changed), making its folder only when it is missing. Synchronous: this thread has nothing
 * else to do meanwhile, and 29,000 small files cost less so. True when it wrote.
 */
function writePage(file: string, html: string): boolean {
  const bytes = Buffer.from(html);
  const there = unlessMissing(() => readFileSync(file));
  if (there?.equals(bytes)) return false;
  if (!there) mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return true;
}

async function prerender(task: PrerenderTask): Promise<PrerenderResult> {
  const all = routes();
  const keys = new PageKeys(path.dirname(fileURLToPath(import.meta.url)), task.template);
  const result: PrerenderResult = { pages: 0, rendered: 0, rewritten: 0, files: [], refused: [], stamps: [] };
  const refuse = (url: string, message: string): void => {
    result.refused.push(url);
    console.warn(`example-site: ${message}`);
  };
  // Every worker plans the same pages: one of them tells which were refused.
  if (task.shard === 0) for (const { url, message } of refusedRoutes()) refuse(url, message);
  /** The file of the page at `url`, or undefined (and the page refused) when it would leave the output. */
  const fileOf = (url: string): string | undefined => {
    try {
      return pageFile(task.outDir, url);
    } catch (error) {
      if (!(error instanceof PageOutsideOutput)) throw error;
      refuse(url, error.message);
      return undefined;
    }
  };
  /**
   * Renders the page of `route` (the not-found page for undefined) into `file` unless it is made from
   * what its file there was rendered from, and writes it unless unchanged.
   */
  const write = async (url: string, file: string, route: Route | undefined) => {
    const key = keys.of(route);
    let stamp = pageStamp(key, file);
    if (stamp !== undefined && task.previous.get(url) === stamp) return { stamp, rendered: false, written: false };
    const html = fillTemplate(task.template, await (route ? renderRoute(route) : renderNotFound('/404')));
    const written = writePage(file, html);
    // A page rendered to the bytes its file holds leaves the file, and so its stamp, as it was.
    if (written || stamp === undefined) stamp = pageStamp(key, file)!;
    return { stamp, rendered: true, written };
  };
  /** The files of pages at `urls` (those that have one). */
  const filesOf = (urls: Iterable<string>): Set<string> =>
    new Set(
      [...urls].flatMap((url) => {
        try {
          return [pageFile(task.outDir, url)];
        } catch {
          return [];
        }
      }),
    );
  /** The page files of the last build and of this one (every worker's), made when a page first finds something in its way. */
  let pages: { last: Set<string>; planned: Set<string> } | undefined;
  /** Writes the page, after clearing once what the last build left in its way (see clearLeftover). */
  const writeClearing = async (url: string, file: string, route: Route | undefined) => {
    try {
      return await write(url, file, route);
    } catch (error) {
      if (!isPathError(error)) throw error;
      pages ??= { last: filesOf(task.lastPages), planned: filesOf([...all.map((r) => r.url), NOT_FOUND_URL]) };
      if (!clearLeftover(task.outDir, file, pages)) throw error;
      return write(url, file, route);
    }
  };
  /** The page of `route` at `url`, refused with a warning when its path cannot be a file here. */
  const page = async (url: string, route: Route | undefined): Promise<void> => {
    const file = fileOf(url);
    if (file === undefined) return;
    let done: Awaited<ReturnType<typeof write>>;
    try {
      done = await writeClearing(url, file, route);
    } catch (error) {
      if (!isPathError(error)) throw error;
      const what = route ? describeRoute(route) : 'the not-found page';
      refuse(
        url,
        `not writing the page of ${what} at ${JSON.stringify(url)}: its file cannot be there (${error.message})`,
      );
      return;
    }
    // The counts are of the routes' pages (the not-found page is not one).
    const counted = route ? 1 : 0;
    result.pages += counted;
    if (done.rendered) result.rendered += counted;
    if (done.written) result.rewritten += counted;
    result.files.push(file);
    result.stamps.push([url, done.stamp]);
  };
  const queue = new PQueue({ concurrency: PAGE_CONCURRENCY });
  await queue.addAll(
    all
      .filter((route, i) => (route.kind === 'story' ? route.entry.id : i) % task.shards === task.shard)
      .map((route) => () => page(route.url, route)),
  );
  if (task.shard === 0) await page(NOT_FOUND_URL, undefined);
  return result;
}

parentPort?.postMessage(await prerender(workerData as PrerenderTask));
