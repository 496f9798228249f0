import { describe, expect, it } from 'vitest';
import { exportsSource, moduleSource, readExports } from '../../src/compile/serialize.js';

/** Evaluates generated module source as a real ES module. */
async function evaluate(source: string): Promise<Record<string, unknown>> {
  return (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as Record<
    string,
    unknown
  >;
}

describe('module source of resolved content', () => {
  it('a tree round-trips exactly, undefined properties dropped and undefined array items null', async () => {
    const value = {
      a: 'x\u2028y',
      n: 1.5,
      b: [true, null, undefined, { deep: ['é', '"q"'] }],
      u: undefined,
      nested: { e: {} },
    };
    const mod = await evaluate(moduleSource(value));
    expect(mod.default).toEqual(JSON.parse(JSON.stringify(value)));
    expect(Object.keys(mod.default as object)).not.toContain('u');
  });

  it('an object reached twice becomes one constant, the same object at every occurrence', async () => {
    const author = { name: 'Ada', content: { component: 'author' } };
    const story = { content: { body: [{ author }, { author }], lead: author } };
    const source = moduleSource(story);
    expect(source.match(/"Ada"/g)).toHaveLength(1);
    const mod = (await evaluate(source)) as { default: typeof story };
    expect(mod.default.content.lead).toBe(mod.default.content.body[0]!.author);
    expect(mod.default.content.body[1]!.author).toBe(mod.default.content.lead);
    expect(mod.default).toEqual(JSON.parse(JSON.stringify(story)));
  });

  it('each export stands alone: an object two exports share is written in each, shared within each', async () => {
    const target = { id: 7, tags: ['a'] };
    const source = exportsSource([
      ['default', { rel: target, again: target, other: { plain: [1, 2] } }],
      ['de', { rel: target }],
    ]);
    expect(source.match(/"tags"/g)).toHaveLength(2);
    const mod = (await evaluate(source)) as {
      default: { rel: object; again: object; other: object };
      de: { rel: object };
    };
    expect(mod.default.again).toBe(mod.default.rel);
    expect(mod.de.rel).toEqual(mod.default.rel);
    expect(mod.default.other).toEqual({ plain: [1, 2] });
    // The declaration of `de` names no constant of `default`: a bundler keeps only what an import uses.
    expect(source).toMatch(/^export const de = \{"rel":\{"id":7,"tags":\["a"\]\}\};$/m);
  });

  it('a "__proto__" key stays an own property and never sets the prototype, beside shared objects too', async () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>;
    const mod = (await evaluate(moduleSource({ hostile }))) as { default: { hostile: Record<string, unknown> } };
    expect(Object.getPrototypeOf(mod.default.hostile)).toBe(Object.prototype);
    expect(Object.hasOwn(mod.default.hostile, '__proto__')).toBe(true);
    expect((mod.default.hostile as { polluted?: boolean }).polluted).toBeUndefined();

    const shared = { s: 1 };
    const both = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    both.a = shared;
    both.b = shared;
    const mod2 = (await evaluate(moduleSource(both))) as { default: Record<string, unknown> };
    expect(Object.getPrototypeOf(mod2.default)).toBe(Object.prototype);
    expect(Object.hasOwn(mod2.default, '__proto__')).toBe(true);
    expect(mod2.default.a).toBe(mod2.default.b);
  });

  it('refuses a cyclic graph with a clear error', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = { back: a };
    expect(() => moduleSource(a)).toThrow(/cyclic/);
  });

  it('reads back the exports of a module of trees without importing it, and declines one with constants', async () => {
    const exports: Array<[string, unknown]> = [
      ['default', { content: { title: 'a;b', body: ['x\ny', { n: 1 }] } }],
      ['de', { content: { title: 'ü "q"' } }],
      ['zh_CN', { content: {} }],
    ];
    const source = exportsSource(exports);
    expect(readExports(source)).toEqual({ ...(await evaluate(source)) });
    expect(readExports(source)).toEqual(Object.fromEntries(exports));
    const target = { id: 1 };
    expect(readExports(moduleSource({ a: target, b: target }))).toBeUndefined();
    expect(readExports('export default 1;\nconsole.log(1);\n')).toBeUndefined();
  });
});
