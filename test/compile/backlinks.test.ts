import { describe, expect, it } from 'vitest';
import { BacklinkGatherer } from '../../src/compile/backlinks.js';
import { backlinksChunk, chunkOfUuid } from '../../src/compile/emit.js';
import { random } from '../helpers/random.js';

const uuidOf = (next: () => number): string =>
  'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => Math.floor(next() * 16).toString(16));

describe('backlinks gathered by position', () => {
  it('lists the referrers of each target sorted by uuid, in the chunk of the target, whatever order they come in, short lists and long', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const uuids = Array.from({ length: 300 }, () => uuidOf(next));
      const outside = Array.from({ length: 5 }, () => uuidOf(next));
      const gatherer = new BacklinkGatherer(uuids);
      // What the lists must be, gathered as strings and sorted at the end.
      const expected = new Map<string, string[]>();
      for (let referrer = 0; referrer < uuids.length; referrer++) {
        // About half of the stories also reference the first (a long list, like an author's).
        if (next() < 0.5) {
          gatherer.add(referrer, 0, uuids[0]!);
          (expected.get(uuids[0]!) ?? expected.set(uuids[0]!, []).get(uuids[0]!)!).push(uuids[referrer]!);
        }
        for (let k = Math.floor(next() * 4); k > 0; k--) {
          const inside = next() < 0.9;
          const target = inside ? Math.floor(next() * uuids.length) : undefined;
          const uuid = inside ? uuids[target!]! : outside[Math.floor(next() * outside.length)]!;
          gatherer.add(referrer, target, uuid);
          (expected.get(uuid) ?? expected.set(uuid, []).get(uuid)!).push(uuids[referrer]!);
        }
      }
      const chunkTotal = 7;
      const chunks = gatherer.byChunk(chunkTotal);
      expect(chunks).toHaveLength(chunkTotal);
      const seen = new Map<string, string[]>();
      chunks.forEach((lists, b) => {
        for (const [target, list] of lists) {
          expect(chunkOfUuid(target, chunkTotal)).toBe(b);
          seen.set(target, list);
        }
      });
      expect(seen.size).toBe(expected.size);
      for (const [target, list] of expected) expect(seen.get(target), `seed ${seed}, ${target}`).toEqual(list.sort());
    }
  });

  it('gives nothing for a target no story references, and empty chunks when nothing was added', () => {
    const gatherer = new BacklinkGatherer(['b', 'a', 'c']);
    expect(gatherer.byChunk(2).map((lists) => lists.size)).toEqual([0, 0]);
    gatherer.add(2, 0, 'b');
    gatherer.add(1, 0, 'b');
    const lists = new Map(gatherer.byChunk(2).flatMap((m) => [...m]));
    expect([...lists]).toEqual([['b', ['a', 'c']]]);
  });
});

describe('a backlinks chunk', () => {
  /** The chunk's value as importing it gives it (as JavaScript: JSON.parse would read `"__proto__":` as a key). */
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the module's own expression
  const parsed = (text: string): Record<string, unknown> =>
    new Function(`return ${text.slice(text.indexOf('export default ') + 15, text.lastIndexOf(';'))};`)() as Record<
      string,
      unknown
    >;

  it('lists its targets sorted, each with its list, whatever names they have', () => {
    const lists = new Map<string, string[]>([
      ['b', ['2', '1']],
      ['__proto__', ['x']],
      ['a"quoted\\', ['y']],
      ['A', []],
    ]);
    const text = backlinksChunk(lists);
    expect(text).toContain('export default {"A":[],["__proto__"]:["x"],"a\\"quoted\\\\":["y"],"b":["2","1"]};');
    const data = parsed(text);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.hasOwn(data, '__proto__')).toBe(true);
    expect(Object.keys(data)).toEqual(['A', '__proto__', 'a"quoted\\', 'b']);
  });

  it('keeps names that are array indexes in sorted order too', () => {
    const text = backlinksChunk(
      new Map([
        ['b', ['1']],
        ['10', ['2']],
        ['9', ['3']],
        ['4294967295', ['4']],
      ]),
    );
    expect(text).toContain('export default {"10":["2"],"4294967295":["4"],"9":["3"],"b":["1"]};');
  });
});
