/**
 * sameJson answers what comparing the texts would (canonicalJson without `ordered`, JSON.stringify
 * with it), for the values a sync compares and for the corners of JSON's rules: keys left out
 * (undefined, functions), holes printed as null, numbers that print alike, an own `__proto__` key.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from '../../src/snapshot/json.js';
import { Prng } from '../sync/support.js';

const byText = (a: unknown, b: unknown, ordered: boolean) =>
  ordered ? JSON.stringify(a) === JSON.stringify(b) : canonicalJson(a) === canonicalJson(b);

/** A random JSON-like value, small enough that two of them are often alike. */
function value(rng: Prng, depth = 0): unknown {
  const kind = rng.int(0, depth > 2 ? 4 : 7);
  switch (kind) {
    case 0:
      return rng.pick([0, -0, 1, 2.5, Number.NaN, Number.POSITIVE_INFINITY]);
    case 1:
      return rng.pick(['', 'a', 'b', 'ü', '"']);
    case 2:
      return rng.pick([true, false]);
    case 3:
      return null;
    case 4:
      return rng.pick([undefined, () => 1]);
    case 5:
    case 6: {
      const o: Record<string, unknown> = {};
      for (let n = rng.int(0, 3); n > 0; n--) o[rng.pick(['a', 'b', 'c', '1', 'content'])] = value(rng, depth + 1);
      return o;
    }
    default:
      return Array.from({ length: rng.int(0, 3) }, () => value(rng, depth + 1));
  }
}

/** The same value with its keys in another order (so canonical texts match where plain ones may not). */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reordered(x)]),
  );
}

describe('sameJson', () => {
  it.each([
    [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ],
    [{ a: 1, b: undefined }, { a: 1 }],
    [{ a: 1, f: () => 1 }, { a: 1 }],
    [[undefined], [null]],
    [[() => 1], [null]],
    [Number.NaN, null],
    [-0, 0],
    [{ x: Number.POSITIVE_INFINITY }, { x: null }],
    [{ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }],
    [{ a: {} }, { a: [] }],
    [{ a: 1 }, { a: '1' }],
    [JSON.parse('{"__proto__": {"a": 1}}'), {}],
    [JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 1}}')],
    [JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 2}}')],
    [{ a: 1 }, { a: 1, b: 2 }],
    [
      [1, 2],
      [1, 2, 3],
    ],
  ])('%j and %j: as their texts say', (a, b) => {
    for (const ordered of [false, true]) expect(sameJson(a, b, ordered)).toBe(byText(a, b, ordered));
  });

  it('agrees with the texts on thousands of random pairs, alike and not', () => {
    const rng = new Prng(29);
    let alike = 0;
    for (let i = 0; i < 5_000; i++) {
      const a = value(rng);
      const b = rng.int(0, 1) ? reordered(a) : value(rng);
      for (const ordered of [false, true]) {
        const expected = byText(a, b, ordered);
        if (sameJson(a, b, ordered) !== expected)
          throw new Error(`sameJson(${JSON.stringify(a)}, ${JSON.stringify(b)}, ${ordered}) is not ${expected}`);
        if (expected) alike++;
      }
    }
    // Both answers came up many times.
    expect(alike).toBeGreaterThan(1_000);
    expect(alike).toBeLessThan(9_000);
  });
});
