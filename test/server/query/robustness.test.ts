import { describe, expect, it } from 'vitest';
import {
  QueryError,
  matchesFilter,
  parseFilterQuery,
  selectStories,
  type Candidate,
} from '../../../src/server/query/index.js';
import { random } from '../../helpers/random.js';
import { candidate, loadRealStories, makeStory, query } from './fixtures.js';
import { realdataRuns } from '../../helpers/realdata.js';

const SEGMENTS = [
  '',
  '__or',
  '0',
  '01',
  '-1',
  'title',
  'seo.title',
  'component',
  '__proto__',
  'constructor',
  'toString',
  'a.__proto__.b',
  'tags',
  'in',
  'not_in',
  'like',
  'not_like',
  'is',
  'in_array',
  'any_in_array',
  'all_in_array',
  'gt_int',
  'lt_float',
  'gt_date',
  'lt_date',
  'foo',
  '日本語',
  'ti\u0000tle',
  '.',
  'a..b',
  '💥',
];
const VALUES = [
  '',
  ',',
  'x',
  'a,b',
  't',
  '*',
  '**',
  '*a*',
  'empty',
  'not_empty_array',
  'true',
  'null',
  '12',
  '-3.5',
  '1e9',
  '2024-01-31 13:45',
  '2024-02-30',
  'NaN',
  '💥,日本',
  '%_',
];
const JUNK = ['[', ']', '[[', ']]', '[]', 'x', ' ', '%5B'];

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

const ATTRIBUTES = [
  'title',
  'seo.title',
  'component',
  'tags',
  'n',
  '__proto__',
  'constructor',
  'a.__proto__.b',
  '日本語',
  '💥',
];
const OPERATIONS = [
  'in',
  'not_in',
  'like',
  'not_like',
  'is',
  'in_array',
  'any_in_array',
  'all_in_array',
  'gt_int',
  'lt_int',
  'gt_float',
  'lt_float',
  'gt_date',
  'lt_date',
];

function randomKey(rnd: () => number): string {
  if (rnd() < 0.5) {
    const group = rnd() < 0.3 ? `[__or][${rnd() < 0.5 ? '' : Math.floor(rnd() * 3)}]` : '';
    return `filter_query${group}[${pick(rnd, ATTRIBUTES)}][${pick(rnd, OPERATIONS)}]`;
  }
  let key = 'filter_query';
  const count = Math.floor(rnd() * 6);
  for (let i = 0; i < count; i++) {
    key += rnd() < 0.85 ? `[${pick(rnd, SEGMENTS)}]` : pick(rnd, JUNK);
  }
  if (rnd() < 0.05) key += `[${'x'.repeat(Math.floor(rnd() * 50_000))}]`;
  return key;
}

function randomValue(rnd: () => number): string {
  if (rnd() < 0.05) return `${'*a'.repeat(Math.floor(rnd() * 2000))}b`;
  if (rnd() < 0.05) return Array.from({ length: Math.floor(rnd() * 5000) }, (_, i) => `v${i}`).join(',');
  return pick(rnd, VALUES);
}

const stories: Candidate[] = [
  // The recorded stories join the generated ones where they are present (CI requires them).
  ...(realdataRuns ? loadRealStories().map((s) => candidate(s)) : []),
  candidate(
    makeStory({
      content: JSON.parse('{"__proto__": {"x": 1}, "title": "t", "tags": ["a", 1, null, {"b": 2}]}') as Record<
        string,
        unknown
      >,
    }),
  ),
  candidate(makeStory({ content: { title: null, seo: { title: ['x'] }, tags: 'a', n: Number.MAX_VALUE } })),
];

