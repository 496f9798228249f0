import { describe, expect, it } from 'vitest';
import { QueryError, selectStories, type Candidate } from '../../../src/server/query/index.js';
import { random } from '../../helpers/random.js';
import { candidate, filter, ids, makeStory, query } from './fixtures.js';

function site(): Candidate[] {
  return [
    candidate(makeStory({ id: 1, uuid: 'u1', name: 'Home', slug: 'home', full_slug: 'home', tag_list: ['main'] })),
    candidate(
      makeStory({
        id: 2,
        uuid: 'u2',
        name: 'Blog',
        slug: '',
        full_slug: 'blog/',
        is_startpage: true,
        content: { component: 'overview' },
      }),
    ),
    candidate(
      makeStory({
        id: 3,
        uuid: 'u3',
        name: 'First post',
        slug: 'first',
        full_slug: 'blog/first',
        tag_list: ['news', 'tech'],
        published_at: '2024-02-01T10:00:00.000Z',
        first_published_at: '2024-01-15T08:30:00.000Z',
        content: {
          component: 'post',
          title: 'Hello World',
          body: [{ component: 'text', _uid: 'x', text: 'Deep Nested Words' }],
        },
      }),
      { workflowStageId: 10, updatedAt: '2024-03-01T00:00:00.000Z' },
    ),
    candidate(
      makeStory({
        id: 4,
        uuid: 'u4',
        name: 'Second post',
        slug: 'second',
        full_slug: 'blog/2024/second',
        tag_list: ['tech'],
        published_at: '2024-03-01T10:00:00.000Z',
        first_published_at: '2024-03-01T10:00:00.000Z',
        content: { component: 'post', title: 'Another' },
      }),
      { workflowStageId: 20, updatedAt: '2024-03-05T12:00:00.000Z' },
    ),
    candidate(
      makeStory({
        id: 5,
        uuid: 'u5',
        name: 'Docs',
        slug: '',
        full_slug: 'docs/',
        is_startpage: true,
        published_at: null,
        first_published_at: null,
      }),
    ),
    candidate(
      makeStory({
        id: 6,
        uuid: 'u6',
        name: 'Blogroll',
        slug: 'blogroll',
        full_slug: 'blogroll',
        content: { component: 'page' },
      }),
    ),
  ];
}

const all = site();
const select = (params: Parameters<typeof query>[0], search = ''): number[] =>
  ids(selectStories(all, query(params), filter(search)));

describe('selectStories without filters', () => {
  it('keeps every candidate in input order', () => {
    expect(select({})).toEqual([1, 2, 3, 4, 5, 6]);
  });
  it('ignores paging and other parameters the caller handles', () => {
    expect(
      select({ page: '2', per_page: '1', version: 'draft', language: 'de', excluding_fields: 'title', cv: '1' }),
    ).toEqual([1, 2, 3, 4, 5, 6]);
  });
  it('returns a new array and does not mutate the input', () => {
    const input = site();
    const copy = structuredClone(input);
    const out = selectStories(input, query({ sort_by: 'name:desc' }), filter('filter_query[component][not_in]=x'));
    expect(out).not.toBe(input);
    expect(input).toEqual(copy);
    expect(Object.isFrozen(input)).toBe(false);
  });
  it('works on frozen input', () => {
    const frozen = Object.freeze(site());
    expect(ids(selectStories(frozen, query({ sort_by: 'id:desc' }), null))).toEqual([6, 5, 4, 3, 2, 1]);
  });
});

describe('slug filters', () => {
  it('starts_with is a plain prefix', () => {
    expect(select({ starts_with: 'blog' })).toEqual([2, 3, 4, 6]);
    expect(select({ starts_with: 'blog/' })).toEqual([2, 3, 4]);
    expect(select({ starts_with: 'blog/*' })).toEqual([2, 3, 4]);
    expect(select({ starts_with: 'nothing' })).toEqual([]);
  });
  it('starts_with uses matchSlug chosen by the caller', () => {
    const withLang = all.map((c) => ({ ...c, matchSlug: `de/${c.story.full_slug}` }));
    expect(ids(selectStories(withLang, query({ starts_with: 'de/blog/' }), null))).toEqual([2, 3, 4]);
  });
  it('by_slugs: exact slugs, the trailing slash matters', () => {
    expect(select({ by_slugs: 'home,blog/' })).toEqual([1, 2]);
    expect(select({ by_slugs: 'blog' })).toEqual([]);
  });
  it('by_slugs: * matches anything including /', () => {
    expect(select({ by_slugs: 'blog/*' })).toEqual([2, 3, 4]);
    expect(select({ by_slugs: '*/second,home' })).toEqual([1, 4]);
    expect(select({ by_slugs: 'blog*' })).toEqual([2, 3, 4, 6]);
  });
  it('excluding_slugs removes exact and wildcard matches', () => {
    expect(select({ excluding_slugs: 'home,blog/*' })).toEqual([5, 6]);
    expect(select({ excluding_slugs: 'blog' })).toEqual([1, 2, 3, 4, 5, 6]);
  });
  it('level counts segments and leaves start pages out', () => {
    expect(select({ level: '1' })).toEqual([1, 6]);
    expect(select({ level: '2' })).toEqual([3]);
    expect(select({ level: '3' })).toEqual([4]);
    expect(select({ level: '4' })).toEqual([]);
  });
  it('is_startpage', () => {
    expect(select({ is_startpage: '1' })).toEqual([2, 5]);
    expect(select({ is_startpage: '0' })).toEqual([1, 3, 4, 6]);
    expect(select({ is_startpage: 'true' })).toEqual([2, 5]);
  });
});

