import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { SPACE_VERSION } from '../../helpers/fixture-space.js';
import http from 'node:http';
import { queryOf } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ admin: true });
});
afterAll(() => server.close());

const current = () => String(server.service.store.space.version);

describe('notes "Cache version": v2 published view redirects to the current cv', () => {
  const cases: Array<[string, string | undefined]> = [
    ['without cv', undefined],
    ['with a stale cv', String(SPACE_VERSION - 100)],
    ['with a future cv', String(SPACE_VERSION + 1_000_000)],
    ['with cv=0', '0'],
    ['with a non-numeric cv', 'abc'],
  ];
  for (const [what, cv] of cases) {
    it(`notes "Cache version": a stories list ${what} is 301 to the same path and query with cv=current`, async () => {
      const q = new URLSearchParams({
        token: PUBLIC,
        starts_with: 'blog/',
        'filter_query[component][in]': 'article',
        sort_by: 'name:desc',
        per_page: '2',
      });
      if (cv !== undefined) q.set('cv', cv);
      const r = await server.get(`/v2/cdn/stories?${q}`);
      expect(r.status).toBe(301);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const location = r.headers.get('location')!;
      expect(new URL(location, server.url).pathname).toBe('/v2/cdn/stories');
      expect(queryOf(location)).toEqual({ ...Object.fromEntries(q), cv: current() });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const followed = await server.get(location);
      expect(followed.status).toBe(200);
      expect(followed.body.cv).toBe(Number(current()));
    });
  }

  it('notes "Cache version": a single story, datasources and datasource entries without cv are redirected too', async () => {
    for (const path of [
      '/v2/cdn/stories/blog/first-post',
      '/v2/cdn/stories/12',
      '/v2/cdn/datasources',
      '/v2/cdn/datasource_entries',
    ]) {
      const r = await server.get(`${path}?token=${PUBLIC}`);
      expect(r.status, path).toBe(301);
      const location = r.headers.get('location')!;
      expect(new URL(location, server.url).pathname, path).toBe(path);
      expect(queryOf(location).cv).toBe(current());
      expect(queryOf(location).token).toBe(PUBLIC);
    }
  });

  it('notes "Cache version": Location keeps repeated parameters and special characters', async () => {
    const q = new URLSearchParams({ token: PUBLIC });
    q.append('filter_query[__or][][title][like]', 'Alpha*');
    q.append('filter_query[__or][][component][in]', 'author');
    q.append('search_term', 'a b&c=d/é');
    const r = await server.get(`/v2/cdn/stories?${q}`);
    expect(r.status).toBe(301);
    const params = new URL(r.headers.get('location')!, server.url).searchParams;
    expect(params.getAll('filter_query[__or][][title][like]')).toEqual(['Alpha*']);
    expect(params.getAll('filter_query[__or][][component][in]')).toEqual(['author']);
    expect(params.get('search_term')).toBe('a b&c=d/é');
    expect(params.getAll('cv')).toEqual([current()]);
  });

  it('notes "Cache version": Location repeats the query as sent, byte for byte, with its cv replaced', async () => {
    // As a client encodes it (not as URLSearchParams would): `%20`, raw `*` and `/`, an invalid byte, a cv spelt encoded.
    const sent = `token=${PUBLIC}&filter_query[title][like]=*the%20best*&by_slugs=blog/*&&search_term='%FF'&c%76=1`;
    // Sent as written (a URL given to fetch or http.request has its quotes encoded first).
    const r = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: server.port, path: `/v2/cdn/stories?${sent}` }, resolve);
      req.on('error', reject);
    });
    r.resume();
    expect(r.statusCode).toBe(301);
    const location = String(r.headers.location);
    expect(location).toBe(`/v2/cdn/stories?${sent.replace('&c%76=1', '')}&cv=${current()}`);
    expect((await server.get(location)).status).toBe(200);
  });

  it('notes "Cache version": a single story path with slashes keeps its path in Location', async () => {
    const r = await server.get(
      `/v2/cdn/stories/products/shoes/runner?token=${PUBLIC}&resolve_relations=page.featured&cv=1`,
    );
    expect(r.status).toBe(301);
    const location = r.headers.get('location')!;
    expect(new URL(location, server.url).pathname).toBe('/v2/cdn/stories/products/shoes/runner');
    expect(queryOf(location)).toEqual({ token: PUBLIC, resolve_relations: 'page.featured', cv: current() });
  });

  it('notes "Cache version": the current cv gets 200 and the body carries cv (single and list)', async () => {
    const list = await server.api('/v2/cdn/stories');
    expect(list.status).toBe(200);
    expect(list.body.cv).toBe(Number(current()));
    const single = await server.api('/v2/cdn/stories/home');
    expect(single.status).toBe(200);
    expect(single.body.cv).toBe(Number(current()));
  });

  it('notes "Cache version": datasources and datasource_entries carry cv; tags do not', async () => {
    expect((await server.api('/v2/cdn/datasources')).body.cv).toBe(Number(current()));
    expect((await server.api('/v2/cdn/datasource_entries')).body.cv).toBe(Number(current()));
    const tags = await server.api('/v2/cdn/tags');
    expect(tags.status).toBe(200);
    expect(tags.body).not.toHaveProperty('cv');
  });

  it('notes "Cache version": tags are not redirected without cv', async () => {
    const r = await server.get(`/v2/cdn/tags?token=${PUBLIC}`);
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('cv');
  });
});

