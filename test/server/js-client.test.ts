import StoryblokClient from 'storyblok-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureSpace, uuidOf } from '../helpers/fixture-space.js';

/**
 * The official JavaScript client against the local service. Its `endpoint`
 * is the API root including the version (`<base>/v2`); it appends `/cdn/...`.
 * Without `cache.type` it caches nothing.
 */
let server: TestServer;
let client: StoryblokClient;

beforeAll(async () => {
  server = await startTestServer({ admin: true });
  client = new StoryblokClient({
    accessToken: PUBLIC,
    endpoint: `${server.url}/v2`,
    cache: { clear: 'manual', type: 'none' },
  });
});
afterAll(async () => {
  await server.close();
});

const publishedIds = fixtureSpace()
  .stories.filter((r) => r.published)
  .map((r) => r.id)
  .sort((a, b) => a - b);

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const answer = await server.get(`/__admin${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
  return answer.body;
}

describe('storyblok-js-client against the local service', () => {
  it('getAll(cdn/stories) returns every published story', async () => {
    const stories: Array<{ id: number }> = await client.getAll('cdn/stories', { per_page: 3 });
    expect(stories.map((s) => s.id).sort((a, b) => a - b)).toEqual(publishedIds);
  });

  it('get(cdn/stories/blog/first-post) returns that story', async () => {
    const res = await client.get('cdn/stories/blog/first-post');
    expect(res.data.story).toMatchObject({ id: 12, full_slug: 'blog/first-post', content: { title: 'Alpha news' } });
    expect(res.data.cv).toBe(server.service.store.space.version);
  });

  it('resolve_relations: the client puts the author story in place of its uuid', async () => {
    const res = await client.get('cdn/stories/blog/first-post', { resolve_relations: 'article.author' });
    const author = res.data.story.content.author;
    expect(author).toMatchObject({
      id: 16,
      uuid: uuidOf(16),
      full_slug: 'authors/jane',
      content: { name: 'Jane Doe' },
    });
    expect(res.data.rels.map((r: { uuid: string }) => r.uuid)).toEqual([uuidOf(16)]);
    // Fields that are not relations keep their value.
    expect(res.data.story.content.categories).toEqual(['a', 'b']);
  });

  it('resolve_relations over a list', async () => {
    const res = await client.get('cdn/stories', {
      starts_with: 'blog/',
      resolve_relations: 'article.author',
      sort_by: 'position:asc',
    });
    const authors = res.data.stories
      .filter((s: any) => s.content.component === 'article')
      .map((s: any) => [s.id, s.content.author?.name]);
    expect(authors).toEqual([
      [13, 'John'],
      [12, 'Jane'],
      [14, 'Jane'],
    ]);
  });

  it("resolve_links '1' and '0', values the client types: the whole story, and nothing", async () => {
    const one = await client.get('cdn/stories/home', { resolve_links: '1' });
    expect(one.data.links.map((l: { uuid: string }) => l.uuid)).toEqual([uuidOf(12)]);
    expect(one.data.story.content.cta.story).toMatchObject({ id: 12, content: { title: 'Alpha news' } });
    const zero = await client.get('cdn/stories/home', { resolve_links: '0' });
    expect(zero.data.links).toEqual([]);
    expect(zero.data.story.content.cta).not.toHaveProperty('story');
    // Version 1 took `1` first: the link nests the story.
    const v1 = await server.api('/v1/cdn/stories/home', { resolve_links: '1' });
    expect(v1.status).toBe(200);
    expect(v1.body.story.content.cta).toMatchObject({ cached_url: 'blog/first-post', story: { id: 12 } });
  });

  it('getAll(cdn/datasource_entries) pages through all 30 entries', async () => {
    const entries: Array<{ name: string }> = await client.getAll('cdn/datasource_entries', { datasource: 'countries' });
    expect(entries).toHaveLength(30);
    expect(entries.map((e) => e.name)).toEqual(Array.from({ length: 30 }, (_, i) => `c${String(i).padStart(2, '0')}`));
  });

  it('a story not found rejects with status 404', async () => {
    await expect(client.get('cdn/stories/blog/nope')).rejects.toMatchObject({ status: 404 });
  });

  it('above 50 relations the client follows rel_uuids and resolves them all', async () => {
    const uuids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const { story } = await admin('POST', '/stories', {
        name: `Related ${i}`,
        slug: `related-${i}`,
        parent_id: 2,
        content: { component: 'author', name: `R${i}` },
      });
      await admin('POST', `/stories/${story.id}/publish`);
      uuids.push(story.uuid);
    }
    const { story: hub } = await admin('POST', '/stories', {
      name: 'Hub',
      slug: 'hub',
      content: { component: 'page', related: uuids },
    });
    await admin('POST', `/stories/${hub.id}/publish`);

    const res = await client.get('cdn/stories/hub', { resolve_relations: 'page.related' });
    const related: Array<{ uuid?: string; content?: { name: string } } | string> = res.data.story.content.related;
    expect(related).toHaveLength(60);
    const unresolved = related.filter((r) => typeof r === 'string');
    expect(unresolved, 'uuids the client left unresolved').toEqual([]);
    expect(related.map((r) => (typeof r === 'string' ? r : r.uuid))).toEqual(uuids);
    expect(related.map((r) => (typeof r === 'string' ? null : r.content?.name))).toEqual(uuids.map((_, i) => `R${i}`));
  });
});
