import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, startTestServer, type TestServer } from '../../helpers/server.js';
import { PUBLISHED_IDS, ids } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('contract "Pagination"', () => {
  it('contract "Pagination": per_page default 25 for stories, datasources and datasource entries', async () => {
    const stories = await server.api('/v2/cdn/stories');
    expect(stories.headers.get('per-page')).toBe('25');
    const entries = await server.api('/v2/cdn/datasource_entries');
    expect(entries.body.datasource_entries).toHaveLength(25);
    expect(entries.headers.get('per-page')).toBe('25');
    expect(entries.headers.get('total')).toBe('33');
    const sources = await server.api('/v2/cdn/datasources');
    expect(sources.headers.get('per-page')).toBe('25');
  });

  it('contract "Pagination": page and per_page split the list; page 1 is the default', async () => {
    const pages: number[][] = [];
    for (const page of ['1', '2', '3', '4']) {
      const r = await server.api('/v2/cdn/stories', { per_page: '3', page });
      expect(r.headers.get('total')).toBe('10');
      expect(r.headers.get('per-page')).toBe('3');
      pages.push(ids(r.body));
    }
    expect(pages).toEqual([[10, 11, 12], [13, 14, 16], [17, 18, 19], [20]]);
    expect(ids((await server.api('/v2/cdn/stories', { per_page: '3' })).body)).toEqual([10, 11, 12]);
  });

  it('contract "Pagination" / notes: a page past the end is 200 [] and Total keeps the full count', async () => {
    const r = await server.api('/v2/cdn/stories', { per_page: '3', page: '5' });
    expect(r.status).toBe(200);
    expect(r.body.stories).toEqual([]);
    expect(r.headers.get('total')).toBe('10');
    expect(r.headers.get('per-page')).toBe('3');
    const entries = await server.api('/v2/cdn/datasource_entries', { datasource: 'countries', page: '9' });
    expect(entries.status).toBe(200);
    expect(entries.body.datasource_entries).toEqual([]);
    expect(entries.headers.get('total')).toBe('30');
  });

  it('contract "Pagination": stories per_page is capped at 100 and Per-Page shows the applied value', async () => {
    const r = await server.api('/v2/cdn/stories', { per_page: '500' });
    expect(r.status).toBe(200);
    expect(r.headers.get('per-page')).toBe('100');
    expect(ids(r.body)).toEqual(PUBLISHED_IDS);
  });

  it('contract "Pagination": datasources and datasource entries per_page is capped at 1000', async () => {
    const entries = await server.api('/v2/cdn/datasource_entries', { per_page: '5000' });
    expect(entries.headers.get('per-page')).toBe('1000');
    expect(entries.body.datasource_entries).toHaveLength(33);
    const sources = await server.api('/v2/cdn/datasources', { per_page: '5000' });
    expect(sources.headers.get('per-page')).toBe('1000');
    const exact = await server.api('/v2/cdn/datasource_entries', { per_page: '1000' });
    expect(exact.headers.get('per-page')).toBe('1000');
  });

  it('notes "Pagination": every list carries Total and Per-Page (stories, datasources, entries, tags; v1 and v2)', async () => {
    const lists: Array<[string, Record<string, string>, string]> = [
      ['/v1/cdn/stories', {}, '10'],
      ['/v2/cdn/stories', { version: 'draft' }, '11'],
      ['/v1/cdn/datasources', {}, '2'],
      ['/v2/cdn/datasources', {}, '2'],
      ['/v1/cdn/datasource_entries', { datasource: 'colors' }, '3'],
      ['/v2/cdn/datasource_entries', { datasource: 'colors' }, '3'],
      ['/v1/cdn/tags', {}, '5'],
      ['/v2/cdn/tags', {}, '5'],
    ];
    for (const [path, params, total] of lists) {
      const r = await server.api(path, params, params.version === 'draft' ? PREVIEW : undefined);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('total'), path).toBe(total);
      expect(Number(r.headers.get('per-page')), path).toBeGreaterThanOrEqual(Number(total));
    }
  });

  it('contract "Pagination": datasource entries page through in order', async () => {
    const one = await server.api('/v2/cdn/datasource_entries', { datasource: 'countries', per_page: '25', page: '2' });
    expect(one.body.datasource_entries.map((e: { name: string }) => e.name)).toEqual([
      'c25',
      'c26',
      'c27',
      'c28',
      'c29',
    ]);
  });
});
