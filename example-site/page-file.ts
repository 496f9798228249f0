/**
 * Where a prerendered page is written. Page URLs come from content (slugs, tags), so a URL is turned
 * into a file path one decoded segment at a time, and only a path inside the output directory is
 * accepted: a tag `../../x` or a slug `..` must never write outside `dist/`.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { segmentProblem } from './src/page-paths.js';

export class PageOutsideOutput extends Error {
  constructor(
    readonly url: string,
    why: string,
  ) {
    super(`refusing to write the page at ${JSON.stringify(url)}: ${why}`);
    this.name = 'PageOutsideOutput';
  }
}

/**
 * Errors that say a page's path cannot be a file here: a folder on the way is a file (a slug
 * `index.html`, or the name of a built asset), the file is a folder, a segment is too long or a name
 * the file system takes no such bytes for. They are the page's, not the build's: the page is
 * refused and the others written; any other error (a full disk, no permission) stops the build.
 */
const PATH_ERRORS = new Set(['ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'EEXIST', 'EINVAL', 'EILSEQ']);

/** Whether `error` tells that a page's path cannot be written, rather than that writing failed. */
export const isPathError = (error: unknown): error is NodeJS.ErrnoException =>
  PATH_ERRORS.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');

/** The file of the page at `url` inside `outDir` (`/a/b/` is `a/b/index.html`, `/404.html` itself). */
export function pageFile(outDir: string, url: string): string {
  let segments: string[];
  try {
    segments = url.split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw new PageOutsideOutput(url, 'it is not a well-formed URL path');
  }
  const parts = segments.filter((s) => s !== '');
  for (const part of parts) {
    const problem = segmentProblem(part);
    if (problem) throw new PageOutsideOutput(url, problem);
  }
  const root = path.resolve(outDir);
  const file = path.resolve(root, ...parts, url.endsWith('.html') ? '' : 'index.html');
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    throw new PageOutsideOutput(url, `it resolves outside ${root}`);
  return file;
}

/**
 * Clears what an earlier build left where the page file `file` must go, when it is pages this build
 * does not write: a page file where a folder must be (a start page unpublished and a slug
 * `index.html` published in its folder), or a folder of such pages where the file must be (the
 * other way back). A build from nothing would write the page; so must a build over the last output.
 * Anything else in the way (a built asset, a file the client build copied, a page this build writes)
 * is left, and the page refused. `pages`: the page files of the last build (`last`) and of this
 * one (`planned`). True when the way is clear (another worker may have cleared it first), so that
 * writing again is worth it.
 */
export function clearLeftover(
  outDir: string,
  file: string,
  pages: { last: ReadonlySet<string>; planned: ReadonlySet<string> },
): boolean {
  const root = path.resolve(outDir);
  const stale = (f: string) => pages.last.has(f) && !pages.planned.has(f);
  try {
    // The nearest entry on the way that exists: a folder (the way is clear up to the file), or a file.
    for (let at = path.dirname(file); at.length > root.length; at = path.dirname(at)) {
      const stat = statSync(at, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) break;
      if (!stat.isFile() || !stale(at)) return false;
      rmSync(at, { force: true });
      return true;
    }
    if (!statSync(file, { throwIfNoEntry: false })?.isDirectory()) return true;
    const inside = readdirSync(file, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory());
    if (!inside.every((e) => e.isFile() && stale(path.join(e.parentPath, e.name)))) return false;
    rmSync(file, { recursive: true, force: true });
    return true;
  } catch (error) {
    // Cleared meanwhile by another worker.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}