describe('notes "Cache version": draft view, spaces/me and v1', () => {
  it('notes "Cache version": the draft view is never redirected and accepts any cv', async () => {
    for (const cv of [undefined, '0', 'abc', '1', current()]) {
      const q = new URLSearchParams({ token: PREVIEW, version: 'draft' });
      if (cv !== undefined) q.set('cv', cv);
      const list = await server.get(`/v2/cdn/stories?${q}`);
      expect(list.status).toBe(200);
      expect(list.body.stories).toHaveLength(11);
      expect(list.body.cv).toBe(Number(current()));
      const single = await server.get(`/v2/cdn/stories/blog/draft-only?${q}`);
      expect(single.status).toBe(200);
      expect(single.body.story.id).toBe(15);
    }
  });

  it('notes "Cache version": spaces/me carries space.version and is never redirected', async () => {
    for (const api of ['v1', 'v2']) {
      for (const suffix of ['', '&cv=1']) {
        const r = await server.get(`/${api}/cdn/spaces/me?token=${PUBLIC}${suffix}`);
        expect(r.status).toBe(200);
        expect(r.body.space.version).toBe(Number(current()));
      }
    }
  });

  it('contract "GET /v1/cdn/spaces/me/": space has id, name, domain, version, language_codes; v2 adds cv', async () => {
    const v1 = await server.get(`/v1/cdn/spaces/me/?token=${PUBLIC}`);
    expect(v1.body).toEqual({
      space: {
        id: 4242,
        name: 'Fixture space',
        domain: 'https://fixture.example.com/',
        version: Number(current()),
        language_codes: ['de'],
      },
    });
    const v2 = await server.get(`/v2/cdn/spaces/me?token=${PUBLIC}`);
    expect(v2.body.cv).toBe(Number(current()));
  });

  it('notes "Cache version": v1 never redirects and has no body cv', async () => {
    for (const path of [
      '/v1/cdn/stories',
      '/v1/cdn/stories/home',
      '/v1/cdn/datasources',
      '/v1/cdn/datasource_entries',
    ]) {
      for (const suffix of ['', '&cv=0', '&cv=abc']) {
        const r = await server.get(`${path}?token=${PUBLIC}${suffix}`);
        expect(r.status, path + suffix).toBe(200);
        expect(r.body, path).not.toHaveProperty('cv');
      }
    }
  });

  it('notes "Cache version": space.version only grows and changes when published content changes; old cv is then redirected', async () => {
    const before = Number(current());
    const created = await fetch(`${server.url}/__admin/stories`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Fresh', slug: 'fresh', parent_id: 0, content: { component: 'page' } }),
    });
    expect(created.status).toBe(201);
    const { story } = (await created.json()) as { story: { id: number } };
    expect(Number(current())).toBe(before);
    const published = await fetch(`${server.url}/__admin/stories/${story.id}/publish`, { method: 'POST' });
    expect(published.status).toBe(200);
    const after = Number(current());
    expect(after).toBeGreaterThan(before);
    const me = await server.get(`/v1/cdn/spaces/me?token=${PUBLIC}`);
    expect(me.body.space.version).toBe(after);
    const stale = await server.get(`/v2/cdn/stories/fresh?token=${PUBLIC}&cv=${before}`);
    expect(stale.status).toBe(301);
    expect(queryOf(stale.headers.get('location')!).cv).toBe(String(after));
    const fresh = await server.api('/v2/cdn/stories/fresh');
    expect(fresh.status).toBe(200);
    expect(fresh.body.cv).toBe(after);
  });
});
