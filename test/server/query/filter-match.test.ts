import { describe, expect, it } from 'vitest';
import { matchesFilter, parseFilterQuery } from '../../../src/server/query/index.js';

type Content = Record<string, unknown>;

function matches(key: string, value: string, content: Content): boolean {
  const node = parseFilterQuery([[`filter_query[${key}]`, value]]);
  if (!node) throw new Error('no filter');
  return matchesFilter(node, content);
}

/** Which of the named contents match. */
function which(key: string, value: string, contents: Record<string, Content>): string[] {
  return Object.entries(contents)
    .filter(([, c]) => matches(key, value, c))
    .map(([name]) => name);
}

describe('is', () => {
  const contents: Record<string, Content> = {
    missing: {},
    nul: { f: null },
    blank: { f: '' },
    text: { f: 'x' },
    emptyArray: { f: [] },
    array: { f: ['a'] },
    yes: { f: true },
    no: { f: false },
    yesText: { f: 'true' },
    noText: { f: 'false' },
    zero: { f: 0 },
  };
  it('empty: missing, null or ""', () => {
    expect(which('f][is', 'empty', contents)).toEqual(['missing', 'nul', 'blank']);
  });
  it('not_empty: the complement of empty', () => {
    expect(which('f][is', 'not_empty', contents)).toEqual([
      'text',
      'emptyArray',
      'array',
      'yes',
      'no',
      'yesText',
      'noText',
      'zero',
    ]);
  });
  it('empty_array: [], missing, null or ""', () => {
    expect(which('f][is', 'empty_array', contents)).toEqual(['missing', 'nul', 'blank', 'emptyArray']);
  });
  it('not_empty_array: arrays with items', () => {
    expect(which('f][is', 'not_empty_array', contents)).toEqual(['array']);
  });
  it('true / false accept booleans and their strings', () => {
    expect(which('f][is', 'true', contents)).toEqual(['yes', 'yesText']);
    expect(which('f][is', 'false', contents)).toEqual(['no', 'noText']);
  });
  it('null / not_null', () => {
    expect(which('f][is', 'null', contents)).toEqual(['missing', 'nul']);
    expect(which('f][is', 'not_null', contents)).toHaveLength(Object.keys(contents).length - 2);
  });
});

describe('in / not_in', () => {
  const contents: Record<string, Content> = {
    missing: {},
    nul: { f: null },
    blank: { f: '' },
    a: { f: 'a' },
    b: { f: 'b' },
    upper: { f: 'A' },
    five: { f: 5 },
    fiveText: { f: '5' },
    yes: { f: true },
    array: { f: ['a'] },
    object: { f: { a: 1 } },
  };
  it('matches any of the comma-separated values, case-sensitively', () => {
    expect(which('f][in', 'a,b', contents)).toEqual(['a', 'b']);
  });
  it('compares numbers and booleans by their JSON text', () => {
    expect(which('f][in', '5', contents)).toEqual(['five', 'fiveText']);
    expect(which('f][in', 'true', contents)).toEqual(['yes']);
  });
  it('an empty value matches "", null and missing', () => {
    expect(which('f][in', '', contents)).toEqual(['missing', 'nul', 'blank']);
    expect(which('f][in', 'a,', contents)).toEqual(['missing', 'nul', 'blank', 'a']);
  });
  it('does not trim list items', () => {
    expect(which('f][in', 'x, b', contents)).toEqual([]);
  });
  it('not_in is the exact complement', () => {
    expect(which('f][not_in', 'a,b', contents)).toEqual([
      'missing',
      'nul',
      'blank',
      'upper',
      'five',
      'fiveText',
      'yes',
      'array',
      'object',
    ]);
    expect(which('f][not_in', '', contents)).toEqual(['a', 'b', 'upper', 'five', 'fiveText', 'yes', 'array', 'object']);
  });
  it('works on component and dotted paths', () => {
    expect(matches('component][in', 'article,page', { component: 'page' })).toBe(true);
    expect(matches('component][in', 'article', { component: 'page' })).toBe(false);
    expect(matches('seo.title][in', 'Hi', { seo: { title: 'Hi' } })).toBe(true);
    expect(matches('seo.title][in', 'Hi', { seo: 'Hi' })).toBe(false);
    expect(matches('body.0.title][in', 'Hi', { body: [{ title: 'Hi' }] })).toBe(true);
  });
});

