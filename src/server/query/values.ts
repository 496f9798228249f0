/**
 * Small, allocation-free helpers shared by filters and sorting: reading a
 * dotted path out of plain JSON data, numbers in strings, `*` wildcards and
 * timestamps.
 */

/**
 * Whether reading `key` with plain property access could find something
 * other than an own property of JSON data (objects and arrays from
 * JSON.parse, whose prototypes are Object.prototype and Array.prototype):
 * `__proto__`, `constructor`, `toString`, `length`, `map`, ... Such keys are
 * read through Object.hasOwn; all others with a plain (faster) read.
 */
export function isInheritedName(key: string): boolean {
  return key in Object.prototype || key in Array.prototype;
}

/** Reads one own property of a JSON object or array; undefined when missing. */
export function readOwn(value: unknown, key: string, inherited: boolean): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  if (inherited && !Object.hasOwn(value, key)) return undefined;
  return (value as Record<string, unknown>)[key];
}

/** Follows `path` through own properties only (`__proto__`, `constructor`
 * and friends are never read from the prototype chain). Missing: undefined. */
export function readPath(root: unknown, path: readonly string[]): unknown {
  let value: unknown = root;
  for (let i = 0; i < path.length; i++) {
    if (value === null || typeof value !== 'object') return undefined;
    const key = path[i]!;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A compiled reader for one path, for hot loops. */
export function pathReader(path: readonly string[]): (root: unknown) => unknown {
  const keys = [...path];
  const inherited = keys.map(isInheritedName);
  if (keys.length === 1) {
    const key = keys[0]!;
    const risky = inherited[0]!;
    return (root) => readOwn(root, key, risky);
  }
  return (root) => {
    let value = root;
    for (let i = 0; i < keys.length && value !== undefined; i++) value = readOwn(value, keys[i]!, inherited[i]!);
    return value;
  };
}

/** Unambiguous (backtracking-safe) decimal number, optional exponent. */
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const MAX_NUMERIC_LENGTH = 400;

/** A finite JSON number, or a string holding one; anything else is NaN. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : Number.NaN;
  if (typeof value === 'string' && value.length <= MAX_NUMERIC_LENGTH && NUMERIC.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : Number.NaN;
  }
  return Number.NaN;
}

/** How a scalar compares as text: strings as they are, numbers and booleans
 * in their JSON spelling. null for null, missing, objects and arrays. */
export function scalarText(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return String(value);
    default:
      return null;
  }
}

/** A `*` wildcard pattern (`*` matches any run of characters, including `/`;
 * nothing else is special). Compiled once; matching is linear-time apart from
 * `indexOf`, so hostile patterns cannot cause catastrophic backtracking. */
export function compileWildcard(pattern: string): (text: string) => boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return (text) => text === pattern;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p !== '');
  let minLength = first.length + last.length;
  for (const p of middle) minLength += p.length;
  return (text) => {
    if (text.length < minLength || !text.startsWith(first) || !text.endsWith(last)) return false;
    let pos = first.length;
    const end = text.length - last.length;
    for (let i = 0; i < middle.length; i++) {
      const part = middle[i]!;
      const at = text.indexOf(part, pos);
      if (at < 0 || at + part.length > end) return false;
      pos = at + part.length;
    }
    return true;
  };
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digitsAt(s: string, at: number, count: number): number {
  if (at + count > s.length) return -1;
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * Milliseconds since the epoch of `YYYY-mm-dd`, `YYYY-mm-dd HH:MM`, with
 * optional `:SS` and fraction, `T` instead of the space, and an optional `Z`
 * or `+HH:MM` / `-HHMM` offset. Without an offset the time is UTC (the service
 * stores and compares UTC). NaN for anything else. Allocation-free.
 */
export function parseInstant(s: string): number {
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45)
    return Number.NaN;
  if (day > DAYS_IN_MONTH[month - 1]! || (month === 2 && day === 29 && !isLeap(year))) return Number.NaN;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let millis = 0;
  let offset = 0;
  let i = 10;
  if (i < s.length) {
    const sep = s.charCodeAt(i);
    if (sep !== 32 && sep !== 84 && sep !== 116) return Number.NaN;
    hour = digitsAt(s, 11, 2);
    minute = digitsAt(s, 14, 2);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || s.charCodeAt(13) !== 58) return Number.NaN;
    i = 16;
    if (s.charCodeAt(i) === 58) {
      second = digitsAt(s, 17, 2);
      if (second < 0 || second > 59) return Number.NaN;
      i = 19;
      if (s.charCodeAt(i) === 46) {
        i++;
        const start = i;
        let scale = 100;
        while (i < s.length) {
          const c = s.charCodeAt(i) - 48;
          if (c < 0 || c > 9) break;
          millis += c * scale;
          scale /= 10;
          i++;
        }
        if (i === start) return Number.NaN;
        millis = Math.floor(millis);
      }
    }
    if (i < s.length) {
      const zone = s.charCodeAt(i);
      if (zone === 90 || zone === 122) {
        i++;
      } else if (zone === 43 || zone === 45) {
        const oh = digitsAt(s, i + 1, 2);
        const colon = s.charCodeAt(i + 3) === 58 ? 1 : 0;
        const om = digitsAt(s, i + 3 + colon, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59) return Number.NaN;
        offset = (zone === 45 ? -1 : 1) * (oh * 60 + om) * 60_000;
        i += 5 + colon;
      } else {
        return Number.NaN;
      }
    }
    if (i !== s.length) return Number.NaN;
  }
  return (daysFromCivil(year, month, day) * 24 + hour) * 3_600_000 + minute * 60_000 + second * 1000 + millis - offset;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
