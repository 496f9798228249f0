/**
 * Two writers of one snapshot: a sync started while another writer holds the snapshot's lock (a
 * dev server's sync beside a build's) waits for it, then syncs, instead of failing at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { WriterLock } from '../../src/snapshot/lock.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer } from '../helpers/server.js';
import { admin, readTree, removeTempDirs, tempDir, unpaced } from './support.js';

afterAll(removeTempDirs);

describe('a sync beside another writer of its snapshot', () => {
  it('waits for the writer to finish, then takes what changed', async () => {
    const server = await startTestServer({ admin: true });
    try {
      const dir = await tempDir('writers');
      await sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() });
      await admin(server.url, 'PUT', '/stories/14', { content: { title: 'While another wrote' } });
      await admin(server.url, 'POST', '/stories/14/publish');
      const before = await readTree(dir);
      const held = await WriterLock.take(dir);
      let done = false;
      const syncing = sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() }).finally(() => {
        done = true;
      });
      await sleep(400);
      expect(done).toBe(false);
      // Nothing written but the other writer's lock.
      const now = await readTree(dir);
      expect([...now.keys()].filter((f) => !before.has(f) && !f.startsWith('.txn.lock.draft~'))).toEqual(['.txn.lock']);
      for (const [f, text] of before) expect(now.get(f), f).toBe(text);
      await held.release();
      const result = await syncing;
      expect(result.changed.stories).toEqual([14]);
    } finally {
      await server.close();
    }
  });
});
