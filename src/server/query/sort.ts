/**
 * `sort_by=attr[:asc|:desc][:int|:float],...`: a stable, multi-key sort.
 *
 * - attr is a story property (`name`, `position`, `published_at`, ...) or a
 *   dotted path into content (`content.seo.title`); any dotted path is read
 *   from the story root through own properties.
 * - Untyped content fields sort as strings (numbers by their JSON text, as the
 *   service sorts the text of a JSON field). Untyped story properties keep
 *   their type: numbers numerically, strings by text. Timestamps are ISO
 *   strings and sort by text, which is chronological.
 * - `:int` / `:float` sort numbers and numeric strings numerically (without
 *   truncation); values that are not numbers count as missing.
 * - Strings compare by UTF-16 code units (like a database "C" collation): fast,
 *   deterministic and locale-independent; upper case sorts before lower case.
 * - Missing, null, objects and arrays sort last in both directions.
 * - Equal keys keep their input order.
 *
 * Numeric columns (and columns of uniformly shaped timestamps) of large inputs
 * are ordered by radix passes instead of a comparison sort: 100,000 keys in a
 * few milliseconds.
 */
import type { Story } from '../../api/index.js';
import { QueryError, shown } from './errors.js';
import { parseInstant, pathReader, scalarText, toNumber } from './values.js';

export interface SortKey {
  readonly attribute: string;
  readonly path: readonly string[];
  readonly descending: boolean;
  /** `text`: compare as strings; `number`: `:int` / `:float`; `natural`: keep the JSON type. */
  readonly type: 'text' | 'number' | 'natural';
}

const USAGE = 'use attribute:asc|desc[:int|:float], comma-separated';
/** More keys than anyone sorts by; each costs a pass over every candidate, so thousands would stall the service. */
export const MAX_SORT_KEYS = 32;

export function parseSortBy(sortBy: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const item of sortBy.split(',')) {
    if (item.trim() === '') continue;
    if (keys.length >= MAX_SORT_KEYS) throw new QueryError(`sort_by: more than ${MAX_SORT_KEYS} keys; ${USAGE}`);
    const [attribute = '', ...modifiers] = item.split(':');
    const path = attribute.split('.');
    if (attribute === '' || path.some((p) => p === '')) {
      throw new QueryError(`sort_by: empty attribute in "${shown(item)}"; ${USAGE}`);
    }
    let descending = false;
    let typed = false;
    let seenDirection = false;
    for (const m of modifiers) {
      if ((m === 'asc' || m === 'desc') && !seenDirection && !typed) {
        descending = m === 'desc';
        seenDirection = true;
      } else if ((m === 'int' || m === 'float') && !typed) {
        typed = true;
      } else {
        throw new QueryError(`sort_by: unexpected "${shown(m)}" in "${shown(item)}"; ${USAGE}`);
      }
    }
    const type = typed ? 'number' : path[0] === 'content' ? 'text' : 'natural';
    keys.push({ attribute, path, descending, type });
  }
  return keys;
}

type Key = string | number | null;

function keyOf(value: unknown, key: SortKey): Key {
  switch (key.type) {
    case 'number': {
      const n = toNumber(value);
      return Number.isNaN(n) ? null : n;
    }
    case 'text':
      return scalarText(value);
    default:
      if (typeof value === 'number') return Number.isFinite(value) ? value : null;
      return scalarText(value);
  }
}

function compareKeys(a: Key, b: Key, descending: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  let order: number;
  if (typeof a === 'number' && typeof b === 'number') {
    order = a < b ? -1 : a > b ? 1 : 0;
  } else {
    const x = typeof a === 'string' ? a : String(a);
    const y = typeof b === 'string' ? b : String(b);
    order = x < y ? -1 : x > y ? 1 : 0;
  }
  return descending ? -order : order;
}

/** Returns a new array sorted by `keys`; `items` is not changed. */
export function sortByKeys<T>(items: readonly T[], storyOf: (item: T) => Story, keys: readonly SortKey[]): T[] {
  const n = items.length;
  if (keys.length === 0 || n < 2) return items.slice();
  const columns = keys.map((key) => {
    const read = pathReader(key.path);
    const column: Key[] = [];
    for (let i = 0; i < n; i++) column.push(keyOf(read(storyOf(items[i]!)), key));
    return numericColumn(column) ?? column;
  });
  const order =
    n >= RADIX_THRESHOLD && LITTLE_ENDIAN && columns.every((c) => c instanceof Float64Array)
      ? radixOrder(columns as Float64Array[], keys)
      : comparisonOrder(columns, keys, n);
  const sorted: T[] = [];
  for (let i = 0; i < n; i++) sorted.push(items[order[i]!]!);
  return sorted;
}

