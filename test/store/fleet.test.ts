/**
 * Builders coordinated through Redis (Debian's redis-server on loopback) and sharing a store
 * (s3rver): one syncs, the others take its snapshot; a dead syncer's lease expires and a waiter
 * takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import type { FleetOptions } from '../../src/store/index.js';
import { Lease } from '../../src/store/lease.js';
import { connectRedis, fleetKey } from '../../src/store/redis.js';
import { ASSET_INDEX } from '../../src/snapshot/index.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { collect, spawnCli } from '../helpers/cli.js';
import { admin, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from '../sync/support.js';
import {
  BUCKET,
  runBuilder,
  serveDemo,
  syncArgs,
  startRedis,
  startS3,
  TOKEN,
  type TestRedis,
  type TestS3,
  useEnv,
} from './support.js';

let s3: TestS3;
let redis: TestRedis;
let restoreEnv: () => void;

beforeAll(async () => {
  [s3, redis] = await Promise.all([startS3(), startRedis()]);
  restoreEnv = useEnv(s3.env);
});
afterAll(async () => {
  restoreEnv();
  await Promise.all([s3.close(), redis.close()]);
  await removeTempDirs();
});

let prefixes = 0;
const freshStore = (): string => `s3://${BUCKET}/fleet${++prefixes}`;

const builder = async (service: RunningServer, store: string, extra: Partial<FleetOptions> = {}) =>
  runBuilder(service, await tempDir('builder'), { store, redis: redis.url, ...extra });

const requests = async (service: RunningServer): Promise<number> => (await admin(service.url, 'GET', '/stats')).total;

describe('a fleet coordinated through Redis', () => {
  let service: RunningServer;
  beforeAll(async () => {
    service = await serveDemo(60);
  });
  afterAll(() => service.close());

  it('three builders started together: one syncs, two take its snapshot; the API sees one sync', async () => {
    const reference = await tempDir('reference');
    await admin(service.url, 'POST', '/stats/reset');
    const { sync } = await import('../../src/sync/index.js');
    await sync({ baseUrl: service.url, token: TOKEN, out: reference, ...unpaced() });
    const oneSync = await requests(service);
    await admin(service.url, 'POST', '/stats/reset');
    const store = freshStore();
    const fleet = await Promise.all([builder(service, store), builder(service, store), builder(service, store)]);
    expect(fleet.map((b) => b.role).sort()).toEqual(['follower', 'follower', 'syncer']);
    // The syncer's one extra request: the space, to find the store's snapshots (it had none locally).
    expect(await requests(service)).toBeLessThanOrEqual(oneSync + 1);
    const expected = await readTree(reference);
    for (const b of fleet) {
      expect(treeDiff(await readTree(b.out), expected)).toEqual([]);
      expect(b.warnings).toEqual([]);
    }
  });

  it('the fleet started again with nothing changed: one syncs, the others take its snapshot', async () => {
    const store = freshStore();
    await Promise.all([builder(service, store), builder(service, store)]);
    // The syncer of this build publishes the very version the last build announced.
    await admin(service.url, 'POST', '/stats/reset');
    const again = await Promise.all([builder(service, store), builder(service, store), builder(service, store)]);
    expect(again.map((b) => b.role).sort()).toEqual(['follower', 'follower', 'syncer']);
    // The syncer's two: the space (to find the store's snapshots) and the sync that finds nothing changed.
    expect(await requests(service)).toBe(2);
  });

  it('a builder downloading assets takes no snapshot of a fleet that does not: it syncs them itself', async () => {
    const store = freshStore();
    const plain = await builder(service, store);
    expect(plain.published).toBeDefined();
    // A builder without assets holds the fleet's lease, then announces the snapshot it published.
    const client = await connectRedis(redis.url);
    try {
      const key = fleetKey({ baseUrl: service.url, token: TOKEN, api: 'v2', views: ['published'], store });
      const held = new Lease(client, `${key}:lease`, 15_000, () => {});
      expect(await held.take()).toBe(true);
      const withAssets = builder(service, store, { assets: { minBackoffMs: 10 } });
      await new Promise((r) => setTimeout(r, 500));
      await client.set(`${key}:published`, `${plain.published} ${held.owner}`, 'EX', 60);
      await held.release();
      const b = await withAssets;
      expect(b.role).toBe('syncer');
      expect(existsSync(path.join(b.out, ASSET_INDEX))).toBe(true);
    } finally {
      client.disconnect();
    }
  });

  it('Redis unreachable: the builder syncs through the store alone, with a warning', async () => {
    const r = await builder(service, freshStore(), { redis: 'redis://127.0.0.1:9' });
    expect(r.role).toBe('syncer');
    expect(r.sync?.mode).toBe('full');
    expect(r.warnings.join('\n')).toMatch(
      /Redis at redis:\/\/127\.0\.0\.1:9 cannot be reached \(connect ECONNREFUSED .*without coordination/,
    );
  });
});

describe('a fleet whose syncer is killed', () => {
  it('a waiter takes the lease over when it expires, syncs and publishes', async () => {
    // Slow answers keep the first syncer at work long enough to be killed while it holds the lease.
    const service = await serveDemo(30, { latencyMs: 300 });
    const client = await connectRedis(redis.url);
    try {
      const store = freshStore();
      const env = { ...s3.env, CONTENT_REDIS_URL: redis.url, CONTENT_REDIS_LEASE_MS: '1000' };
      const args = async () => [...syncArgs(service, await tempDir('k')), '--store', store];
      const leaseKey = async () => (await client.keys('content-sync:*:lease'))[0] ?? 'none';
      const clients = async () =>
        String(await client.call('CLIENT', 'LIST'))
          .trim()
          .split('\n').length;
      const before = await clients();
      const children = [spawnCli(await args(), env), spawnCli(await args(), env)];
      const results = children.map(collect);
      // Both connected, one holding the lease (its value names the holder's pid): that one dies.
      let holder: string | null = null;
      while ((await clients()) < before + 2 || !(holder = await client.get(await leaseKey()))) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const pid = Number(holder.split(':')[1]);
      const victim = children.findIndex((c) => c.pid === pid);
      expect(victim).toBeGreaterThanOrEqual(0);
      children[victim]!.kill('SIGKILL');
      expect((await results[victim]!).signal).toBe('SIGKILL');
      const done = await results[1 - victim]!;
      expect(done.stderr).not.toMatch(/content-sync/);
      expect(done.code).toBe(0);
      expect(done.stdout).toMatch(/full: \d+ stories written/);
      expect(done.stdout).toMatch(/published cv \d+/);
      // The next builder takes what the survivor published.
      const third = await builder(service, store);
      expect(third.role).toBe('syncer');
      expect(third.pulled).toBeDefined();
      expect(third.sync?.mode).toBe('unchanged');
    } finally {
      client.disconnect();
      await service.close();
    }
  }, 60_000);
});

describe('a builder stopped while it waits for the syncer', () => {
  it('ends at once, without taking the snapshot published after', async () => {
    // Slow answers keep the syncer at work while the waiter is stopped.
    const service = await serveDemo(30, { latencyMs: 300 });
    const watcher = await connectRedis(redis.url);
    try {
      const store = freshStore();
      const syncer = builder(service, store);
      while ((await watcher.keys('content-sync:*:lease')).length === 0) await new Promise((r) => setTimeout(r, 20));
      const controller = new AbortController();
      const out = await tempDir('stopped');
      const waiter = runBuilder(service, out, { store, redis: redis.url, signal: controller.signal });
      await new Promise((r) => setTimeout(r, 200));
      const stoppedAt = Date.now();
      controller.abort(new Error('interrupted (SIGTERM)'));
      await expect(waiter).rejects.toThrow('interrupted (SIGTERM)');
      expect(Date.now() - stoppedAt).toBeLessThan(1_000);
      expect((await syncer).role).toBe('syncer');
      expect([...(await readTree(out)).keys()]).toEqual([]);
    } finally {
      watcher.disconnect();
      await service.close();
    }
  });
});

describe('a fleet whose Redis fails mid-sync', () => {
  /** Two builders started together on a Redis of their own; `fail` is done to it once one holds the lease. */
  async function fleetWhile(fail: (own: TestRedis) => void | Promise<void>) {
    // Slow answers keep the syncer at work while Redis fails.
    const service = await serveDemo(30, { latencyMs: 200 });
    const own = await startRedis();
    const watcher = await connectRedis(own.url);
    try {
      const reference = await tempDir('reference');
      const { sync } = await import('../../src/sync/index.js');
      await sync({ baseUrl: service.url, token: TOKEN, out: reference, ...unpaced() });
      const store = freshStore();
      const fleet = Promise.all([
        builder(service, store, { redis: own.url }),
        builder(service, store, { redis: own.url }),
      ]);
      while ((await watcher.keys('content-sync:*:lease')).length === 0) await new Promise((r) => setTimeout(r, 20));
      watcher.disconnect();
      await fail(own);
      const builders = await fleet;
      const expected = await readTree(reference);
      for (const b of builders) expect(treeDiff(await readTree(b.out), expected)).toEqual([]);
      return builders;
    } finally {
      watcher.disconnect();
      await own.close();
      await service.close();
    }
  }

  it('Redis gone: both builders end with the whole snapshot, with warnings, not failures', async () => {
    const builders = await fleetWhile((own) => own.close());
    expect(builders.map((b) => b.role)).toEqual(['syncer', 'syncer']);
    expect(builders.flatMap((b) => b.warnings).join('\n')).toMatch(/Redis/);
  }, 60_000);

  it('Redis not answering (paused): the builders do not wait on it for good', async () => {
    const builders = await fleetWhile((own) => own.signal('SIGSTOP'));
    expect(builders.map((b) => b.role)).toEqual(['syncer', 'syncer']);
    expect(builders.flatMap((b) => b.warnings).join('\n')).toMatch(/Command timed out/);
  }, 90_000);
});

describe('the fleet lease with Redis paused', () => {
  it('a take that timed out does not leave the lease held for no one once Redis answers again', async () => {
    const own = await startRedis();
    const client = await connectRedis(own.url);
    const watcher = await connectRedis(own.url);
    try {
      const lease = new Lease(client, 'content-sync:test:lease', 15_000, () => undefined);
      own.signal('SIGSTOP');
      await expect(lease.take()).rejects.toThrow(/Command timed out/);
      // The builder goes on alone and lets go of its connection; Redis resumes with both commands.
      client.disconnect();
      own.signal('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await watcher.exists('content-sync:test:lease')).toBe(0);
    } finally {
      client.disconnect();
      watcher.disconnect();
      await own.close();
    }
  }, 30_000);
});
