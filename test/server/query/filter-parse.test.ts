import { describe, expect, it } from 'vitest';
import { QueryError, parseFilterQuery, splitFilterKey, type FilterNode } from '../../../src/server/query/index.js';
import { filter } from './fixtures.js';

function errorOf(entries: [string, string][]): string {
  try {
    parseFilterQuery(entries);
  } catch (e) {
    expect(e).toBeInstanceOf(QueryError);
    return (e as Error).message;
  }
  throw new Error('expected a QueryError');
}

describe('splitFilterKey', () => {
  it('returns the bracketed segments', () => {
    expect(splitFilterKey('filter_query[seo.title][like]')).toEqual(['seo.title', 'like']);
    expect(splitFilterKey('filter_query[__or][][a][in]')).toEqual(['__or', '', 'a', 'in']);
    expect(splitFilterKey('filter_query')).toEqual([]);
  });
  it('rejects malformed brackets', () => {
    for (const key of [
      'filter_query[a',
      'filter_query[a]b[in]',
      'filter_query[a[b]][in]',
      'filter_query]a[',
      'filter_queryx[a][in]',
      'other[a][in]',
    ]) {
      expect(() => splitFilterKey(key), key).toThrow(QueryError);
    }
  });
});

describe('parseFilterQuery', () => {
  it('returns null without filter entries', () => {
    expect(parseFilterQuery([])).toBeNull();
  });

  it('parses one condition with a dotted attribute', () => {
    expect(parseFilterQuery([['filter_query[seo.title][like]', 'john*']])).toEqual({
      kind: 'condition',
      key: 'filter_query[seo.title][like]',
      attribute: 'seo.title',
      path: ['seo', 'title'],
      operation: 'like',
      value: 'john*',
    });
  });

  it('ANDs several conditions, including a repeated one', () => {
    const node = filter('filter_query[a][in]=1&filter_query[b][in]=2&filter_query[a][in]=3') as FilterNode & {
      kind: 'all';
    };
    expect(node.kind).toBe('all');
    expect(node.nodes.map((n) => n.kind === 'condition' && `${n.attribute}=${n.value}`)).toEqual(['a=1', 'b=2', 'a=3']);
  });

  it('makes every [__or][] entry an alternative of its own', () => {
    const node = filter('filter_query[__or][][author][in]=x&filter_query[__or][][tags][in_array]=y');
    expect(node).toMatchObject({
      kind: 'any',
      nodes: [
        { kind: 'condition', attribute: 'author', operation: 'in', value: 'x' },
        { kind: 'condition', attribute: 'tags', operation: 'in_array', value: 'y' },
      ],
    });
  });

  it('groups [__or][n] entries by index (AND inside a group)', () => {
    const node = filter(
      'filter_query[__or][0][a][in]=1&filter_query[__or][1][b][in]=2&filter_query[__or][0][c][in]=3&filter_query[__or][01][d][in]=4',
    );
    expect(node).toMatchObject({
      kind: 'any',
      nodes: [
        { kind: 'all', nodes: [{ attribute: 'a' }, { attribute: 'c' }] },
        { kind: 'all', nodes: [{ attribute: 'b' }, { attribute: 'd' }] },
      ],
    });
  });

  it('combines plain conditions with the OR group', () => {
    const node = filter(
      'filter_query[component][in]=article&filter_query[__or][][a][in]=1&filter_query[__or][][b][in]=2',
    );
    expect(node).toMatchObject({
      kind: 'all',
      nodes: [
        { kind: 'condition', attribute: 'component' },
        { kind: 'any', nodes: [{ attribute: 'a' }, { attribute: 'b' }] },
      ],
    });
  });

  it('allows nested __or inside an alternative', () => {
    const node = filter(
      'filter_query[__or][0][__or][][a][in]=1&filter_query[__or][0][__or][][b][in]=2&filter_query[__or][1][c][in]=3',
    );
    expect(node).toMatchObject({
      kind: 'any',
      nodes: [{ kind: 'any', nodes: [{ attribute: 'a' }, { attribute: 'b' }] }, { attribute: 'c' }],
    });
  });

  it('accepts every documented operation and any_in_array', () => {
    const ops = ['in', 'not_in', 'like', 'not_like', 'in_array', 'any_in_array', 'all_in_array'];
    for (const op of ops) expect(parseFilterQuery([[`filter_query[x][${op}]`, 'v']])).toMatchObject({ operation: op });
    for (const v of ['empty', 'not_empty', 'empty_array', 'not_empty_array', 'true', 'false', 'null', 'not_null']) {
      expect(parseFilterQuery([['filter_query[x][is]', v]])).toMatchObject({ operation: 'is', value: v });
    }
    expect(parseFilterQuery([['filter_query[x][gt_int]', '10']])).toMatchObject({ operation: 'gt_int' });
    expect(parseFilterQuery([['filter_query[x][lt_float]', '1.5']])).toMatchObject({ operation: 'lt_float' });
    expect(parseFilterQuery([['filter_query[x][gt_date]', '2024-01-31 13:45']])).toMatchObject({
      operation: 'gt_date',
    });
  });

  it('names the unknown operation', () => {
    expect(errorOf([['filter_query[title][foo]', 'x']])).toMatch(
      /^filter_query\[title\]\[foo\]: unknown operation foo/,
    );
  });
  it('rejects a missing operation', () => {
    expect(errorOf([['filter_query[title]', 'x']])).toMatch(/^filter_query\[title\]: missing operation/);
  });
  it('rejects a bare filter_query', () => {
    expect(errorOf([['filter_query', 'x']])).toMatch(/^filter_query: missing attribute and operation/);
  });
  it('rejects an empty attribute or path segment', () => {
    expect(errorOf([['filter_query[][in]', 'x']])).toMatch(/empty attribute/);
    expect(errorOf([['filter_query[seo..title][in]', 'x']])).toMatch(/empty segment in attribute seo\.\.title/);
    expect(errorOf([['filter_query[.a][in]', 'x']])).toMatch(/empty segment/);
  });
  it('rejects too many brackets', () => {
    expect(errorOf([['filter_query[a][b][c][d]', 'x']])).toMatch(/too many brackets/);
  });
  it('rejects malformed brackets', () => {
    expect(errorOf([['filter_query[a][in', 'x']])).toMatch(/malformed brackets/);
    expect(errorOf([['filter_query[a]x[in]', 'x']])).toMatch(/malformed brackets/);
  });
  it('rejects a bad __or index', () => {
    expect(errorOf([['filter_query[__or][x][a][in]', '1']])).toMatch(/__or needs \[\] or a numeric index/);
    expect(errorOf([['filter_query[__or]', '1']])).toMatch(/__or needs/);
    expect(errorOf([['filter_query[__or][]', '1']])).toMatch(/missing attribute and operation/);
    expect(errorOf([['filter_query[__or][][a]', '1']])).toMatch(/missing operation/);
  });
  it('rejects invalid values for is, numbers and dates', () => {
    expect(errorOf([['filter_query[a][is]', 'blank']])).toMatch(/unknown value blank; use one of empty, not_empty/);
    expect(errorOf([['filter_query[a][gt_int]', '1,000']])).toMatch(/1,000 is not a whole number/);
    expect(errorOf([['filter_query[a][gt_int]', '1.5']])).toMatch(/not a whole number/);
    expect(errorOf([['filter_query[a][lt_float]', '1,5']])).toMatch(/1,5 is not a number/);
    expect(errorOf([['filter_query[a][gt_date]', 'yesterday']])).toMatch(
      /yesterday is not a date like 2024-01-31 13:45/,
    );
  });
  it('shortens huge keys and values in messages', () => {
    const message = errorOf([[`filter_query[${'a'.repeat(100_000)}][nope]`, 'x']]);
    expect(message.length).toBeLessThan(600);
  });
  it('accepts unicode and __proto__ attributes without touching prototypes', () => {
    const node = parseFilterQuery([
      ['filter_query[__proto__][in]', 'x'],
      ['filter_query[tïtel.日本][like]', '*ü*'],
    ]);
    expect(node).toMatchObject({ kind: 'all', nodes: [{ attribute: '__proto__' }, { path: ['tïtel', '日本'] }] });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
