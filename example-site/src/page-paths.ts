/**
 * Page URLs and the pages they name. Slugs and tags come from content, so a page's URL is made one
 * encoded segment at a time (a `?`, `#` or `%` in a slug is then part of the path, as its file is),
 * and a URL names the page of its decoded segments, empty ones and the trailing slash aside: `/de/`,
 * `//de` and `/de//` are one page, as they are one file.
 */

/** Half a character (JSON carries `\ud800`, and so can a slug or tag), which encodeURIComponent throws on. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A segment of a page URL, encoded; a lone surrogate as the replacement character, as its file's name has it. */
export const urlSegment = (segment: string): string => encodeURIComponent(segment.replace(LONE_SURROGATE, '\uFFFD'));

/** The URL of a site path (`/a b/c?d` is `/a%20b/c%3Fd/`): each segment encoded, empty ones left out. */
export function pageUrl(sitePath: string): string {
  const segments = sitePath.split('/').filter((s) => s !== '');
  return segments.length ? `/${segments.map(urlSegment).join('/')}/` : '/';
}

/** The decoded non-empty segments of a URL path; undefined when one does not decode. */
export function pageSegments(url: string): string[] | undefined {
  try {
    return url
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/** The longest file name common file systems take, in bytes. */
const MAX_NAME_BYTES = 255;
const utf8 = new TextEncoder();

/**
 * Why a decoded segment cannot be a folder or file of its own, if it cannot: `.` and `..` would
 * leave their folder, a separator or NUL would make more (or no) segments of one, and a file
 * system takes no name that long.
 */
export function segmentProblem(segment: string): string | undefined {
  if (segment === '.' || segment === '..') return `its segment "${segment}" would leave its folder`;
  if (/[/\\\0]/.test(segment)) return 'a segment holds a path separator or NUL once decoded';
  if (utf8.encode(segment).length > MAX_NAME_BYTES)
    return `a segment is longer than a file name may be (${MAX_NAME_BYTES} bytes)`;
  return undefined;
}

/** What tells the page a URL names (segments joined unambiguously); undefined when the URL does not decode. */
export function pageKey(url: string): string | undefined {
  const segments = pageSegments(url);
  return segments && JSON.stringify(segments);
}

/** Pages found by the URL a request names: never throws, whatever the pages' URLs or the request hold. */
export class PagesByUrl<T extends { url: string }> {
  readonly #byKey = new Map<string, T>();

  constructor(pages: Iterable<T>) {
    for (const page of pages) {
      const key = pageKey(page.url);
      if (key !== undefined && !this.#byKey.has(key)) this.#byKey.set(key, page);
    }
  }

  find(pathname: string): T | undefined {
    const key = pageKey(pathname);
    return key === undefined ? undefined : this.#byKey.get(key);
  }
}