describe('malformed input', () => {
  it('2,000 random filter_query pairs give a QueryError or a result, nothing else', () => {
    const rnd = random(20240131);
    let errors = 0;
    let results = 0;
    for (let i = 0; i < 2000; i++) {
      const entries: [string, string][] = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => [
        randomKey(rnd),
        randomValue(rnd),
      ]);
      try {
        const node = parseFilterQuery(entries);
        const out = selectStories(stories, query({ sort_by: rnd() < 0.5 ? 'content.title:desc' : 'name' }), node);
        expect(out.length).toBeLessThanOrEqual(stories.length);
        if (node) for (const c of stories) expect(typeof matchesFilter(node, c.story.content)).toBe('boolean');
        results++;
      } catch (e) {
        if (!(e instanceof QueryError)) throw new Error(`${String(e)} for ${JSON.stringify(entries).slice(0, 300)}`);
        expect(e.message.length).toBeGreaterThan(0);
        expect(e.message.length).toBeLessThan(1000);
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(100);
    expect(results).toBeGreaterThan(100);
    expect(Object.prototype).not.toHaveProperty('x');
  });

  it('random sort_by strings give a QueryError or a result', () => {
    const rnd = random(7);
    const parts = [
      'name',
      'content.title',
      'content',
      '',
      ':',
      'asc',
      'desc',
      'int',
      'float',
      ',',
      '.',
      '__proto__',
      'x',
    ];
    for (let i = 0; i < 500; i++) {
      const sortBy = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(rnd, parts)).join(
        rnd() < 0.5 ? ':' : '',
      );
      try {
        expect(selectStories(stories, { ...query(), sort_by: sortBy }, null)).toHaveLength(stories.length);
      } catch (e) {
        if (!(e instanceof QueryError)) throw new Error(`${String(e)} for sort_by=${sortBy}`);
      }
    }
  });

  it('deeply nested content does not overflow the stack in search_term', () => {
    let deep: Record<string, unknown> = { text: 'needle' };
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    const c = candidate(makeStory({ content: { body: deep } }));
    expect(selectStories([c], query({ search_term: 'NEEDLE' }), null)).toHaveLength(1);
  });
});

function generate(n: number): Candidate[] {
  const components = ['article', 'page', 'author', 'product'];
  const out: Candidate[] = new Array(n);
  const base = Date.UTC(2020, 0, 1);
  for (let i = 0; i < n; i++) {
    const published = new Date(base + ((i * 7919) % n) * 60_000).toISOString();
    const story = makeStory({
      id: i + 1,
      uuid: `uuid-${i}`,
      name: `Story ${(i * 7919) % n}`,
      full_slug: `folder-${i % 50}/story-${i}`,
      published_at: published,
      position: (i * 31) % 1000,
      tag_list: i % 3 === 0 ? ['news'] : [],
      content: {
        component: components[i % 4]!,
        title: `Title ${(i * 31) % 997}`,
        price: String((i * 13) % 500),
        categories: [`c${i % 10}`, `c${(i + 3) % 10}`],
      },
    });
    out[i] = { story, matchSlug: story.full_slug, workflowStageId: i % 5, updatedAt: published };
  }
  return out;
}

// Speed is measured by `npm run bench`; these check results on large inputs.
describe('large inputs', () => {
  const big = generate(100_000);
  const small = big.slice(0, 10_000);
  const filterNode = parseFilterQuery([
    ['filter_query[component][in]', 'article,product'],
    ['filter_query[price][gt_int]', '100'],
  ]);
  const q = query({ sort_by: 'published_at:desc' });

  it('filters and sorts 100,000 candidates', () => {
    const result = selectStories(big, q, filterNode);
    expect(result.length).toBeGreaterThan(30_000);
    for (let i = 1; i < result.length; i++)
      expect(result[i - 1]!.story.published_at! >= result[i]!.story.published_at!).toBe(true);
  });

  it('filters and sorts 10,000 candidates by two keys', () => {
    const result = selectStories(small, query({ sort_by: 'content.price:asc:int,name:desc' }), filterNode);
    expect(result.length).toBeGreaterThan(0);
    for (let i = 1; i < result.length; i++) {
      expect(Number(result[i - 1]!.story.content.price) <= Number(result[i]!.story.content.price)).toBe(true);
    }
  });

  it('search_term finds stories in a large space', () => {
    expect(selectStories(big, query({ search_term: 'title 996' }), null).length).toBeGreaterThan(0);
  });

  it('sorting 100,000 by a numeric property is stable', () => {
    const result = selectStories(big, query({ sort_by: 'position:asc' }), null);
    for (let i = 1; i < result.length; i++) {
      const a = result[i - 1]!.story;
      const b = result[i]!.story;
      expect(a.position < b.position || (a.position === b.position && a.id < b.id)).toBe(true);
    }
  });
});