describe('like / not_like', () => {
  const contents: Record<string, Content> = {
    john: { f: 'john doe' },
    mrJohn: { f: 'mr john' },
    upper: { f: 'John Doe' },
    jane: { f: 'jane' },
    missing: {},
    number: { f: 1234 },
  };
  it('prefix john*', () => {
    expect(which('f][like', 'john*', contents)).toEqual(['john']);
  });
  it('containing *john*', () => {
    expect(which('f][like', '*john*', contents)).toEqual(['john', 'mrJohn']);
  });
  it('is case-sensitive', () => {
    expect(which('f][like', '*John*', contents)).toEqual(['upper']);
  });
  it('without * requires equality; numbers match by text', () => {
    expect(which('f][like', 'jane', contents)).toEqual(['jane']);
    expect(which('f][like', '12*', contents)).toEqual(['number']);
  });
  it('treats % and regex characters literally', () => {
    expect(which('f][like', '%john%', contents)).toEqual([]);
    expect(which('f][like', 'j.*', contents)).toEqual([]);
  });
  it('not_like is the complement (missing matches)', () => {
    expect(which('f][not_like', '*john*', contents)).toEqual(['upper', 'jane', 'missing', 'number']);
  });
});

describe('in_array / any_in_array / all_in_array', () => {
  const contents: Record<string, Content> = {
    ab: { tags: ['a', 'b'] },
    bc: { tags: ['b', 'c'] },
    empty: { tags: [] },
    missing: {},
    single: { tags: 'a' },
    numbers: { tags: [1, 2] },
    dupes: { tags: ['a', 'a'] },
  };
  it('in_array: any of the values', () => {
    expect(which('tags][in_array', 'a', contents)).toEqual(['ab', 'single', 'dupes']);
    expect(which('tags][in_array', 'a,c', contents)).toEqual(['ab', 'bc', 'single', 'dupes']);
  });
  it('any_in_array is a synonym of in_array', () => {
    expect(which('tags][any_in_array', 'a,c', contents)).toEqual(which('tags][in_array', 'a,c', contents));
  });
  it('all_in_array: every value', () => {
    expect(which('tags][all_in_array', 'a,b', contents)).toEqual(['ab']);
    expect(which('tags][all_in_array', 'b', contents)).toEqual(['ab', 'bc']);
    expect(which('tags][all_in_array', 'a', contents)).toEqual(['ab', 'single', 'dupes']);
    expect(which('tags][all_in_array', 'a,a', contents)).toEqual(['ab', 'single', 'dupes']);
  });
  it('array items compare by JSON text', () => {
    expect(which('tags][in_array', '2', contents)).toEqual(['numbers']);
    expect(which('tags][all_in_array', '1,2', contents)).toEqual(['numbers']);
  });
  it('all_in_array handles long value lists', () => {
    const many = Array.from({ length: 20 }, (_, i) => `t${i}`);
    expect(matches('tags][all_in_array', many.join(','), { tags: [...many, 'extra'] })).toBe(true);
    expect(matches('tags][all_in_array', many.join(','), { tags: many.slice(1) })).toBe(false);
  });
});

