import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ids } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const filter = async (params: Record<string, string>, api: 'v1' | 'v2' = 'v2'): Promise<number[]> => {
  const r = await server.api(`/${api}/cdn/stories`, params);
  expect(r.status).toBe(200);
  return ids(r.body);
};

describe('contract "Filter queries"', () => {
  it('contract "Filter queries": component filters on the content type (v1 and v2)', async () => {
    expect(await filter({ 'filter_query[component][in]': 'article' })).toEqual([12, 13, 14]);
    expect(await filter({ 'filter_query[component][in]': 'article' }, 'v1')).toEqual([12, 13, 14]);
  });

  it('contract "Filter queries": in matches one of the comma-separated values', async () => {
    expect(await filter({ 'filter_query[rating][in]': '5,12' })).toEqual([12, 13]);
  });

  it('notes "Query semantics": in with an empty value matches empty strings, nulls and missing fields', async () => {
    expect(await filter({ 'filter_query[rating][in]': '' })).toEqual([10, 11, 16, 17, 18, 19, 20]);
  });

  it('contract "Filter queries": not_in matches none of the values', async () => {
    expect(await filter({ 'filter_query[component][not_in]': 'article,page' })).toEqual([16, 17, 19, 20]);
  });

  it('contract "Filter queries": like with a trailing * matches a prefix', async () => {
    expect(await filter({ 'filter_query[title][like]': 'Alpha*' })).toEqual([12]);
  });

  it('contract "Filter queries": like with a leading and trailing * matches a substring', async () => {
    expect(await filter({ 'filter_query[title][like]': '*et*' })).toEqual([13]);
    expect(await filter({ 'filter_query[title][like]': '*john*' })).toEqual([14]);
  });

  it('contract "Filter queries": not_like is the negation of like', async () => {
    expect(
      await filter({ 'filter_query[component][in]': 'article', 'filter_query[title][not_like]': 'Alpha*' }),
    ).toEqual([13, 14]);
  });

  it('contract "Filter queries": is=empty / not_empty on strings; notes: empty also matches a missing field', async () => {
    expect(await filter({ 'filter_query[seo.title][is]': 'not_empty' })).toEqual([12]);
    expect(await filter({ 'filter_query[seo.title][is]': 'empty' })).toEqual([10, 11, 13, 14, 16, 17, 18, 19, 20]);
  });

  it('contract "Filter queries": is=empty_array / not_empty_array on arrays', async () => {
    expect(await filter({ 'filter_query[categories][is]': 'not_empty_array' })).toEqual([12, 13]);
    expect(
      await filter({ 'filter_query[component][in]': 'article', 'filter_query[categories][is]': 'empty_array' }),
    ).toEqual([14]);
  });

  it('contract "Filter queries": is=true / false on booleans', async () => {
    expect(await filter({ 'filter_query[published][is]': 'true' })).toEqual([12]);
    expect(await filter({ 'filter_query[published][is]': 'false' })).toEqual([13]);
  });

  it('contract "Filter queries": is=null / not_null', async () => {
    expect(await filter({ 'filter_query[rating][is]': 'not_null' })).toEqual([12, 13, 14]);
    expect(await filter({ 'filter_query[component][in]': 'article', 'filter_query[price][is]': 'null' })).toEqual([14]);
  });

  it('contract "Filter queries": in_array matches any of the values; notes: any_in_array is a synonym', async () => {
    expect(await filter({ 'filter_query[categories][in_array]': 'a,b' })).toEqual([12, 13]);
    expect(await filter({ 'filter_query[categories][in_array]': 'a' })).toEqual([12]);
    expect(await filter({ 'filter_query[categories][any_in_array]': 'a,b' })).toEqual([12, 13]);
  });

  it('contract "Filter queries": all_in_array needs every value', async () => {
    expect(await filter({ 'filter_query[categories][all_in_array]': 'a,b' })).toEqual([12]);
    expect(await filter({ 'filter_query[categories][all_in_array]': 'b' })).toEqual([12, 13]);
  });

  it('contract "Filter queries": gt_date / lt_date compare YYYY-mm-dd HH:MM dates', async () => {
    expect(await filter({ 'filter_query[date][gt_date]': '2024-03-15 00:00' })).toEqual([13, 14]);
    expect(await filter({ 'filter_query[date][lt_date]': '2024-04-15 00:00' })).toEqual([12, 13]);
    expect(await filter({ 'filter_query[date][gt_date]': '2024-04-01 08:00' })).toEqual([14]);
  });

  it('contract "Filter queries": gt_int / lt_int work on numeric strings; notes: non-numeric values do not match', async () => {
    expect(await filter({ 'filter_query[rating][gt_int]': '6' })).toEqual([13]);
    expect(await filter({ 'filter_query[rating][lt_int]': '6' })).toEqual([12]);
    expect(await filter({ 'filter_query[rating][gt_int]': '-1000' })).toEqual([12, 13]);
  });

  it('contract "Filter queries": gt_float / lt_float with a decimal point', async () => {
    expect(await filter({ 'filter_query[price][gt_float]': '10.5' })).toEqual([12, 19, 20]);
    expect(await filter({ 'filter_query[price][lt_float]': '10.5' })).toEqual([13]);
  });

  it('contract "Filter queries": dot notation reaches nested keys', async () => {
    expect(await filter({ 'filter_query[seo.title][in]': 'SEO alpha' })).toEqual([12]);
  });

  it('notes "Query semantics": several filters combine with AND', async () => {
    expect(
      await filter({
        'filter_query[component][in]': 'article',
        'filter_query[rating][gt_int]': '0',
        'filter_query[categories][in_array]': 'a',
      }),
    ).toEqual([12]);
  });

  it('notes "Query semantics": filter_query[__or][] gives OR', async () => {
    const q = new URLSearchParams();
    q.append('filter_query[__or][][title][like]', 'Alpha*');
    q.append('filter_query[__or][][component][in]', 'author');
    expect(await filter(Object.fromEntries(q))).toEqual([12, 16, 17]);
  });

  it('contract "Filter queries": filters combine with starts_with, sort_by and paging', async () => {
    const r = await server.api('/v2/cdn/stories', {
      starts_with: 'blog/',
      'filter_query[component][in]': 'article',
      sort_by: 'name:desc',
      per_page: '2',
      page: '1',
    });
    expect(ids(r.body)).toEqual([14, 13]);
    expect(r.headers.get('total')).toBe('3');
    expect(r.headers.get('per-page')).toBe('2');
  });

  it('contract "Filter queries": does not apply to top-level story properties', async () => {
    expect(await filter({ 'filter_query[slug][in]': 'first-post' })).toEqual([]);
  });
});
