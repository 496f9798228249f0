/**
 * The census through v1, which has no by_ids (the contract's Versioning: version 2 added it, and
 * version 1 ignores a parameter it does not know): a count by id and slug is a count by slug only.
 */
import { afterAll, expect, it } from 'vitest';
import { sync } from '../../src/sync/index.js';
import { PUBLIC } from '../helpers/server.js';
import { admin, clockedService, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from './support.js';

afterAll(removeTempDirs);

it('v1: a story deleted and another published at its slug is removed by a census', async () => {
  const w = await clockedService();
  try {
    const old = await w.create({ name: 'Old', slug: 'reborn' });
    w.later();
    await w.create({ name: 'Later', slug: 'later' });
    const dir = await tempDir('v1-census');
    const opts = { baseUrl: w.server.url, token: PUBLIC, api: 'v1' as const, now: w.clock, ...unpaced() };
    await sync({ ...opts, out: dir });
    w.later();
    await admin(w.server.url, 'DELETE', `/stories/${old}`);
    await w.create({ name: 'New', slug: 'reborn' });
    const result = await sync({ ...opts, out: dir });
    expect(result.mode).toBe('incremental');
    expect(result.changed.removed).toEqual([old]);
    const fresh = await tempDir('v1-census-fresh');
    await sync({ ...opts, out: fresh });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  } finally {
    await w.server.close();
  }
});

it('v1: a census finds the stories of two folders that swapped names', async () => {
  const w = await clockedService();
  try {
    const folders: number[] = [];
    for (const slug of ['north', 'south']) {
      const folder = await w.create({ name: slug, slug, is_folder: true }, false);
      folders.push(folder);
      await w.create({ name: `${slug} intro`, slug: 'intro', parent_id: folder });
    }
    w.later();
    await w.create({ name: 'Later', slug: 'later' });
    const dir = await tempDir('v1-swap');
    const opts = { baseUrl: w.server.url, token: PUBLIC, api: 'v1' as const, now: w.clock, ...unpaced() };
    await sync({ ...opts, out: dir });
    w.later();
    const [north, south] = folders;
    await admin(w.server.url, 'PUT', `/stories/${north}`, { slug: 'swapping' });
    await admin(w.server.url, 'PUT', `/stories/${south}`, { slug: 'north' });
    await admin(w.server.url, 'PUT', `/stories/${north}`, { slug: 'south' });
    const result = await sync({ ...opts, out: dir });
    expect(result.mode).toBe('incremental');
    const fresh = await tempDir('v1-swap-fresh');
    await sync({ ...opts, out: fresh });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  } finally {
    await w.server.close();
  }
});
