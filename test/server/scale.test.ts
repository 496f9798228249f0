/**
 * The control plane and a synced snapshot's folders at scale: what the lookups that replaced
 * searches compute (the cost itself is measured by `npm run bench -- scale`).
 */
import { describe, expect, it } from 'vitest';
import { SpaceStore } from '../../src/server/store.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { DIMENSIONS, OUTER, entries, foldersSpace, labelledDatasource } from '../helpers/scale-spaces.js';
import { startTestServer } from '../helpers/server.js';

describe('a space with many folders', () => {
  it('puts each derived folder in the folder of its path', () => {
    const store = new SpaceStore(foldersSpace(3, false));
    expect(store.folder(OUTER)?.parent_id).toBe(0);
    for (let i = 0; i < 3; i++)
      expect(store.folder(600_000 + i)).toMatchObject({ full_slug: `outer/f${i}`, parent_id: OUTER });
  });
});

describe('control plane at scale', () => {
  it('keeps the ids of entries it replaces by name', () => {
    const store = new SpaceStore(fixtureSpace());
    store.replaceDatasourceEntries('kept', { dimensions: DIMENSIONS, entries: entries(3) });
    const before = store.datasourceEntries('kept', undefined).map((e) => [e.name, e.id]);
    store.replaceDatasourceEntries('kept', { dimensions: DIMENSIONS, entries: entries(4).reverse() });
    const after = new Map(store.datasourceEntries('kept', undefined).map((e) => [e.name, e.id]));
    for (const [name, id] of before) expect(after.get(name as string)).toBe(id);
    expect(after.size).toBe(4);
  });
});

describe('a datasource of many entries, paged', () => {
  it('answers each page as the slice of all its entries, in each dimension, and the entries a replacement put', async () => {
    const space = fixtureSpace();
    space.datasources.push(labelledDatasource(7, 'large', 2_500));
    const server = await startTestServer({ space, admin: true });
    try {
      const pages = async (params: Record<string, string>) => {
        const all: unknown[] = [];
        for (let page = 1; page <= 3; page++) {
          const r = await server.api('/v2/cdn/datasource_entries', { ...params, per_page: '1000', page: String(page) });
          expect(r.headers.get('total')).toBe('2500');
          all.push(...r.body.datasource_entries);
        }
        return all;
      };
      const entry = (i: number, value: string | null) => ({
        id: 700_000 + i,
        name: `entry-${i}`,
        value: `value ${i}`,
        dimension_value: value,
      });
      const ids = Array.from({ length: 2_500 }, (_, i) => i);
      expect(await pages({ datasource: 'large' })).toEqual(ids.map((i) => entry(i, null)));
      expect(await pages({ datasource: 'large', dimension: 'de' })).toEqual(ids.map((i) => entry(i, `Wert ${i}`)));
      // A dimension the datasource lacks; then every datasource (by id: large first, then the fixture's colors).
      expect(await pages({ datasource: 'large', dimension: 'fr' })).toEqual(ids.map((i) => entry(i, null)));
      const everything = await server.api('/v2/cdn/datasource_entries', {
        dimension: 'de',
        per_page: '1000',
        page: '3',
      });
      const values = everything.body.datasource_entries.map((e: { dimension_value: string }) => e.dimension_value);
      expect(values.slice(499, 503)).toEqual(['Wert 2499', 'Rot', 'Blau', null]);
      const put = await fetch(`${server.url}/__admin/datasources/large/entries`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ entries: [{ name: 'entry-1', value: 'one', dimension_values: { de: 'eins' } }] }),
      });
      expect(put.status).toBe(200);
      const after = await server.api('/v2/cdn/datasource_entries', { datasource: 'large', dimension: 'de' });
      expect(after.body.datasource_entries).toEqual([
        { id: 700_001, name: 'entry-1', value: 'one', dimension_value: 'eins' },
      ]);
    } finally {
      await server.close();
    }
  });
});
