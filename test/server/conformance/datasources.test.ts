import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const COLORS = {
  id: 100,
  name: 'Colors',
  slug: 'colors',
  dimensions: [{ id: 1001, entry_value: 'de', name: 'German' }],
};
const COUNTRIES = { id: 200, name: 'Countries', slug: 'countries', dimensions: [] };

describe('contract "GET /v1/cdn/datasources"', () => {
  it('contract "Datasource": id, name, slug and dimensions {id, entry_value, name}', async () => {
    for (const api of ['v1', 'v2']) {
      const r = await server.api(`/${api}/cdn/datasources`);
      expect(r.status).toBe(200);
      expect(r.body.datasources).toEqual([COLORS, COUNTRIES]);
      expect(r.headers.get('total')).toBe('2');
    }
  });

  it('contract "GET /v1/cdn/datasources": page and per_page', async () => {
    const second = await server.api('/v2/cdn/datasources', { per_page: '1', page: '2' });
    expect(second.body.datasources).toEqual([COUNTRIES]);
    expect(second.headers.get('per-page')).toBe('1');
    expect(second.headers.get('total')).toBe('2');
    const past = await server.api('/v2/cdn/datasources', { per_page: '1', page: '3' });
    expect(past.status).toBe(200);
    expect(past.body.datasources).toEqual([]);
  });
});

describe('contract "GET /v1/cdn/datasource_entries"', () => {
  it('contract "datasource": entries of one datasource by slug; dimension_value is null without dimension', async () => {
    const r = await server.api('/v2/cdn/datasource_entries', { datasource: 'colors' });
    expect(r.status).toBe(200);
    expect(r.body.datasource_entries).toEqual([
      { id: 1101, name: 'red', value: 'Red', dimension_value: null },
      { id: 1102, name: 'blue', value: 'Blue', dimension_value: null },
      { id: 1103, name: 'green', value: 'Green', dimension_value: null },
    ]);
    expect(r.headers.get('total')).toBe('3');
  });

  it('contract "datasource": a datasource addressed by its id', async () => {
    const r = await server.api('/v1/cdn/datasource_entries', { datasource: '100' });
    expect(r.body.datasource_entries.map((e: { id: number }) => e.id)).toEqual([1101, 1102, 1103]);
  });

  it('contract "dimension": fills dimension_value; entries without a value in it get null', async () => {
    const r = await server.api('/v2/cdn/datasource_entries', { datasource: 'colors', dimension: 'de' });
    expect(r.body.datasource_entries).toEqual([
      { id: 1101, name: 'red', value: 'Red', dimension_value: 'Rot' },
      { id: 1102, name: 'blue', value: 'Blue', dimension_value: 'Blau' },
      { id: 1103, name: 'green', value: 'Green', dimension_value: null },
    ]);
  });

  it('contract "GET /v1/cdn/datasource_entries": without datasource, the entries of every datasource', async () => {
    const r = await server.api('/v2/cdn/datasource_entries', { per_page: '100' });
    expect(r.body.datasource_entries).toHaveLength(33);
    expect(r.headers.get('total')).toBe('33');
    expect(r.body.datasource_entries[0].id).toBe(1101);
    expect(r.body.datasource_entries[32].id).toBe(2030);
  });

  it('contract "Errors" rule 3: an unknown datasource is an empty list, not 404', async () => {
    const r = await server.api('/v2/cdn/datasource_entries', { datasource: 'nope' });
    expect(r.status).toBe(200);
    expect(r.body.datasource_entries).toEqual([]);
    expect(r.headers.get('total')).toBe('0');
  });

  it('contract "datasource_entries": page and per_page', async () => {
    const r = await server.api('/v2/cdn/datasource_entries', { datasource: 'countries', per_page: '10', page: '3' });
    expect(r.body.datasource_entries.map((e: { name: string }) => e.name)).toEqual([
      'c20',
      'c21',
      'c22',
      'c23',
      'c24',
      'c25',
      'c26',
      'c27',
      'c28',
      'c29',
    ]);
    expect(r.headers.get('total')).toBe('30');
    expect(r.headers.get('per-page')).toBe('10');
  });
});
