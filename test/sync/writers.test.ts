/**
 * Two writers of one snapshot: a sync started while another writer holds the snapshot's lock (a
 * dev server's sync beside a build's) waits for it, then syncs, instead of failing at once.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { UNPACED } from '../../src/client/pacer.js';
import { WriterLock } from '../../src/snapshot/lock.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer } from '../helpers/server.js';
import { admin, removeTempDirs, tempDir, unpaced, walk } from './support.js';

afterAll(removeTempDirs);

/**
 * The files of `dir` as they are, but the drafts a waiting writer's attempts at the lock make and
 * remove at once (one can be listed and gone before it is read).
 */
async function files(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const rel of await walk(dir))
    if (!rel.startsWith('.txn.lock.draft~')) out.set(rel, await fs.readFile(path.join(dir, rel), 'utf8'));
  return out;
}

describe('a sync beside another writer of its snapshot', () => {
  it('waits for the writer to finish, then takes what changed', async () => {
    const server = await startTestServer({ admin: true });
    try {
      const dir = await tempDir('writers');
      await sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() });
      await admin(server.url, 'PUT', '/stories/14', { content: { title: 'While another wrote' } });
      await admin(server.url, 'POST', '/stories/14/publish');
      const before = await files(dir);
      const held = await WriterLock.take(dir);
      let done = false;
      const syncing = sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() }).finally(() => {
        done = true;
      });
      await sleep(400);
      expect(done).toBe(false);
      // Nothing written but the other writer's lock.
      const now = await files(dir);
      expect([...now.keys()].filter((f) => !before.has(f))).toEqual(['.txn.lock']);
      for (const [f, text] of before) expect(now.get(f), f).toBe(text);
      await held.release();
      const result = await syncing;
      expect(result.changed.stories).toEqual([14]);
    } finally {
      await server.close();
    }
  });

  it('a first sync that fails while another waits for it: the other makes the directory again and syncs', async () => {
    const server = await startTestServer();
    try {
      const out = path.join(await tempDir('writers'), 'site', 'snapshot');
      // The failing one holds the lock a moment (its first request waits), the other waits for it.
      const slow = { ...UNPACED, acquire: () => sleep(300) };
      const failing = sync({ baseUrl: server.url, token: 'not-a-token', out, client: { pacer: slow } });
      await sleep(50);
      const waiting = sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced() });
      await expect(failing).rejects.toThrow(/401/);
      expect((await waiting).mode).toBe('full');
      expect((await fs.readdir(out)).sort()).toContain('manifest.json');
    } finally {
      await server.close();
    }
  });
});