describe('id and uuid filters', () => {
  it('looked up in a large list, select what testing every candidate selects', () => {
    // 3,000 candidates (a uuid held twice among them); random lists of ids and uuids, some unknown,
    // some repeated, with other filters and orders: the reference is the query without the lists,
    // filtered by them afterwards (in its order, or in the sequence of by_uuids_ordered).
    const components = ['post', 'page', 'author'];
    const list = Array.from({ length: 3_000 }, (_, k) =>
      candidate(
        makeStory({
          id: k + 1,
          uuid: k === 2_999 ? 'u-7' : `u-${k + 1}`,
          name: `Story ${(k * 7919) % 3_000}`,
          full_slug: `s/${k + 1}`,
          content: { component: components[k % 3]! },
        }),
      ),
    );
    const next = random(7);
    const randomInt = (n: number) => Math.floor(next() * n);
    const pick = (n: number) => Array.from({ length: n }, () => randomInt(3_100) + 1);
    for (let round = 0; round < 200; round++) {
      const params: Record<string, string> = {};
      const named: Array<(c: Candidate) => boolean> = [];
      if (randomInt(2)) {
        const uuids = pick(1 + randomInt(120)).map((k) => `u-${k}`);
        if (round % 5 === 0) uuids.push('u-7');
        params.by_uuids = uuids.join(',');
        named.push((c) => uuids.includes(c.story.uuid));
      }
      if (randomInt(2)) {
        const byIds = pick(1 + randomInt(120));
        params.by_ids = byIds.join(',');
        named.push((c) => byIds.includes(c.story.id));
      }
      const orderedUuids = randomInt(4) === 0 ? pick(1 + randomInt(60)).map((k) => `u-${k}`) : undefined;
      if (orderedUuids) params.by_uuids_ordered = orderedUuids.join(',');
      if (randomInt(2)) params.content_type = components[randomInt(3)]!;
      if (randomInt(2)) params.sort_by = randomInt(2) ? 'name:desc' : 'id:asc';
      const { by_uuids: _u, by_ids: _i, by_uuids_ordered: _o, ...rest } = params;
      const admitted = selectStories(list, query(rest), null).filter((c) => named.every((test) => test(c)));
      const expected = orderedUuids
        ? [...new Set(orderedUuids)].flatMap((u) => admitted.filter((c) => c.story.uuid === u))
        : admitted;
      expect(ids(selectStories(list, query(params), null)), JSON.stringify(params)).toEqual(ids(expected));
    }
  });

  it('by_uuids filters and keeps input order', () => {
    expect(select({ by_uuids: 'u4,u1,unknown' })).toEqual([1, 4]);
  });
  it('by_uuids_ordered filters and orders by the given sequence', () => {
    expect(select({ by_uuids_ordered: 'u4,u1,unknown,u3' })).toEqual([4, 1, 3]);
    expect(select({ by_uuids_ordered: 'u4,u1,u4' })).toEqual([4, 1]);
  });
  it('by_uuids_ordered wins over sort_by', () => {
    expect(select({ by_uuids_ordered: 'u1,u6,u3', sort_by: 'name:desc' })).toEqual([1, 6, 3]);
  });
  it('by_ids and excluding_ids', () => {
    expect(select({ by_ids: '5,2,99' })).toEqual([2, 5]);
    expect(select({ excluding_ids: '1,3' })).toEqual([2, 4, 5, 6]);
    expect(select({ by_ids: '1,2,3', excluding_ids: '2' })).toEqual([1, 3]);
  });
  it('empty lists mean no filter', () => {
    expect(select({ by_uuids: '', by_ids: '', by_slugs: ',', with_tag: '', content_type: ' , ' })).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });
});

