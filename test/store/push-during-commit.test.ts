/**
 * A push reads the local snapshot while another writer of the same directory (a dev server's
 * sync, a second `content-sync sync`) may be applying its commit. The store must get the old
 * snapshot or the new one, whole: never the new stories under the old manifest.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { newOwner } from '../../src/snapshot/lock.js';
import { snapshotDigests } from '../../src/store/files.js';
import { ObjectStore } from '../../src/store/index.js';
import { newestManifest } from '../../src/store/manifest.js';
import { pull, push } from '../../src/store/transfer.js';
import { sync } from '../../src/sync/index.js';
import { admin, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from '../sync/support.js';
import { BUCKET, serveDemo, startS3, type TestS3, TOKEN, useEnv } from './support.js';

let s3: TestS3;
let restoreEnv: () => void;
let service: RunningServer;

beforeAll(async () => {
  s3 = await startS3();
  restoreEnv = useEnv(s3.env);
  service = await serveDemo(60);
});
afterAll(async () => {
  await service.close();
  restoreEnv();
  await s3.close();
  await removeTempDirs();
});

describe('store: a push beside another writer', () => {
  it('publishes the old snapshot or the new one whole while a live writer applies its commit', {
    timeout: 60_000,
  }, async () => {
    const dir = await tempDir('pushing');
    await sync({ baseUrl: service.url, token: TOKEN, out: dir, ...unpaced() });
    const old = await readTree(dir);
    // The next version of the space, synced beside it.
    const ids = [...old.keys()]
      .filter((k) => /^stories\/\d+\.json$/.test(k))
      .slice(0, 3)
      .map((k) => Number(/(\d+)/.exec(k)![1]));
    for (const id of ids) {
      await admin(service.url, 'PUT', `/stories/${id}`, { content: { title: `changed ${id}` } });
      await admin(service.url, 'POST', `/stories/${id}/publish`);
    }
    const next = await tempDir('next');
    await fs.cp(dir, next, { recursive: true });
    await sync({ baseUrl: service.url, token: TOKEN, out: next, ...unpaced() });
    const fresh = await readTree(next);

    // Another process, alive, is applying its commit of that version to `dir`: past its commit
    // point, the changed stories already renamed into place, the indexes and manifest not yet
    // (apply() moves the manifest last).
    const before = await snapshotDigests(dir);
    const puts = [...(await snapshotDigests(next))].filter(([rel, d]) => before.get(rel) !== d).map(([rel]) => rel);
    expect(puts).toContain('manifest.json');
    for (const rel of puts) {
      await fs.mkdir(path.dirname(path.join(dir, '.txn/files', rel)), { recursive: true });
      await fs.copyFile(path.join(next, rel), path.join(dir, '.txn/files', rel));
    }
    await fs.writeFile(path.join(dir, '.txn/COMMIT'), JSON.stringify({ puts, deletes: [] }));
    for (const rel of puts.filter((r) => r.startsWith('stories/')))
      await fs.rename(path.join(dir, '.txn/files', rel), path.join(dir, rel));
    const writer = spawn('sleep', ['3'], { stdio: 'ignore' });
    await fs.writeFile(path.join(dir, '.txn.lock'), JSON.stringify({ ...newOwner(), pid: writer.pid }));
    const exited = new Promise((r) => writer.on('exit', r));

    const store = await ObjectStore.open(`s3://${BUCKET}/push-during-commit`);
    try {
      await push(store, dir);
      await exited;
      // What a builder pulling the store's newest snapshot gets.
      const key = await newestManifest(store, {
        space: JSON.parse(old.get('space.json')!).id,
        api: 'v2',
        views: ['published'],
      });
      const pulled = await tempDir('pulled');
      await pull(store, pulled, key!);
      const got = await readTree(pulled);
      const isOld = treeDiff(got, old).length === 0;
      const isNew = treeDiff(got, fresh).length === 0;
      expect(
        isOld || isNew,
        `neither the old snapshot nor the new one; against the new: ${treeDiff(got, fresh).slice(0, 4).join(', ')}`,
      ).toBe(true);
    } finally {
      store.close();
      writer.kill();
    }
  });
});
