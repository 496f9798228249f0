import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { NOT_FOUND, UNAUTHORIZED, ids, uuidOf } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const ENDPOINTS = [
  '/v1/cdn/stories',
  '/v2/cdn/stories',
  '/v2/cdn/stories/home',
  '/v1/cdn/spaces/me',
  '/v2/cdn/spaces/me',
  '/v2/cdn/datasources',
  '/v2/cdn/datasource_entries',
  '/v2/cdn/tags',
];

describe('contract "Authentication"', () => {
  it('contract "Authentication" 8 / notes: a missing token is 401 {"error":"Unauthorized"}', async () => {
    for (const path of ENDPOINTS) {
      const r = await server.get(path);
      expect(r.status, path).toBe(401);
      expect(r.body, path).toEqual(UNAUTHORIZED);
    }
  });

  it('contract "Authentication" 8: an empty or invalid token is 401', async () => {
    for (const path of ENDPOINTS) {
      for (const token of ['', 'not-a-token']) {
        const r = await server.api(path, {}, token);
        expect(r.status, path).toBe(401);
        expect(r.body).toEqual(UNAUTHORIZED);
      }
    }
  });

  it('contract "Authentication" 2 / notes: the public token asking for version=draft gets 401', async () => {
    for (const path of ['/v1/cdn/stories', '/v2/cdn/stories', '/v2/cdn/stories/home', '/v2/cdn/tags']) {
      const r = await server.api(path, { version: 'draft' }, PUBLIC);
      expect(r.status, path).toBe(401);
      expect(r.body).toEqual(UNAUTHORIZED);
    }
  });

  it('contract "Authentication" 2: both tokens read the published view', async () => {
    for (const token of [PUBLIC, PREVIEW]) {
      const r = await server.api('/v2/cdn/stories/home', {}, token);
      expect(r.status).toBe(200);
      expect(r.body.story.id).toBe(10);
    }
  });

  it('contract "Errors" 404: a never-published story is 404 on the published view, by slug, id and uuid', async () => {
    for (const token of [PUBLIC, PREVIEW]) {
      for (const [path, params] of [
        ['/v2/cdn/stories/blog/draft-only', {}],
        ['/v2/cdn/stories/15', {}],
        [`/v2/cdn/stories/${uuidOf(15)}`, { find_by: 'uuid' }],
        ['/v1/cdn/stories/blog/draft-only', {}],
      ] as const) {
        const r = await server.api(path, params, token);
        expect(r.status, path).toBe(404);
        expect(r.body).toEqual(NOT_FOUND);
      }
    }
  });

  it('contract "States and transitions": a never-published story is absent from published lists and tag counts', async () => {
    const stories = await server.api('/v2/cdn/stories', { starts_with: 'blog/' }, PREVIEW);
    expect(ids(stories.body)).not.toContain(15);
    const byUuid = await server.api('/v2/cdn/stories', { by_uuids: uuidOf(15) });
    expect(byUuid.body.stories).toEqual([]);
    const tags = await server.api('/v2/cdn/tags', {}, PREVIEW);
    expect(tags.body.tags.map((t: { name: string }) => t.name)).not.toContain('secret');
  });

  it('contract "version": the preview token reads the draft-only story with version=draft', async () => {
    const r = await server.api('/v2/cdn/stories/blog/draft-only', { version: 'draft' }, PREVIEW);
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(15);
    expect(r.body.story.content.title).toBe('Not yet');
  });
});
