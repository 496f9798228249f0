import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ids } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const sorted = async (params: Record<string, string>): Promise<number[]> => {
  const r = await server.api('/v2/cdn/stories', params);
  expect(r.status).toBe(200);
  return ids(r.body);
};

describe('contract "sort_by"', () => {
  it('contract "sort_by": a story property ascending and descending', async () => {
    expect(await sorted({ sort_by: 'name:asc' })).toEqual([18, 11, 12, 10, 16, 17, 19, 13, 14, 20]);
    expect(await sorted({ sort_by: 'name:desc' })).toEqual([20, 14, 13, 19, 17, 16, 10, 12, 11, 18]);
  });

  it('contract "sort_by": several comma-separated keys', async () => {
    expect(await sorted({ sort_by: 'content.component:asc,name:desc' })).toEqual([
      14, 13, 12, 17, 16, 10, 11, 18, 20, 19,
    ]);
  });

  it('contract "sort_by": content fields sort as strings unless typed', async () => {
    expect(await sorted({ starts_with: 'blog/', sort_by: 'content.rating:asc' })).toEqual([13, 12, 14, 11]);
  });

  it('contract "sort_by": :int sorts numerically; notes: nulls and non-numbers last', async () => {
    expect(await sorted({ starts_with: 'blog/', sort_by: 'content.rating:asc:int' })).toEqual([12, 13, 11, 14]);
    expect(await sorted({ starts_with: 'blog/', sort_by: 'content.rating:desc:int' })).toEqual([13, 12, 11, 14]);
  });

  it('contract "sort_by": :float sorts decimals numerically', async () => {
    expect(await sorted({ 'filter_query[price][is]': 'not_empty', sort_by: 'content.price:asc:float' })).toEqual([
      13, 12, 19, 20,
    ]);
    expect(await sorted({ 'filter_query[price][is]': 'not_empty', sort_by: 'content.price:asc' })).toEqual([
      20, 12, 13, 19,
    ]);
  });

  it('notes "Query semantics": nulls sort last in both directions', async () => {
    expect(await sorted({ starts_with: 'blog/', sort_by: 'content.rating:desc' })).toEqual([14, 12, 13, 11]);
    expect(await sorted({ by_slugs: 'products/*,home', sort_by: 'content.price:desc:float' })).toEqual([20, 19, 10]);
  });

  it('contract "sort_by": position:desc gives the admin order', async () => {
    expect(await sorted({ starts_with: 'blog/', sort_by: 'position:desc' })).toEqual([14, 12, 13, 11]);
    expect(await sorted({ starts_with: 'blog/', sort_by: 'position:asc' })).toEqual([11, 13, 12, 14]);
  });

  it('contract "sort_by": nested content fields with the dot separator', async () => {
    expect(await sorted({ 'filter_query[component][in]': 'article', sort_by: 'content.seo.title:desc' })).toEqual([
      12, 13, 14,
    ]);
  });

  it('contract "sort_by": dates sort chronologically', async () => {
    expect(await sorted({ starts_with: 'blog/', sort_by: 'first_published_at:desc' })).toEqual([14, 13, 12, 11]);
  });
});

describe('contract "search_term"', () => {
  it('notes "Query semantics": case-insensitive over name, slug, full_slug and content text', async () => {
    expect(await sorted({ search_term: 'JOHN' })).toEqual([14, 17]);
    expect(await sorted({ search_term: 'alpha' })).toEqual([12]);
    expect(await sorted({ search_term: 'shoes' })).toEqual([19, 20]);
    expect(await sorted({ search_term: 'zzz-nothing' })).toEqual([]);
  });

  it('notes "Query semantics": a term does not match where two fields meet', async () => {
    expect(await sorted({ search_term: 'home' })).toContain(10);
    // The name and the slug of story 10 are Home and home: nothing holds them together, nor a NUL alone.
    expect(await sorted({ search_term: 'home\u0000home' })).toEqual([]);
    expect(await sorted({ search_term: '\u0000' })).toEqual([]);
  });
});
