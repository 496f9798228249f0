/**
 * Which link URLs from content may be put in an `href`. Escaping keeps a URL inside its attribute
 * but does not stop a `javascript:` URL from running on click, so only web, mail and phone URLs and
 * paths on this site are linked. The URL is read by the WHATWG parser, as a browser reads it: what
 * is checked is what a click would open, whatever the case, spaces, tabs or control characters.
 */

const SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:']);

/** Two bases of different schemes and hosts: a URL that takes either from its base has none of its own. */
const BASE_A = 'https://a.invalid/';
const BASE_B = 'http://b.invalid/';

function parse(href: string, base: string): URL | undefined {
  try {
    return new URL(href, base);
  } catch {
    return undefined;
  }
}

/**
 * `href` when a link to it is safe to render: an http(s), mailto or tel URL, or a path, fragment or
 * query on this site; undefined for any other scheme (`javascript:`, `data:`, ...) and for a URL
 * that names another host without a scheme (`//host`, `/\host`).
 */
export function safeHref(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  const a = parse(href, BASE_A);
  const b = parse(href, BASE_B);
  if (!a || !b) return undefined;
  // Relative: it took its scheme from the base. Then it must take the host too.
  if (a.protocol !== b.protocol) return a.host === 'a.invalid' && b.host === 'b.invalid' ? href : undefined;
  return SCHEMES.has(a.protocol) ? href : undefined;
}
