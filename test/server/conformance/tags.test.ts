import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const PUBLISHED_TAGS = [
  { name: 'featured', taggings_count: 1 },
  { name: 'news', taggings_count: 2 },
  { name: 'people', taggings_count: 2 },
  { name: 'shop', taggings_count: 2 },
  { name: 'tech', taggings_count: 2 },
];

describe('contract "GET /v1/cdn/tags/"', () => {
  it('contract "Tag": name and taggings_count over the published stories (v1 and v2, with trailing slash)', async () => {
    for (const path of ['/v1/cdn/tags/', '/v1/cdn/tags', '/v2/cdn/tags']) {
      const r = await server.api(path);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ tags: PUBLISHED_TAGS });
      expect(r.headers.get('total')).toBe('5');
      expect(r.headers.get('per-page')).not.toBeNull();
    }
  });

  it('contract "starts_with": counts only stories under the full_slug prefix', async () => {
    const r = await server.api('/v2/cdn/tags', { starts_with: 'blog/' });
    expect(r.body.tags).toEqual([
      { name: 'news', taggings_count: 2 },
      { name: 'tech', taggings_count: 2 },
    ]);
    const none = await server.api('/v2/cdn/tags', { starts_with: 'nothing/' });
    expect(none.status).toBe(200);
    expect(none.body.tags).toEqual([]);
  });

  it('contract "version": version=draft counts the draft-only story\'s tag', async () => {
    const r = await server.api('/v2/cdn/tags', { version: 'draft' }, PREVIEW);
    expect(r.status).toBe(200);
    expect(r.body.tags).toContainEqual({ name: 'secret', taggings_count: 1 });
    expect(r.body.tags).toHaveLength(6);
  });

  it('contract "version": the default view of tags is published', async () => {
    const r = await server.api('/v2/cdn/tags', {}, PREVIEW);
    expect(r.body.tags).toEqual(PUBLISHED_TAGS);
  });
});
