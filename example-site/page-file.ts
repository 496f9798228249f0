/**
 * Where a prerendered page is written. Page URLs come from content (slugs, tags), so a URL is turned
 * into a file path one decoded segment at a time, and only a path inside the output directory is
 * accepted: a tag `../../x` or a slug `..` must never write outside `dist/`.
 */
import path from 'node:path';

export class PageOutsideOutput extends Error {
  constructor(
    readonly url: string,
    why: string,
  ) {
    super(`refusing to write the page at ${JSON.stringify(url)}: ${why}`);
    this.name = 'PageOutsideOutput';
  }
}

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
    if (part === '.' || part === '..') throw new PageOutsideOutput(url, `its segment "${part}" would leave its folder`);
    if (/[/\\\0]/.test(part)) throw new PageOutsideOutput(url, 'a segment holds a path separator or NUL once decoded');
  }
  const root = path.resolve(outDir);
  const file = path.resolve(root, ...parts, url.endsWith('.html') ? '' : 'index.html');
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    throw new PageOutsideOutput(url, `it resolves outside ${root}`);
  return file;
}
