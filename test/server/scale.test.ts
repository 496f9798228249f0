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

describe('the slugs the control plane checks, looked up', () => {
  it('frees a slug its holder left (moved, deleted, its folder moved) and takes the one it came to', async () => {
    const server = await startTestServer({ admin: true });
    const admin = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${server.url}/__admin${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    const create = (slug: string, parent_id: number, is_folder = false) =>
      admin('POST', '/stories', { name: slug, slug, parent_id, is_folder });
    try {
      const outer = (await create('outer', 0, true)).body.story.id;
      const story = (await create('a', outer)).body.story.id;
      expect((await admin('POST', `/stories/${story}/publish`)).status).toBe(200);
      expect((await create('a', outer)).status).toBe(422);
      // Moved (its draft and published version): the old slug is free, the new one taken.
      expect((await admin('PUT', `/stories/${story}`, { slug: 'b' })).status).toBe(200);
      expect((await create('b', outer)).status).toBe(422);
      const again = (await create('a', outer)).body.story.id;
      // Unpublished, a story keeps its slug; deleted, it frees it.
      expect((await admin('POST', `/stories/${story}/unpublish`)).status).toBe(200);
      expect((await create('b', outer)).status).toBe(422);
      expect((await admin('DELETE', `/stories/${story}`)).status).toBe(200);
      const b = (await create('b', outer)).body.story.id;
      // The folder moved: its stories' slugs move with it.
      expect((await admin('PUT', `/stories/${outer}`, { slug: 'moved' })).status).toBe(200);
      expect((await create('outer', 0, true)).status).toBe(201);
      expect((await admin('POST', '/stories', { name: 'x', slug: 'moved' })).status).toBe(422);
      const inner = (await create('inner', outer, true)).body.story.id;
      expect((await admin('PUT', `/stories/${again}`, { parent_id: inner })).status).toBe(200);
      expect((await admin('PUT', `/stories/${b}`, { parent_id: inner, slug: 'a' })).status).toBe(422);
      expect((await admin('PUT', `/stories/${b}`, { slug: 'a' })).status).toBe(200);
      // The folder gone once empty: its slug is free.
      expect((await admin('DELETE', `/stories/${again}`)).status).toBe(200);
      expect((await admin('DELETE', `/stories/${inner}`)).status).toBe(200);
      expect((await create('inner', outer, true)).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});

describe('a story listing paged', () => {
  it('answers each page of a query from the same selection, and a change made since in the next page', async () => {
    const server = await startTestServer({ space: foldersSpace(250, true), admin: true });
    try {
      const ids = async (params: Record<string, string>) => {
        const out: number[] = [];
        for (let page = 1; page <= 3; page++) {
          const r = await server.api('/v2/cdn/stories', { ...params, per_page: '100', page: String(page) });
          out.push(...r.body.stories.map((s: { id: number }) => s.id));
          expect(r.headers.get('total')).toBe('251');
        }
        return out;
      };
      const paths = Array.from({ length: 250 }, (_, i) => 900_000 + i);
      expect(await ids({ starts_with: 'outer/' })).toEqual([OUTER + 1, ...paths].sort((a, b) => a - b));
      const slug = (id: number) => (id === OUTER + 1 ? 'outer/intro' : `outer/f${id - 900_000}/page`);
      expect(await ids({ starts_with: 'outer/', sort_by: 'full_slug:desc' })).toEqual(
        [OUTER + 1, ...paths].sort((a, b) => (slug(b) < slug(a) ? -1 : 1)),
      );
      // Unpublished, and so gone from the next page asked of either query.
      expect((await fetch(`${server.url}/__admin/stories/900000/unpublish`, { method: 'POST' })).status).toBe(200);
      const first = await server.api('/v2/cdn/stories', { starts_with: 'outer/', per_page: '100' });
      expect(first.headers.get('total')).toBe('250');
      expect(first.body.stories.map((s: { id: number }) => s.id)).not.toContain(900_000);
    } finally {
      await server.close();
    }
  });
});
