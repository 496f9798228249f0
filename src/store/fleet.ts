/**
 * A fleet of builders sharing one sync. With a store, each builder starts from the store's
 * newest snapshot and publishes its own (see shared-sync.ts). With Redis too, builders that start
 * together elect one: the holder of the fleet's lease syncs and publishes; the others wait for
 * what it publishes and pull it, or take the lease over when it ends without publishing (its
 * holder died). With Redis, every sync on the token draws from one rate budget (budget.ts), with
 * or without a store. Neither: a plain sync, and nothing of theirs is loaded.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type SyncOptions, sync } from '../sync/index.js';
import { Lease } from './lease.js';
import { RedisBudget } from './budget.js';
import { budgetKey, connectRedis, fleetKey, type Redis, shownRedisUrl } from './redis.js';
import { ObjectStore } from './s3.js';
import { reason, type SharedSync, syncThroughStore } from './shared-sync.js';
import { pull } from './transfer.js';

export interface FleetOptions extends SyncOptions {
  /** `s3://bucket/prefix`: share snapshots through this store. */
  store?: string;
  /** `redis://...`: one rate budget for every sync on the token; with a store, one syncer among builders that start together. */
  redis?: string;
  /** How long the lease lasts without renewal: how soon a dead syncer is replaced (default 15 s). */
  leaseMs?: number;
  /** How long a builder waits for another's snapshot before syncing itself (default 10 minutes). */
  waitMs?: number;
  /** Told what happens with the store and Redis (warnings, progress); default: console.warn. */
  log?: (message: string) => void;
}

export interface FleetResult extends SharedSync {
  /** `syncer`: synced (and published); `follower`: took the snapshot another builder published. */
  role: 'direct' | 'syncer' | 'follower';
}

const PUBLISHED_TTL_S = 7 * 24 * 3600;
const POLL_MS = 100;
const PROGRESS_MS = 5_000;

export async function fleetSync(options: FleetOptions): Promise<FleetResult> {
  if (!options.store && !options.redis) return { role: 'direct', sync: await sync(options) };
  const log = options.log ?? ((m: string) => console.warn(m));
  // Both are opened before any request: a missing package is a configuration error, reported first.
  const store = options.store ? await ObjectStore.open(options.store) : undefined;
  let redis: Redis | undefined;
  try {
    redis = options.redis ? await openRedis(options.redis, log) : undefined;
    const paced = redis ? withSharedBudget(options, redis, log) : options;
    if (!store) return { role: 'direct', sync: await sync(paced) };
    if (!redis) return { role: 'syncer', ...(await syncThroughStore(store, paced, log)) };
    return await coordinated(store, redis, paced, log);
  } finally {
    store?.close();
    redis?.disconnect();
  }
}

/** The options with the token's rate budget shared through Redis (unless the caller brought a budget of its own). */
function withSharedBudget(options: FleetOptions, redis: Redis, log: (m: string) => void): FleetOptions {
  if (options.client?.pacer) return options;
  const pacer = new RedisBudget(redis, budgetKey(options.baseUrl, options.token), log);
  return { ...options, client: { ...options.client, pacer } };
}

/** Redis, or undefined with a warning when it cannot be reached (the builders then go uncoordinated). */
async function openRedis(url: string, log: (m: string) => void): Promise<Redis | undefined> {
  try {
    return await connectRedis(url);
  } catch (err) {
    if ((err as Error).name === 'StoreConfigError') throw err;
    log(
      `content-sync: Redis at ${shownRedisUrl(url)} cannot be reached (${reason(err)}): syncing without coordination`,
    );
    return undefined;
  }
}

