import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { NOT_FOUND, PUBLISHED_IDS, ids, rawRequest } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const cvQuery = () => `token=${PUBLIC}&cv=${server.service.store.space.version}`;

describe('contract "Errors"', () => {
  it('contract "Errors" 400: a request with an XML body is a wrong format, answered in JSON', async () => {
    const r = await rawRequest(server.url, `/v2/cdn/stories?${cvQuery()}`, {
      headers: { 'content-type': 'application/xml' },
      body: '<stories></stories>',
    });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body).toEqual({ error: expect.any(String) });
  });

  it('contract "Errors" 400: Accept: application/xml is a wrong format', async () => {
    const r = await server.get(`/v2/cdn/stories?${cvQuery()}`, { headers: { accept: 'application/xml' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: expect.any(String) });
  });

  it('contract "Errors" 400: the wrong format is refused even for a URL already answered from the CDN cache', async () => {
    const path = `/v2/cdn/stories/home?${cvQuery()}`;
    expect((await server.get(path)).status).toBe(200);
    expect((await server.get(path)).status).toBe(200);
    const xml = await server.get(path, { headers: { accept: 'application/xml' } });
    expect(xml.status).toBe(400);
    expect(xml.body).toEqual({ error: expect.any(String) });
    const body = await rawRequest(server.url, path, { headers: { 'content-type': 'text/xml' }, body: '<story/>' });
    expect(body.status).toBe(400);
  });

  it('contract "Endpoints": Accept: application/json (as in the examples) is served', async () => {
    const r = await server.get(`/v2/cdn/stories?${cvQuery()}`, { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
  });

  it('contract "Errors" 401: JSON body', async () => {
    const r = await server.get('/v2/cdn/stories/home?token=wrong');
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toEqual({ error: 'Unauthorized' });
  });

  it('contract "Errors" 404 / notes: an unknown story and an unknown route answer ["This record could not be found"]', async () => {
    for (const path of [
      '/v2/cdn/stories/does/not/exist',
      '/v1/cdn/stories/does-not-exist',
      '/v2/cdn/nothing',
      '/v1/cdn/assets',
      '/nothing',
    ]) {
      const r = await server.get(`${path}?${cvQuery()}`);
      expect(r.status, path).toBe(404);
      expect(r.body, path).toEqual(NOT_FOUND);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('contract "What the service does": every operation is GET; other methods are 405 with a JSON body', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await rawRequest(server.url, `/v2/cdn/stories?${cvQuery()}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(r.status, method).toBe(405);
      expect(r.body).toEqual({ error: expect.any(String) });
    }
  });

  it('contract "Errors" rule 2 / notes: v2 unknown parameters on the stories list are 422 naming them', async () => {
    const r = await server.api('/v2/cdn/stories', { foo: '1', bar: '2' });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ error: 'Parameter(s) foo, bar not allowed' });
  });

  it('contract "Errors" rule 2: v2 unknown parameters on a single story are 422', async () => {
    const r = await server.api('/v2/cdn/stories/home', { unknown_thing: 'x' });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ error: 'Parameter(s) unknown_thing not allowed' });
  });

  it('notes "Status codes" 422: list-only parameters on a single story (is_startpage, starts_with, per_page)', async () => {
    const r = await server.api('/v2/cdn/stories/home', { is_startpage: '1' });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ error: 'Parameter(s) is_startpage not allowed' });
    const two = await server.api('/v2/cdn/stories/home', { starts_with: 'blog/', per_page: '2' });
    expect(two.status).toBe(422);
    expect(two.body).toEqual({ error: 'Parameter(s) starts_with, per_page not allowed' });
    const fq = await server.api('/v2/cdn/stories/home', { 'filter_query[component][in]': 'page' });
    expect(fq.status).toBe(422);
    expect(fq.body).toEqual({ error: 'Parameter(s) filter_query[component][in] not allowed' });
  });

  it('contract "Errors" rule 2: version 1 ignores unknown parameters and returns the unfiltered result', async () => {
    const r = await server.api('/v1/cdn/stories', { foo: 'bar', filter_by: 'x' });
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(PUBLISHED_IDS);
    const single = await server.api('/v1/cdn/stories/home', { is_startpage: '1', foo: 'bar' });
    expect(single.status).toBe(200);
    expect(single.body.story.id).toBe(10);
  });

  it('contract "Versioning": version 1 ignores the parameters version 2 added (content_type, level, by_ids, resolve_assets)', async () => {
    const added: Array<Record<string, string>> = [
      { content_type: 'author' },
      { level: '1' },
      { level: '0' },
      { by_ids: '10' },
      { resolve_assets: '1' },
    ];
    for (const params of added) {
      const r = await server.api('/v1/cdn/stories', params);
      expect(r.status, JSON.stringify(params)).toBe(200);
      expect(ids(r.body), JSON.stringify(params)).toEqual(PUBLISHED_IDS);
      expect(r.body, JSON.stringify(params)).not.toHaveProperty('assets');
    }
    const v2 = await server.api('/v2/cdn/stories', { content_type: 'author' });
    expect(ids(v2.body).length).toBeLessThan(PUBLISHED_IDS.length);
  });

  it('contract "Errors" 422: malformed values (per_page=abc, page=0, level=x, bad dates, bad sort_by)', async () => {
    const cases: Array<Record<string, string>> = [
      { per_page: 'abc' },
      { page: '0' },
      { page: 'x' },
      { level: 'x' },
      { published_at_gt: 'yesterday' },
      { sort_by: 'name:sideways' },
      { excluding_ids: 'a,b' },
      { version: 'latest' },
      { is_startpage: 'maybe' },
    ];
    for (const params of cases) {
      const r = await server.api('/v2/cdn/stories', params);
      expect(r.status, JSON.stringify(params)).toBe(422);
      expect(r.body).toEqual({ error: expect.any(String) });
    }
    // Datasources take no version: there it is a parameter like any other they ignore.
    for (const path of ['/v1/cdn/datasources', '/v2/cdn/datasource_entries'])
      expect((await server.api(path, { version: 'latest' })).status, path).toBe(200);
    expect((await server.api('/v2/cdn/tags', { version: 'latest' })).status).toBe(422);
  });

  it('contract "Errors" 422: a broken filter_query', async () => {
    const cases: Array<Record<string, string>> = [
      { 'filter_query[title]': 'x' },
      { 'filter_query[title][nope]': 'x' },
      { 'filter_query[rating][gt_int]': 'ten' },
      { 'filter_query[date][gt_date]': 'soon' },
      { 'filter_query[title][is]': 'maybe' },
      { 'filter_query[title': 'x' },
    ];
    for (const params of cases) {
      const r = await server.api('/v2/cdn/stories', params);
      expect(r.status, JSON.stringify(params)).toBe(422);
      expect(r.body).toEqual({ error: expect.any(String) });
    }
  });

  it('contract "resolve_links": an unknown mode is 422; link exists only in version 2', async () => {
    const v2 = await server.api('/v2/cdn/stories/home', { resolve_links: 'everything' });
    expect(v2.status).toBe(422);
    expect(v2.body).toEqual({ error: expect.any(String) });
    const v1 = await server.api('/v1/cdn/stories/home', { resolve_links: 'link' });
    expect(v1.status).toBe(422);
    const ok = await server.api('/v2/cdn/stories/home', { resolve_links: 'link' });
    expect(ok.status).toBe(200);
  });
});

describe('contract "Errors" 429 and "Limits"', () => {
  it('contract "Limits" / notes "Status codes" 429: exceeding the rate gives 429 with a JSON body', async () => {
    const limited = await startTestServer({ rateLimit: true });
    try {
      const q = `token=${PUBLIC}&cv=${limited.service.store.space.version}&per_page=100`;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => limited.get(`/v2/cdn/stories?${q}&page=${i + 1}`)),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
      const tooMany = answers.find((a) => a.status === 429);
      expect(tooMany).toBeDefined();
      expect(tooMany!.body).toEqual({ error: expect.any(String) });
      expect(tooMany!.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await limited.close();
    }
  });

  it('contract "Errors" 5xx: server-side errors carry a JSON body', async () => {
    const failing = await startTestServer({ faults: { rates: { '503': 1 }, seed: 1, slowMs: 0 } });
    try {
      const r = await failing.api('/v2/cdn/stories');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ error: expect.any(String) });
    } finally {
      await failing.close();
    }
  });
});
