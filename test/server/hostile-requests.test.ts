/**
 * Requests a client shapes to hurt the local service, over HTTP: lists long enough to hold every
 * client up (refused with a 422 naming the parameter), values that would each keep another copy of
 * the space in memory, a Host header that would break the JSON of the answer; and a custom field
 * whose text looks like a timestamp with an offset, which sorts as text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { rawRequest } from './conformance/support.js';

describe('hostile query sizes do not stall the service', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ space: generateDemoSpace({ stories: 1000 }) });
  });
  afterAll(() => server.close());

  /** The answer to a listing with `query`; the service answers the next request after it. */
  async function listed(query: string): Promise<{ status: number; body: any }> {
    const cv = String(server.service.store.space.version);
    const r = await server.get(`/v2/cdn/stories?token=test-public&cv=${cv}&${query}`);
    expect((await server.get('/v2/cdn/spaces/me?token=test-public')).status).toBe(200);
    return r;
  }

  it('sort_by with more than 32 keys is refused (each key was a pass over every story: 50,000 held every client up for seconds)', async () => {
    expect((await listed(`sort_by=${Array(32).fill('name:asc').join(',')}`)).status).toBe(200);
    const r = await listed(`sort_by=${Array(50_000).fill('a').join(',')}`);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/^sort_by: more than 32 keys/);
  });

  it('by_slugs or excluding_slugs with more than 100 distinct wildcard patterns is refused; full slugs and repeats are not limited', async () => {
    const patterns = Array.from({ length: 30_000 }, (_, i) => `*${i}*`).join(',');
    for (const name of ['by_slugs', 'excluding_slugs']) {
      const r = await listed(`${name}=${patterns}`);
      expect(r.status).toBe(422);
      expect(r.body.error).toMatch(new RegExp(`^${name}: more than 100 different patterns with \\*`));
    }
    expect((await listed(`by_slugs=${Array(5_000).fill('*a*').join(',')}`)).status).toBe(200);
    const slugs = Array.from({ length: 2_000 }, (_, i) => `no-such-page-${i}`).join(',');
    expect((await listed(`by_slugs=${slugs}`)).status).toBe(200);
  });
});

describe('client-chosen fallback_lang / from_release values do not grow memory without bound', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ space: generateDemoSpace({ stories: 200 }) });
  });
  afterAll(() => server.close());

  it('an unknown fallback_lang or from_release reads the same listing as none (no new memoized copy of the space)', async () => {
    for (let i = 0; i < 20; i++) {
      expect(
        (await server.api('/v2/cdn/stories', { language: 'de', fallback_lang: `zz${i}`, per_page: '1' })).status,
      ).toBe(200);
      expect((await server.api('/v2/cdn/stories', { from_release: String(90_000 + i), per_page: '1' })).status).toBe(
        200,
      );
    }
    const store = server.service.store;
    // Each distinct value above built (and kept until content changes) a materialized copy of every story.
    expect(store.entries({ view: 'published', lang: 'de', fallbackLang: 'zz7' })).toBe(
      store.entries({ view: 'published', lang: 'de' }),
    );
    expect(store.entries({ view: 'published', lang: 'default', release: 90_007 })).toBe(
      store.entries({ view: 'published', lang: 'default' }),
    );
  });
});

describe('asset URLs at the service origin', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ space: generateDemoSpace({ stories: 60 }), assetUrls: 'self' });
  });
  afterAll(() => server.close());

  it('a Host header with a quote cannot break (or inject into) the JSON body', async () => {
    const cv = String(server.service.store.space.version);
    const r = await rawRequest(server.url, `/v2/cdn/stories?token=test-public&cv=${cv}&per_page=100`, {
      headers: { host: 'x/f/0/","injected":"1' },
    });
    expect(r.status).toBe(200);
    // Contract: "Every response body, including errors, is JSON."
    let parsed = true;
    try {
      JSON.parse(r.text);
    } catch {
      parsed = false;
    }
    expect(parsed).toBe(true);
    expect(r.text.includes('"injected"')).toBe(false);
  });
});

describe('sort_by on a custom field sorts as strings', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ admin: true });
  });
  afterAll(() => server.close());

  async function publish(name: string, when: string): Promise<number> {
    const created = await server.get('/__admin/stories', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, content: { component: 'event', when } }),
    });
    expect(created.status).toBe(201);
    const id = created.body.story.id as number;
    expect((await server.get(`/__admin/stories/${id}/publish`, { method: 'POST' })).status).toBe(200);
    return id;
  }

  it('content.<field>:asc orders timestamp-like text with offsets by its text, not by the instant it names', async () => {
    const late = await publish('Late text', '2024-01-01 10:00+0100'); // 09:00Z
    const early = await publish('Early text', '2024-01-01 09:30-0100'); // 10:30Z
    const r = await server.api('/v2/cdn/stories', {
      'filter_query[component][in]': 'event',
      sort_by: 'content.when:asc',
    });
    expect(r.status).toBe(200);
    // "Custom fields sort as strings unless a type suffix :float or :int is appended":
    // "2024-01-01 09:30-0100" < "2024-01-01 10:00+0100".
    expect(r.body.stories.map((s: { id: number }) => s.id)).toEqual([early, late]);
  });
});
