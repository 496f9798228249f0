/**
 * One page per file, decided before any page is rendered. Each page's URL names a file (`/a/` is
 * `a/index.html`, `/404.html` itself), and two pages clash when they name the same file, or when one
 * page's file would be a folder on the way to another's (a slug `index.html` beside the home page).
 * (Names are compared as a case-insensitive file system would: see `key`.)
 * Pages are taken in the order given (the site's own pages first, then stories in a fixed order);
 * a page that clashes with one taken before is refused, whatever worker would have written last,
 * as is a page no file can be written for (a tag `a/b`, a slug `..`): links then leave them out.
 */
import { pageSegments, segmentProblem } from './page-paths.js';

export interface PlannedPage<T> {
  url: string;
  /** What the page is, for messages: `story 610000027`, `tag "news"`. */
  what: string;
  page: T;
}

export interface RefusedPage {
  url: string;
  /** Why, naming the page and the one it clashed with. */
  message: string;
}

/** The path of a page's file, segment by segment, as page-file.ts makes it (`/a/` is a/index.html, `/404.html` itself). */
function fileOf(url: string): string[] {
  const segments = pageSegments(url)!;
  return url.endsWith('.html') ? segments : [...segments, 'index.html'];
}

/** Why no file can be written at a URL (page-file.ts refuses it too), if none can. */
function pathProblem(url: string): string | undefined {
  const segments = pageSegments(url);
  if (!segments) return 'it is not a well-formed URL path';
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

/** The folders a file is in, outermost first (`a/b/index.html` is in `a` and `a/b`). */
const foldersOf = (file: string[]): string[][] => file.slice(0, -1).map((_, i) => file.slice(0, i + 1));

/**
 * A file's claim, the same for names a file system may take for one file: case-insensitive ones
 * (macOS, Windows) hold `About` and `about` as one name, and some do the two Unicode spellings of
 * an accent. Folded, a clash is refused on every machine alike, not decided by the last writer there.
 */
const key = (segments: string[]): string => JSON.stringify(segments.map((s) => s.normalize('NFC').toLowerCase()));

/** What each file and folder is taken by, so that a page later in line finds what it clashes with. */
class Claims<T> {
  readonly #files = new Map<string, PlannedPage<T>>();
  readonly #folders = new Map<string, PlannedPage<T>>();

  /** The page taken before that `file` clashes with, if any. */
  clash(file: string[]): PlannedPage<T> | undefined {
    const own = key(file);
    const taken = this.#files.get(own) ?? this.#folders.get(own);
    return (
      taken ??
      foldersOf(file)
        .map((folder) => this.#files.get(key(folder)))
        .find((page) => page)
    );
  }

  take(file: string[], page: PlannedPage<T>): void {
    this.#files.set(key(file), page);
    for (const folder of foldersOf(file)) if (!this.#folders.has(key(folder))) this.#folders.set(key(folder), page);
  }
}

/** The pages that get their file (in the order given) and the ones refused for a clash. */
export function planPages<T>(candidates: Iterable<PlannedPage<T>>): {
  pages: PlannedPage<T>[];
  refused: RefusedPage[];
} {
  const claims = new Claims<T>();
  const pages: PlannedPage<T>[] = [];
  const refused: RefusedPage[] = [];
  for (const candidate of candidates) {
    const unwritable = pathProblem(candidate.url);
    if (unwritable) {
      refused.push({
        url: candidate.url,
        message: `not writing the page of ${candidate.what} at ${JSON.stringify(candidate.url)}: ${unwritable}`,
      });
      continue;
    }
    const file = fileOf(candidate.url);
    const clash = claims.clash(file);
    if (clash) {
      refused.push({
        url: candidate.url,
        message: `not writing the page of ${candidate.what} at ${JSON.stringify(candidate.url)}: it clashes with ${clash.what} at ${JSON.stringify(clash.url)}`,
      });
      continue;
    }
    claims.take(file, candidate);
    pages.push(candidate);
  }
  return { pages, refused };
}
