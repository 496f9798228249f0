/**
 * Where a prerendered page is written. Page URLs come from content (slugs, tags), so a URL is turned
 * into a file path one decoded segment at a time, and only a path inside the output directory is
 * accepted: a tag `../../x` or a slug `..` must never write outside `dist/`.
 */
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
