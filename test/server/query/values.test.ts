import { describe, expect, it } from 'vitest';
import { compileWildcard, parseInstant, readPath, toNumber } from '../../../src/server/query/values.js';

describe('parseInstant', () => {
  it('reads the documented YYYY-mm-dd HH:MM form as UTC', () => {
    expect(parseInstant('2024-01-31 13:45')).toBe(Date.UTC(2024, 0, 31, 13, 45));
  });
  it('reads seconds, fractions, T, Z and offsets', () => {
    expect(parseInstant('2024-01-31 13:45:07')).toBe(Date.UTC(2024, 0, 31, 13, 45, 7));
    expect(parseInstant('2018-04-13T17:38:33.638Z')).toBe(Date.parse('2018-04-13T17:38:33.638Z'));
    expect(parseInstant('2018-04-13T17:38:33.6Z')).toBe(Date.parse('2018-04-13T17:38:33.600Z'));
    expect(parseInstant('2018-04-13T19:38:33+02:00')).toBe(Date.parse('2018-04-13T17:38:33Z'));
    expect(parseInstant('2018-04-13T15:08:33-0230')).toBe(Date.parse('2018-04-13T17:38:33Z'));
    expect(parseInstant('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
  });
  it('keeps years below 100 as written', () => {
    expect(new Date(parseInstant('0050-06-01 00:00')).getUTCFullYear()).toBe(50);
  });
  it('rejects anything else with NaN', () => {
    for (const bad of [
      '',
      'yesterday',
      '2024-13-01',
      '2024-02-30',
      '2023-02-29',
      '2024-01-31 24:00',
      '2024-01-31 13:60',
      '2024-01-31 13',
      '2024-01-31x13:45',
      '2024-01-31 13:45:07.',
      '2024-01-31 13:45Zjunk',
      '2024/01/31',
    ]) {
      expect(parseInstant(bad), bad).toBeNaN();
    }
  });
});

describe('toNumber', () => {
  it('accepts numbers and numeric strings', () => {
    expect(toNumber(5)).toBe(5);
    expect(toNumber('5')).toBe(5);
    expect(toNumber(' -2.5 ')).toBe(-2.5);
    expect(toNumber('.5')).toBe(0.5);
    expect(toNumber('1e3')).toBe(1000);
  });
  it('returns NaN for everything else, including hex and blanks', () => {
    for (const bad of [
      '',
      ' ',
      'abc',
      '0x10',
      '1,000',
      'Infinity',
      '12abc',
      null,
      undefined,
      true,
      [],
      {},
      Number.POSITIVE_INFINITY,
    ]) {
      expect(toNumber(bad)).toBeNaN();
    }
  });
  it('rejects long hostile strings (no backtracking: a hang would time the test out)', () => {
    expect(toNumber(`${'1'.repeat(100_000)}x`)).toBeNaN();
    expect(toNumber(`${'1'.repeat(300)}x`)).toBeNaN();
  });
});

describe('compileWildcard', () => {
  it('matches exactly without *', () => {
    const m = compileWildcard('blog/post');
    expect(m('blog/post')).toBe(true);
    expect(m('blog/post/')).toBe(false);
    expect(m('blog/pos')).toBe(false);
  });
  it('* matches any run of characters including /', () => {
    expect(compileWildcard('blog/*')('blog/a/b')).toBe(true);
    expect(compileWildcard('blog/*')('blog/')).toBe(true);
    expect(compileWildcard('blog/*')('blog')).toBe(false);
    expect(compileWildcard('*john*')('mr john doe')).toBe(true);
    expect(compileWildcard('a*b*c')('abc')).toBe(true);
    expect(compileWildcard('a*b*c')('ac')).toBe(false);
    expect(compileWildcard('ab*ba')('aba')).toBe(false);
    expect(compileWildcard('*')('')).toBe(true);
    expect(compileWildcard('**x**')('yyxyy')).toBe(true);
  });
  it('treats regular-expression characters literally', () => {
    expect(compileWildcard('a.c')('abc')).toBe(false);
    expect(compileWildcard('(a)+*')('(a)+b')).toBe(true);
  });
  it('answers hostile patterns (no backtracking: a hang would time the test out)', () => {
    const m = compileWildcard(`${'*a'.repeat(200)}*b*`);
    expect(m('a'.repeat(50_000))).toBe(false);
    expect(m(`${'a'.repeat(50_000)}b`)).toBe(true);
  });
});

describe('readPath', () => {
  it('follows own properties and array indexes', () => {
    expect(readPath({ seo: { title: 'x' } }, ['seo', 'title'])).toBe('x');
    expect(readPath({ body: [{ a: 1 }] }, ['body', '0', 'a'])).toBe(1);
    expect(readPath({ seo: 'flat' }, ['seo', 'title'])).toBeUndefined();
  });
  it('never reads inherited properties', () => {
    expect(readPath({}, ['__proto__'])).toBeUndefined();
    expect(readPath({}, ['constructor', 'name'])).toBeUndefined();
    expect(readPath({ a: {} }, ['a', 'toString'])).toBeUndefined();
    expect(readPath(JSON.parse('{"__proto__": "own"}'), ['__proto__'])).toBe('own');
  });
});
