/**
 * Parameters of the stories listing on content shaped as real spaces hold it, beyond the fixture's
 * plain fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSpace } from '../../helpers/fixture-space.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ids } from './support.js';

let server: TestServer;
beforeAll(async () => {
  const space = fixtureSpace();
  const runner = space.stories.find((r) => r.id === 19)!.published!.story;
  // Bloks as recorded (storyblok-php-client, laravel-storyblok ep16): a headline whose option field is
  // named type, a tweet whose id field holds the tweet's number.
  runner.content = {
    ...runner.content,
    body: [
      { _uid: 'h-1', component: 'headline', text: 'Bootstrap', type: 'subheading' },
      { _uid: 't-1', component: 'tweet', id: '1275051390675673089' },
    ],
  };
  server = await startTestServer({ space });
});
afterAll(() => server.close());

const list = async (params: Record<string, string>): Promise<number[]> => {
  const r = await server.api('/v2/cdn/stories', params);
  expect(r.status).toBe(200);
  return ids(r.body);
};

describe('notes "Query semantics": search_term', () => {
  it('matches the text of a blok field named like a node kind or an identifier (type, id)', async () => {
    expect(await list({ search_term: 'SUBHEADING' })).toEqual([19]);
    expect(await list({ search_term: '1275051390675673089' })).toEqual([19]);
    // The blok's component stays an identifier, not text.
    expect(await list({ search_term: 'headline' })).toEqual([]);
  });
});

describe('contract "published_at_gt / _lt" and the other story dates', () => {
  it('take an ISO 8601 timestamp with an offset or microseconds, as filter_query gt_date does', async () => {
    // Story 12 was published at 2024-03-01T08:00:00.000Z, 13 and 14 later.
    expect(await list({ published_at_gt: '2024-03-01T09:00:00+01:00' })).toEqual([13, 14]);
    expect(await list({ published_at_gt: '2024-04-01T07:30:00-01:00' })).toEqual([14]);
    expect(await list({ first_published_at_lt: '2024-03-01T08:00:00.001500Z', starts_with: 'blog/' })).toEqual([
      11, 12,
    ]);
    expect(await list({ published_at_gte: '2024-03-01T09:00:00.000000+0100', starts_with: 'blog/' })).toEqual([
      12, 13, 14,
    ]);
    expect(await list({ 'filter_query[date][gt_date]': '2024-03-01T09:00:00+01:00' })).toEqual([13, 14]);
  });

  it('still refuse what is no date', async () => {
    for (const value of ['2024-03-01T09:00:00+1', '2024-03-01 9:00', 'yesterday', '2024-02-30']) {
      const r = await server.api('/v2/cdn/stories', { published_at_gt: value });
      expect(r.status, value).toBe(422);
    }
  });
});

describe('contract "sort_by": a comma-separated list', () => {
  it('given empty sorts by nothing, as every other empty list filters nothing (space order)', async () => {
    expect(await list({ sort_by: '' })).toEqual(await list({}));
    expect(await list({ sort_by: '', with_tag: '' })).toEqual(await list({}));
  });

  it('with a trailing comma sorts by the keys it names', async () => {
    expect(await list({ sort_by: 'name:desc,' })).toEqual(await list({ sort_by: 'name:desc' }));
    expect(await list({ sort_by: 'content.component:asc,,name:desc' })).toEqual(
      await list({ sort_by: 'content.component:asc,name:desc' }),
    );
  });

  it('still refuses items it cannot read (spaces between items, unknown modifiers)', async () => {
    for (const value of ['name:asc, id:desc', ' ', 'name:sideways,']) {
      expect((await server.api('/v2/cdn/stories', { sort_by: value })).status, value).toBe(422);
    }
  });
});
