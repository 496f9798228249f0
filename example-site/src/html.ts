/** HTML string helpers: every text that comes from content goes through `esc`. */

export function esc(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Attributes from a record; undefined, null and false are left out, true is a bare attribute. */
export function attrs(record: Record<string, string | number | boolean | null | undefined>): string {
  let out = '';
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || value === null || value === false) continue;
    out += value === true ? ` ${key}` : ` ${key}="${esc(value)}"`;
  }
  return out;
}

/** Joins the parts that are strings; skips empty ones. */
export function join(parts: ReadonlyArray<string | false | null | undefined>, separator = ''): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(separator);
}