describe('content and metadata filters', () => {
  it('content_type matches content.component, comma lists allowed', () => {
    expect(select({ content_type: 'post' })).toEqual([3, 4]);
    expect(select({ content_type: 'post, overview' })).toEqual([2, 3, 4]);
    expect(select({ content_type: 'Post' })).toEqual([]);
  });
  it('with_tag is OR over tag_list', () => {
    expect(select({ with_tag: 'news' })).toEqual([3]);
    expect(select({ with_tag: 'news,main' })).toEqual([1, 3]);
    expect(select({ with_tag: 'tech' })).toEqual([3, 4]);
    expect(select({ with_tag: 'Tech' })).toEqual([]);
  });
  it('in_workflow_stages; null stage never matches', () => {
    expect(select({ in_workflow_stages: '10' })).toEqual([3]);
    expect(select({ in_workflow_stages: '10,20,30' })).toEqual([3, 4]);
  });
  it('search_term: case-insensitive over name, slug, full_slug and content text', () => {
    expect(select({ search_term: 'POST' })).toEqual([3, 4]);
    expect(select({ search_term: 'hello world' })).toEqual([3]);
    expect(select({ search_term: 'nested words' })).toEqual([3]);
    expect(select({ search_term: 'blog/2024' })).toEqual([4]);
    expect(select({ search_term: 'blogroll' })).toEqual([6]);
    // The content type is an identifier, not text a reader searches for.
    expect(select({ search_term: 'overview' })).toEqual([]);
    expect(select({ search_term: '  another ' })).toEqual([4]);
    expect(select({ search_term: 'absent' })).toEqual([]);
  });
  it('search_term does not match across fields or on keys', () => {
    expect(select({ search_term: 'world another' })).toEqual([]);
    expect(select({ search_term: 'title' })).toEqual([]);
  });
  it('search_term sees a changed story object', () => {
    const story = makeStory({ content: { text: 'before' } });
    const changed = { ...story, content: { ...story.content, text: 'after' } };
    expect(ids(selectStories([candidate(story)], query({ search_term: 'after' }), null))).toEqual([]);
    expect(ids(selectStories([candidate(changed)], query({ search_term: 'after' }), null))).toEqual([story.id]);
  });
});

describe('date filters', () => {
  it('published_at_gt / lt are strict, in UTC, with minutes', () => {
    expect(select({ published_at_gt: '2024-02-01 10:00' })).toEqual([4]);
    expect(select({ published_at_gt: '2024-02-01 09:59' })).toEqual([3, 4]);
    expect(select({ published_at_lt: '2024-02-01 10:00' })).toEqual([1, 2, 6]);
  });
  it('published_at_gte / lte are inclusive', () => {
    expect(select({ published_at_gte: '2024-02-01 10:00' })).toEqual([3, 4]);
    expect(select({ published_at_lte: '2024-02-01 10:00' })).toEqual([1, 2, 3, 6]);
  });
  it('first_published_at_*', () => {
    expect(select({ first_published_at_gt: '2024-01-15 08:29' })).toEqual([3, 4]);
    expect(select({ first_published_at_gte: '2024-01-15 08:30' })).toEqual([3, 4]);
    expect(select({ first_published_at_lt: '2024-01-15 08:30' })).toEqual([1, 2, 6]);
    expect(select({ first_published_at_lte: '2024-01-15T08:30:00.000Z' })).toEqual([1, 2, 3, 6]);
  });
  it('seconds in the value count', () => {
    expect(select({ first_published_at_gt: '2024-01-15 08:30:01' })).toEqual([4]);
  });
  it('combines bounds into a range', () => {
    expect(select({ published_at_gt: '2024-01-02 00:00', published_at_lt: '2024-03-01 00:00' })).toEqual([3]);
  });
  it('updated_at_gt / lt use the candidate timestamp; null never matches', () => {
    expect(select({ updated_at_gt: '2024-03-02 00:00' })).toEqual([4]);
    expect(select({ updated_at_lt: '2024-03-02 00:00' })).toEqual([3]);
  });
  it('throws QueryError for a date the pattern allows but the calendar does not', () => {
    expect(() => select({ published_at_gt: '2024-02-31 10:00' })).toThrow(QueryError);
    expect(() => select({ published_at_gt: '2024-02-31 10:00' })).toThrow(
      /published_at_gt: 2024-02-31 10:00 is not a date/,
    );
  });
});

describe('filter_query in selectStories', () => {
  it('filters on content', () => {
    expect(select({}, 'filter_query[component][in]=post')).toEqual([3, 4]);
    expect(select({}, 'filter_query[title][like]=*o*')).toEqual([3, 4]);
    expect(select({}, 'filter_query[title][is]=empty')).toEqual([1, 2, 5, 6]);
  });
  it('combines with other parameters (AND)', () => {
    expect(select({ with_tag: 'tech', sort_by: 'name:desc' }, 'filter_query[title][is]=not_empty')).toEqual([4, 3]);
    expect(
      select(
        { starts_with: 'blog/' },
        'filter_query[__or][][component][in]=overview&filter_query[__or][][title][in]=Another',
      ),
    ).toEqual([2, 4]);
  });
});

describe('errors', () => {
  it('a malformed sort_by is a QueryError', () => {
    expect(() => selectStories(all, { ...query(), sort_by: 'name:sideways' }, null)).toThrow(
      /sort_by: unexpected "sideways"/,
    );
    expect(() => selectStories(all, { ...query(), sort_by: ':asc' }, null)).toThrow(QueryError);
  });
});
