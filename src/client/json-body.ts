/**
 * JSON.parse of a response body from its bytes, the objects in its top-level arrays (a page's
 * stories) each decoded and parsed from their own bytes. A page decoded whole is one string of
 * hundreds of kilobytes, which V8 allocates apart from its young objects (large object space) at
 * several times the cost per byte of many small strings: decoding pages whole was about a fifth of
 * a sync's processor time. What is left once the objects are cut out (the envelope: the arrays'
 * other values, counts, cv) is parsed as it is, so JSON.parse still checks every byte; a body with
 * a top-level key twice, or not an object, is parsed whole.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Below this size a body is parsed whole: its string is a young object anyway. */
const SPLIT_FROM = 64 * 1024;

/** The end (exclusive) of the string whose opening quote is at `at`; -1 when it does not end. */
function stringEnd(b: Buffer, at: number): number {
  for (let i = b.indexOf(QUOTE, at + 1); i >= 0; i = b.indexOf(QUOTE, i + 1)) {
    let backslashes = 0;
    while (b[i - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i + 1;
  }
  return -1;
}

/** The end (exclusive) of the object or array that opens at `at`; -1 when it does not end. */
function valueEnd(b: Buffer, at: number): number {
  let depth = 0;
  for (let i = at; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) {
      i = stringEnd(b, i) - 1;
      if (i < 0) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return -1;
}

interface Cut {
  /** The body with each object of a top-level array replaced by 0. */
  envelope: string;
  /** The objects cut out: the top-level key of their array, their position in it, their value. */
  objects: Array<[key: string, at: number, value: unknown]>;
  /** How many top-level keys the body has (a key twice would leave fewer in the parsed envelope). */
  keys: number;
}

/** The body cut into its envelope and the objects of its top-level arrays; undefined when it is not an object. */
function cut(b: Buffer): Cut | undefined {
  const parts: string[] = [];
  const objects: Cut['objects'] = [];
  /** The containers open at this point, outermost first (the first three are all that matter). */
  const open: number[] = [];
  let key: string | undefined;
  let keys = 0;
  let expectKey = false;
  let at = 0;
  let from = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) {
      const end = stringEnd(b, i);
      if (end < 0) return undefined;
      if (open.length === 1 && expectKey) {
        key = JSON.parse(b.toString('utf8', i, end)) as string;
        keys++;
        expectKey = false;
      }
      i = end - 1;
    } else if (c === OPEN_BRACE && open.length === 2 && open[1] === OPEN_BRACKET) {
      const end = valueEnd(b, i);
      if (end < 0) return undefined;
      parts.push(b.toString('utf8', from, i), '0');
      objects.push([key!, at, JSON.parse(b.toString('utf8', i, end))]);
      from = end;
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (open.length === 0 && c !== OPEN_BRACE) return undefined;
      open.push(c);
      if (open.length === 1) expectKey = true;
      if (open.length === 2) at = 0;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      open.pop();
    } else if (c === COMMA) {
      if (open.length === 1) expectKey = true;
      else if (open.length === 2) at++;
    } else if (c === COLON && open.length === 1) {
      expectKey = false;
    }
  }
  parts.push(b.toString('utf8', from));
  return { envelope: parts.join(''), objects, keys };
}

/** What JSON.parse gives for the body's text (and the same SyntaxError when it is not JSON). */
export function parseJsonBody(b: Buffer): unknown {
  const whole = () => JSON.parse(b.toString('utf8')) as unknown;
  if (b.length < SPLIT_FROM) return whole();
  let pieces: Cut | undefined;
  try {
    pieces = cut(b);
  } catch {
    // An object or key that is not JSON: the whole body's parse says where.
    return whole();
  }
  if (!pieces?.objects.length) return whole();
  let envelope: unknown;
  try {
    envelope = JSON.parse(pieces.envelope);
  } catch {
    return whole();
  }
  const top = envelope as Record<string, unknown>;
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return whole();
  if (Object.keys(top).length !== pieces.keys) return whole();
  for (const [key, at, value] of pieces.objects) {
    const list = Object.hasOwn(top, key) ? top[key] : undefined;
    if (!Array.isArray(list) || list[at] !== 0) return whole();
    list[at] = value;
  }
  return envelope;
}
