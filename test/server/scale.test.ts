/**
 * The control plane and a synced snapshot's folders at scale: what the lookups that replaced
 * searches compute (the cost itself is measured by `npm run bench -- scale`).
 */
import { describe, expect, it } from 'vitest';
import { SpaceStore } from '../../src/server/store.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { DIMENSIONS, OUTER, entries, foldersSpace } from '../helpers/scale-spaces.js';

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
