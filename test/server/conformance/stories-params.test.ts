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