function comparisonOrder(
  columns: readonly (Key[] | Float64Array)[],
  keys: readonly SortKey[],
  n: number,
): ArrayLike<number> {
  const order: number[] = [];
  for (let i = 0; i < n; i++) order.push(i);
  const plain = columns.map((c) =>
    c instanceof Float64Array ? Array.from(c, (x) => (Number.isNaN(x) ? null : x)) : c,
  );
  if (keys.length === 1) {
    const column = plain[0]!;
    const descending = keys[0]!.descending;
    order.sort((a, b) => compareKeys(column[a] as Key, column[b] as Key, descending) || a - b);
  } else {
    order.sort((a, b) => {
      for (let k = 0; k < plain.length; k++) {
        const column = plain[k]!;
        const c = compareKeys(column[a] as Key, column[b] as Key, keys[k]!.descending);
        if (c !== 0) return c;
      }
      return a - b;
    });
  }
  return order;
}

/**
 * The column as numbers (NaN for missing) when every present value is a number,
 * or when every present value is a timestamp string of one fixed shape (same
 * length, separator and zone, no offset): their text order is their
 * chronological order, so comparing instants gives the same result faster.
 * Otherwise null.
 */
function numericColumn(column: readonly Key[]): Float64Array | null {
  const out = new Float64Array(column.length);
  let shape = -1;
  let numbers = false;
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    if (v === null || v === undefined) {
      out[i] = Number.NaN;
    } else if (typeof v === 'number') {
      if (shape !== -1) return null;
      numbers = true;
      out[i] = v === 0 ? 0 : v;
    } else {
      if (numbers) return null;
      const s = timestampShape(v);
      if (s < 0 || (shape !== -1 && s !== shape)) return null;
      shape = s;
      const t = parseInstant(v);
      if (Number.isNaN(t)) return null;
      out[i] = t;
    }
  }
  return out;
}

/** `YYYY-mm-dd HH:MM...` without an offset: a number for its length, separator
 * and whether it ends in Z; -1 for anything else. */
function timestampShape(v: string): number {
  if (v.length < 16 || v.length > 24 || v.charCodeAt(4) !== 45 || v.charCodeAt(13) !== 58) return -1;
  const last = v.charCodeAt(v.length - 1);
  if (last !== 90 && (last < 48 || last > 57)) return -1;
  // After the minutes only seconds and a fraction: an offset (`+0100`, `-01:00`) makes text order differ from time order.
  for (let i = 16; i < v.length - 1; i++) {
    const c = v.charCodeAt(i);
    if (c !== 58 && c !== 46 && (c < 48 || c > 57)) return -1;
  }
  return v.length * 1024 + v.charCodeAt(10) * 2 + (last === 90 ? 1 : 0);
}

/** Below this size a comparison sort is as fast as radix passes. */
const RADIX_THRESHOLD = 512;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const DIGIT_BITS = 16;
const DIGITS = 1 << DIGIT_BITS;

/**
 * Stable argsort of numeric columns by least-significant-digit radix passes
 * (four 16-bit digits per key, last key first). Each double is mapped to an
 * unsigned 64-bit pattern in the same order; descending inverts it; missing
 * values take the largest pattern so they stay last in both directions.
 */
function radixOrder(columns: readonly Float64Array[], keys: readonly SortKey[]): Uint32Array {
  const n = columns[0]!.length;
  let order = new Uint32Array(n);
  let spare = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  const counts = new Uint32Array(DIGITS);
  for (let k = keys.length - 1; k >= 0; k--) {
    const words = new Uint32Array(columns[k]!.buffer);
    const descending = keys[k]!.descending;
    for (let i = 0; i < n; i++) {
      let l = words[2 * i]!;
      let h = words[2 * i + 1]!;
      if (Number.isNaN(columns[k]![i]!)) {
        h = 0xffffffff;
        l = 0xffffffff;
      } else {
        if (h & 0x80000000) {
          h = ~h >>> 0;
          l = ~l >>> 0;
        } else {
          h = (h | 0x80000000) >>> 0;
        }
        if (descending) {
          h = ~h >>> 0;
          l = ~l >>> 0;
        }
      }
      hi[i] = h;
      lo[i] = l;
    }
    for (const [word, shift] of [
      [lo, 0],
      [lo, DIGIT_BITS],
      [hi, 0],
      [hi, DIGIT_BITS],
    ] as const) {
      counts.fill(0);
      for (let i = 0; i < n; i++) {
        const digit = (word[i]! >>> shift) & (DIGITS - 1);
        counts[digit] = counts[digit]! + 1;
      }
      if (counts[(word[0]! >>> shift) & (DIGITS - 1)] === n) continue;
      let sum = 0;
      for (let d = 0; d < DIGITS; d++) {
        const c = counts[d]!;
        counts[d] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) {
        const index = order[i]!;
        const digit = (word[index]! >>> shift) & (DIGITS - 1);
        const slot = counts[digit]!;
        counts[digit] = slot + 1;
        spare[slot] = index;
      }
      [order, spare] = [spare, order];
    }
  }
  return order;
}
