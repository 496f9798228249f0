/**
 * Two folders that swap names move their stories without an update of their own: stories of
 * the same slug (an `intro` in each, their start pages) trade paths, and the set of ids and the
 * set of paths the census counts stay the same. An incremental sync still finds them moved.
 */
import { afterAll, expect, it } from 'vitest';
import { sync } from '../../src/sync/index.js';
import { PUBLIC } from '../helpers/server.js';
import {
  admin,
  clockedService,
  readJsonFile,
  readTree,
  removeTempDirs,
  tempDir,
  treeDiff,
  unpaced,
} from './support.js';

afterAll(removeTempDirs);

it('a census finds the stories of two folders that swapped names', async () => {
  const { server, clock, create, later } = await clockedService();
  try {
    const folders: number[] = [];
    for (const slug of ['north', 'south']) {
      const folder = await create({ name: slug, slug, is_folder: true }, false);
      folders.push(folder);
      await create({ name: `${slug} home`, slug: '', is_startpage: true, parent_id: folder });
      await create({ name: `${slug} intro`, slug: 'intro', parent_id: folder });
    }
    // A later publication: the census's watermark passes the stories above.
    later();
    await create({ name: 'Later', slug: 'later' });
    const dir = await tempDir('folder-swap');
    await sync({ baseUrl: server.url, token: PUBLIC, out: dir, now: clock, ...unpaced() });

    later();
    const [north, south] = folders;
    await admin(server.url, 'PUT', `/stories/${north}`, { slug: 'swapping' });
    await admin(server.url, 'PUT', `/stories/${south}`, { slug: 'north' });
    await admin(server.url, 'PUT', `/stories/${north}`, { slug: 'south' });
    const result = await sync({ baseUrl: server.url, token: PUBLIC, out: dir, now: clock, ...unpaced() });
    expect(result.mode).toBe('incremental');
    expect(result.changed.stories).toHaveLength(4);
    const index = await readJsonFile<Array<{ full_slug: string; name: string }>>(`${dir}/indexes/stories.json`);
    expect(index.find((e) => e.full_slug === 'north/intro')?.name).toBe('south intro');

    const fresh = await tempDir('folder-swap-fresh');
    await sync({ baseUrl: server.url, token: PUBLIC, out: fresh, ...unpaced() });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  } finally {
    await server.close();
  }
});
