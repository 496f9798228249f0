/**
 * Canonical JSON: object keys sorted, two-space indentation, a final newline.
 * The same value always gives the same bytes, so digests are stable and files
 * diff cleanly.
 */
import { hash } from 'node:crypto';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // No prototype: a key named `__proto__` (a datasource dimension, say) stays a key.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function canonicalJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** How many objects and arrays deep a JSON value goes, counted without recursion (for errors about deep content). */
export function nestingDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, depth + 1);
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
  }
  return max;
}

/**
 * How deep the content of a story may nest in what the local service holds: far beyond any real
 * space (a few dozen levels), and within what the service's walks (publishing, resolving,
 * serializing) and a compile can follow. The control plane refuses deeper content, and so does
 * the reading of a space directory.
 */
export const MAX_CONTENT_NESTING = 1000;

/** Whether a JSON value nests more than `limit` objects and arrays deep (a walk never deeper than `limit`). */
export function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (const x of value) if (x !== null && typeof x === 'object' && deeperThan(x, limit - 1)) return true;
    return false;
  }
  // for...in: no array of the values made for each of the many objects of a space.
  for (const k in value) {
    const x = (value as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object' && deeperThan(x, limit - 1)) return true;
  }
  return false;
}

/** Whether an error is V8's stack overflow, which content nested thousands of levels deep causes in a recursive walk. */
export const isStackOverflow = (err: unknown): err is RangeError =>
  err instanceof RangeError && /call stack/i.test(err.message);

export function sha256(text: string | Uint8Array): string {
  // One-shot: cheaper than a Hash object for the many small files hashed.
  return hash('sha256', text, 'hex');
}

/** A value JSON.stringify writes under an object key (undefined, functions and symbols it leaves out). */
const shown = (v: unknown): boolean => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

/**
 * Whether two values have the same JSON text: with `ordered`, the text of JSON.stringify (keys in
 * their order); without, the canonical text (keys sorted, see canonicalJson). Compared in place,
 * without building either text: a sync compares every language of every story this way.
 */
export function sameJson(a: unknown, b: unknown, ordered = false): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    // Two primitives can still print alike (NaN and null, say); an object never prints like one.
    if ((typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null)) return false;
    return JSON.stringify(a) === JSON.stringify(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    // In an array, what an object would leave out prints as null.
    for (let i = 0; i < a.length; i++)
      if (!sameJson(shown(a[i]) ? a[i] : null, shown(b[i]) ? b[i] : null, ordered)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const xKeys = Object.keys(x).filter((k) => shown(x[k]));
  const yKeys = Object.keys(y).filter((k) => shown(y[k]));
  if (xKeys.length !== yKeys.length) return false;
  for (let i = 0; i < xKeys.length; i++) {
    const k = xKeys[i]!;
    if (ordered ? yKeys[i] !== k : !Object.hasOwn(y, k) || !shown(y[k])) return false;
    if (!sameJson(x[k], y[k], ordered)) return false;
  }
  return true;
}