describe('numbers', () => {
  const contents: Record<string, Content> = {
    three: { n: 3 },
    threeText: { n: '3' },
    ten: { n: '10' },
    float: { n: '2.5' },
    negative: { n: -4 },
    word: { n: 'abc' },
    blank: { n: '' },
    missing: {},
    yes: { n: true },
  };
  it('gt_int / lt_int compare numeric strings as numbers', () => {
    expect(which('n][gt_int', '3', contents)).toEqual(['ten']);
    expect(which('n][gt_int', '2', contents)).toEqual(['three', 'threeText', 'ten', 'float']);
    expect(which('n][lt_int', '3', contents)).toEqual(['float', 'negative']);
    expect(which('n][lt_int', '-3', contents)).toEqual(['negative']);
  });
  it('gt_float / lt_float', () => {
    expect(which('n][gt_float', '2.4', contents)).toEqual(['three', 'threeText', 'ten', 'float']);
    expect(which('n][lt_float', '2.6', contents)).toEqual(['float', 'negative']);
  });
  it('non-numeric values never match either way', () => {
    const all = [...which('n][gt_int', '-1000', contents), ...which('n][lt_int', '1000', contents)];
    for (const name of ['word', 'blank', 'missing', 'yes']) expect(all).not.toContain(name);
  });
});

describe('dates', () => {
  const contents: Record<string, Content> = {
    early: { d: '2024-01-01 10:00' },
    exact: { d: '2024-01-31 13:45' },
    seconds: { d: '2024-01-31 13:45:30' },
    late: { d: '2024-03-01 00:00' },
    iso: { d: '2024-02-01T00:00:00.000Z' },
    word: { d: 'soon' },
    missing: {},
  };
  it('gt_date is strictly later', () => {
    expect(which('d][gt_date', '2024-01-31 13:45', contents)).toEqual(['seconds', 'late', 'iso']);
  });
  it('lt_date is strictly earlier', () => {
    expect(which('d][lt_date', '2024-01-31 13:45', contents)).toEqual(['early']);
    expect(which('d][lt_date', '2024-02-15', contents)).toEqual(['early', 'exact', 'seconds', 'iso']);
  });
});

describe('AND and OR', () => {
  const node = parseFilterQuery([
    ['filter_query[component][in]', 'article'],
    ['filter_query[__or][][author][in]', 'ann'],
    ['filter_query[__or][][tags][in_array]', 'news'],
  ])!;
  it('needs every top-level condition and one OR alternative', () => {
    expect(matchesFilter(node, { component: 'article', author: 'ann' })).toBe(true);
    expect(matchesFilter(node, { component: 'article', tags: ['news'] })).toBe(true);
    expect(matchesFilter(node, { component: 'article', author: 'bob', tags: [] })).toBe(false);
    expect(matchesFilter(node, { component: 'page', author: 'ann' })).toBe(false);
  });
  it('indexed groups AND inside and OR across', () => {
    const grouped = parseFilterQuery([
      ['filter_query[__or][0][a][in]', '1'],
      ['filter_query[__or][0][b][in]', '2'],
      ['filter_query[__or][1][c][in]', '3'],
    ])!;
    expect(matchesFilter(grouped, { a: '1', b: '2' })).toBe(true);
    expect(matchesFilter(grouped, { a: '1', b: 'x' })).toBe(false);
    expect(matchesFilter(grouped, { c: '3' })).toBe(true);
  });
  it('repeated conditions must all hold', () => {
    const twice = parseFilterQuery([
      ['filter_query[n][gt_int]', '1'],
      ['filter_query[n][lt_int]', '5'],
    ])!;
    expect(matchesFilter(twice, { n: '3' })).toBe(true);
    expect(matchesFilter(twice, { n: '7' })).toBe(false);
  });
  it('hand-built empty groups: all matches, any does not', () => {
    expect(matchesFilter({ kind: 'all', nodes: [] }, {})).toBe(true);
    expect(matchesFilter({ kind: 'any', nodes: [] }, {})).toBe(false);
  });
});

describe('prototype safety', () => {
  it('never reads inherited properties', () => {
    expect(matches('constructor][is', 'not_null', {})).toBe(false);
    expect(matches('toString][is', 'empty', {})).toBe(true);
    expect(matches('__proto__][is', 'null', {})).toBe(true);
    expect(matches('a.__proto__.x][is', 'null', { a: {} })).toBe(true);
  });
  it('reads an own __proto__ key of parsed JSON', () => {
    expect(matches('__proto__][in', 'x', JSON.parse('{"__proto__": "x"}') as Content)).toBe(true);
  });
});
