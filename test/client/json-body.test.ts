/**
 * parseJsonBody gives what JSON.parse of the decoded text gives: for pages of the real local
 * service (v1 and v2, every language), for random bodies whose strings hold every character the
 * cut looks for (quotes, backslashes, brackets, commas, colons) and text outside ASCII, and for
 * bodies that are not JSON (the same SyntaxError) or that name a top-level key twice.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseJsonBody } from '../../src/client/json-body.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PUBLIC } from '../helpers/server.js';
import { Prng } from '../sync/support.js';

const TRICKY = ['"', '\\', '\\"', '{', '}', '[', ']', ',', ':', 'ü', '—', '😀', ' ', '\n', 'a'];

function text(rng: Prng): string {
  return Array.from({ length: rng.int(0, 12) }, () => rng.pick(TRICKY)).join('');
}

function value(rng: Prng, depth: number): unknown {
  switch (rng.int(0, depth > 3 ? 2 : 5)) {
    case 0:
      return text(rng);
    case 1:
      return rng.pick([0, -1.5, 1e21, true, false, null]);
    case 2:
      return text(rng).length;
    case 3:
      return Array.from({ length: rng.int(0, 4) }, () => value(rng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: rng.int(0, 5) }, () => [text(rng), value(rng, depth + 1)]));
  }
}

/** A body like a page: top-level arrays of objects (and other values), and other top-level fields. */
function page(rng: Prng): string {
  const body: Record<string, unknown> = {};
  for (let n = rng.int(1, 4); n > 0; n--) {
    const key = rng.pick(['stories', 'rels', 'links', text(rng)]);
    body[key] = rng.int(0, 3)
      ? Array.from({ length: rng.int(0, 40) }, () =>
          rng.int(0, 5) ? { id: rng.int(1, 1e6), name: text(rng), content: value(rng, 0) } : value(rng, 2),
        )
      : value(rng, 1);
  }
  // Big enough to be cut, and spaced as a formatter might (or not at all).
  body.padding = 'x'.repeat(70_000);
  return JSON.stringify(body, null, rng.int(0, 1) ? 2 : undefined);
}

describe('parseJsonBody', () => {
  it('gives what JSON.parse gives, for random pages', () => {
    const rng = new Prng(7);
    for (let i = 0; i < 300; i++) {
      const t = page(rng);
      expect(parseJsonBody(Buffer.from(t))).toStrictEqual(JSON.parse(t));
    }
  });

  it('throws the same SyntaxError for a body that is not JSON, wherever it breaks', () => {
    const rng = new Prng(11);
    for (let i = 0; i < 100; i++) {
      const t = page(rng);
      const at = rng.int(0, t.length - 1);
      // Cut short, or a byte changed.
      const broken = rng.int(0, 1) ? t.slice(0, at) : `${t.slice(0, at)}}${t.slice(at + 1)}`;
      let expected: unknown;
      try {
        expected = JSON.parse(broken);
      } catch (err) {
        expected = err;
      }
      if (expected instanceof Error) {
        expect(() => parseJsonBody(Buffer.from(broken))).toThrow(expected.message);
      } else expect(parseJsonBody(Buffer.from(broken))).toStrictEqual(expected);
    }
  });

  it('keeps the last value of a top-level key named twice, as JSON.parse does', () => {
    const items = Array.from({ length: 400 }, (_, id) => ({ id, name: `story ${id}` }));
    const t = `{"stories":${JSON.stringify(items)},"stories":[{"id":1}],"cv":3}`;
    expect(parseJsonBody(Buffer.from(t))).toStrictEqual(JSON.parse(t));
    const proto = `{"__proto__":${JSON.stringify(items)},"cv":3}`;
    expect(parseJsonBody(Buffer.from(proto))).toStrictEqual(JSON.parse(proto));
  });

  describe('pages of the local service', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer({ space: generateDemoSpace({ stories: 120 }), publicToken: PUBLIC, rateLimit: false });
    });
    afterAll(() => server.close());

    it.each([
      ['/v2/cdn/stories?per_page=25&page=2'],
      ['/v2/cdn/stories?per_page=100&language=de'],
      ['/v1/cdn/stories?per_page=100'],
    ])('%s', async (route) => {
      const res = await fetch(`${server.url}${route}&token=${PUBLIC}`);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      const expected = JSON.parse(bytes.toString('utf8'));
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect(parseJsonBody(bytes)).toStrictEqual(expected);
        // A page is never one string: its stories are parsed one by one, the envelope without them.
        const longest = Math.max(...parse.mock.calls.map(([t]) => t.length));
        expect(bytes.length).toBeGreaterThan(64 * 1024);
        expect(longest).toBeLessThan(bytes.length / 4);
      } finally {
        parse.mockRestore();
      }
    });
  });
});
