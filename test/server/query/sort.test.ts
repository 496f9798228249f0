import { describe, expect, it } from 'vitest';
import { QueryError, parseSortBy, selectStories, type Candidate } from '../../../src/server/query/index.js';
import { candidate, ids, makeStory, query } from './fixtures.js';

function sorted(candidates: readonly Candidate[], sortBy: string): number[] {
  return ids(selectStories(candidates, query({ sort_by: sortBy }), null));
}

describe('parseSortBy', () => {
  it('reads attribute, direction and type', () => {
    expect(parseSortBy('content.price:desc:int,name')).toEqual([
      { attribute: 'content.price', path: ['content', 'price'], descending: true, type: 'number' },
      { attribute: 'name', path: ['name'], descending: false, type: 'natural' },
    ]);
    expect(parseSortBy('content.title:asc')[0]).toMatchObject({ type: 'text' });
    expect(parseSortBy('content.n:float')[0]).toMatchObject({ type: 'number', descending: false });
  });
  it('rejects unknown modifiers and empty attributes', () => {
    for (const bad of ['name:up', 'name:int:asc', 'name:asc:desc', 'name:int:float', ':asc', 'content..x', 'a:']) {
      expect(() => parseSortBy(bad), bad).toThrow(QueryError);
    }
  });
});

describe('sort_by', () => {
  const stories = [
    candidate(
      makeStory({
        id: 1,
        name: 'banana',
        position: 20,
        published_at: '2024-02-01T00:00:00.000Z',
        content: { price: '10', rank: 2, title: 'b' },
      }),
    ),
    candidate(
      makeStory({
        id: 2,
        name: 'Apple',
        position: -10,
        published_at: null,
        content: { price: '9', rank: 1, title: 'a', seo: { t: 'z' } },
      }),
    ),
    candidate(
      makeStory({
        id: 3,
        name: 'cherry',
        position: 0,
        published_at: '2023-12-31T23:59:59.999Z',
        content: { price: 'n/a', title: 'b' },
      }),
    ),
    candidate(
      makeStory({
        id: 4,
        name: 'apple',
        position: 5,
        published_at: '2024-02-01T00:00:00.001Z',
        content: { price: 2.5, seo: { t: 'a' } },
      }),
    ),
  ];

  it('sorts strings by code units, ascending by default', () => {
    expect(sorted(stories, 'name')).toEqual([2, 4, 1, 3]);
    expect(sorted(stories, 'name:asc')).toEqual([2, 4, 1, 3]);
    expect(sorted(stories, 'name:desc')).toEqual([3, 1, 4, 2]);
  });
  it('sorts numeric story properties numerically (position, id)', () => {
    expect(sorted(stories, 'position:asc')).toEqual([2, 3, 4, 1]);
    expect(sorted(stories, 'position:desc')).toEqual([1, 4, 3, 2]);
    expect(sorted(stories, 'id:desc')).toEqual([4, 3, 2, 1]);
  });
  it('sorts timestamps chronologically with nulls last both ways', () => {
    expect(sorted(stories, 'published_at:asc')).toEqual([3, 1, 4, 2]);
    expect(sorted(stories, 'published_at:desc')).toEqual([4, 1, 3, 2]);
  });
  it('sorts untyped content fields as strings', () => {
    // "10" < "2.5" < "9" < "n/a" as text
    expect(sorted(stories, 'content.price:asc')).toEqual([1, 4, 2, 3]);
  });
  it(':int and :float sort numerically; non-numbers count as missing', () => {
    expect(sorted(stories, 'content.price:asc:int')).toEqual([4, 2, 1, 3]);
    expect(sorted(stories, 'content.price:desc:float')).toEqual([1, 2, 4, 3]);
  });
  it('missing content fields sort last in both directions', () => {
    expect(sorted(stories, 'content.rank:asc')).toEqual([2, 1, 3, 4]);
    expect(sorted(stories, 'content.rank:desc')).toEqual([1, 2, 3, 4]);
  });
  it('follows dot paths into nested content', () => {
    expect(sorted(stories, 'content.seo.t:asc')).toEqual([4, 2, 1, 3]);
  });
  it('chains keys', () => {
    expect(sorted(stories, 'content.title:asc,name:desc')).toEqual([2, 3, 1, 4]);
    expect(sorted(stories, 'content.title:desc,id:desc')).toEqual([3, 1, 2, 4]);
  });
  it('is stable: ties keep the input order', () => {
    const ties = [5, 3, 9, 1, 7].map((id) => candidate(makeStory({ id, position: 1 })));
    expect(sorted(ties, 'position:asc')).toEqual([5, 3, 9, 1, 7]);
    expect(sorted(ties, 'position:desc')).toEqual([5, 3, 9, 1, 7]);
    expect(sorted(ties, 'content.missing:desc')).toEqual([5, 3, 9, 1, 7]);
  });
  it('unknown and inherited attributes sort nothing', () => {
    expect(sorted(stories, 'nonexistent:desc')).toEqual([1, 2, 3, 4]);
    expect(sorted(stories, 'constructor:asc')).toEqual([1, 2, 3, 4]);
    expect(sorted(stories, '__proto__:asc')).toEqual([1, 2, 3, 4]);
  });
  it('is_startpage and other booleans sort false before true', () => {
    const mixed = [
      candidate(makeStory({ id: 1, is_startpage: true })),
      candidate(makeStory({ id: 2, is_startpage: false })),
    ];
    expect(sorted(mixed, 'is_startpage')).toEqual([2, 1]);
  });
});