async function coordinated(
  store: ObjectStore,
  redis: Redis,
  options: FleetOptions,
  log: (m: string) => void,
): Promise<FleetResult> {
  const key = fleetKey({
    ...options,
    api: options.api ?? 'v2',
    views: options.views ?? ['published'],
    assets: options.assets !== undefined,
  });
  const lease = new Lease(redis, `${key}:lease`, options.leaseMs ?? 15_000, log);
  const publishedKey = `${key}:published`;
  // Redis failing (gone, or not answering) never fails the builder: it syncs through the store alone.
  // A builder stopped (its signal) does neither: it ends, its snapshot untouched.
  const alone = async (err: unknown): Promise<FleetResult> => {
    options.signal?.throwIfAborted();
    log(`content-sync: Redis failed (${reason(err)}): syncing without coordination`);
    return { role: 'syncer', ...(await syncThroughStore(store, options, log)) };
  };
  // What was published before this builder started is not what it waits for.
  let before: string | null;
  try {
    before = await redis.get(publishedKey);
  } catch (err) {
    return alone(err);
  }
  const started = Date.now();
  const deadline = started + (options.waitMs ?? 600_000);
  for (;;) {
    options.signal?.throwIfAborted();
    let took: boolean;
    try {
      took = await lease.take();
    } catch (err) {
      return alone(err);
    }
    if (took) {
      try {
        const result = await syncThroughStore(store, options, log);
        if (result.published) await announce(redis, publishedKey, result.published, lease.owner, log);
        return { role: 'syncer', ...result };
      } finally {
        await lease.release();
      }
    }
    let published: Awaited<ReturnType<typeof awaitPublished>>;
    try {
      published = await awaitPublished(redis, lease, publishedKey, before, started, deadline, log, options.signal);
    } catch (err) {
      return alone(err);
    }
    if (published === 'timeout') {
      log(
        `content-sync: no snapshot was published within ${Math.round((deadline - started) / 1000)} s: syncing without waiting`,
      );
      return { role: 'syncer', ...(await syncThroughStore(store, options, log)) };
    }
    if (published === undefined) continue; // The lease is free (its holder died): take it.
    try {
      return { role: 'follower', pulled: await pull(store, options.out, published, options.signal), published };
    } catch (err) {
      options.signal?.throwIfAborted();
      log(`content-sync: could not take the snapshot ${published} (${reason(err)}): syncing instead`);
      return { role: 'syncer', ...(await syncThroughStore(store, options, log)) };
    }
  }
}

/**
 * Tells the builders waiting that `published` is in the store. The announcement names its syncer
 * too: one that publishes the version announced before (nothing changed since the last build) still
 * tells the waiters something new. When Redis fails, they are not told (each syncs itself when the
 * lease ends), and this builder's sync stands.
 */
async function announce(
  redis: Redis,
  publishedKey: string,
  published: string,
  syncer: string,
  log: (m: string) => void,
) {
  try {
    await redis.set(publishedKey, `${published} ${syncer}`, 'EX', PUBLISHED_TTL_S);
  } catch (err) {
    log(
      `content-sync: could not tell other builders of ${published} through Redis (${reason(err)}); the snapshot is complete`,
    );
  }
}

/**
 * Waits while another builder holds the lease, telling how long every few seconds: the manifest
 * it publishes, undefined when its lease ends without one, or 'timeout'.
 */
async function awaitPublished(
  redis: Redis,
  lease: Lease,
  publishedKey: string,
  before: string | null,
  started: number,
  deadline: number,
  log: (m: string) => void,
  signal: AbortSignal | undefined,
): Promise<string | undefined | 'timeout'> {
  let told = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const holder = await lease.holder();
    // Read after the holder: a syncer publishes before it lets the lease go.
    const announced = await redis.get(publishedKey);
    // The manifest's key has no space; the syncer's name follows it (see announce).
    if (announced && announced !== before) return announced.split(' ')[0];
    if (!holder) return undefined;
    if (Date.now() > deadline) return 'timeout';
    if (Date.now() - told >= PROGRESS_MS) {
      told = Date.now();
      log(`content-sync: waiting for ${holder} to sync and publish (${Math.round((told - started) / 1000)} s)`);
    }
    await sleep(POLL_MS, undefined, signal ? { signal } : {});
  }
}
