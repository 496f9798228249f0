/**
 * A sync that shares its snapshot with other builders through a store: start from the store's
 * newest snapshot when the local one is older or missing, sync (incrementally from it), publish
 * the result. Anything the store does wrong (unreachable, damaged) costs sharing, never the
 * snapshot: the sync goes to the API and says so.
 */
import { ContentClient } from '../client/index.js';
import { type SyncOptions, type SyncResult, sync } from '../sync/index.js';
import { localVersion, newestManifest, type SnapshotKind } from './manifest.js';
import { ObjectStore } from './s3.js';
import { pull, push, StoreIntegrityError, type Transfer } from './transfer.js';

export interface FleetOptions extends SyncOptions {
  /** `s3://bucket/prefix`: share snapshots through this store. */
  store?: string;
  /** Told what happened to the store (warnings, progress); default: console.warn. */
  log?: (message: string) => void;
}

export interface FleetResult {
  /** The sync this process made. */
  sync: SyncResult;
  /** The snapshot taken from the store before syncing. */
  pulled?: Transfer;
  /** What this process published. */
  pushed?: Transfer;
}

/** The cv in a manifest's key. */
const cvOfKey = (key: string): number => Number(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));

const sameViews = (a: readonly string[], b: readonly string[]): boolean =>
  [...a].sort().join() === [...b].sort().join();

/** The kind of snapshot this sync makes: its space from the local snapshot, or asked of the API (one request). */
async function kindOf(options: SyncOptions): Promise<SnapshotKind> {
  const api = options.api ?? 'v2';
  const views = options.views ?? ['published'];
  const local = localVersion(options.out);
  if (local) return { space: local.space, api, views };
  const client = new ContentClient({
    baseUrl: options.baseUrl,
    token: options.token,
    api,
    ...(options.signal ? { signal: options.signal } : {}),
    ...options.client,
  });
  return { space: (await client.space()).id, api, views };
}

/** Whether the local snapshot is missing, of another kind, or older than `cv`. */
function staleLocally(dir: string, kind: SnapshotKind, cv: number): boolean {
  const local = localVersion(dir);
  return (
    !local ||
    local.space !== kind.space ||
    local.api !== kind.api ||
    !sameViews(local.views, kind.views) ||
    local.cv < cv
  );
}

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Sync through the store at `options.store` (or a plain sync without one). */
export async function fleetSync(options: FleetOptions): Promise<FleetResult> {
  if (!options.store) return { sync: await sync(options) };
  const log = options.log ?? ((m: string) => console.warn(m));
  const store = await ObjectStore.open(options.store);
  try {
    return await throughStore(store, options, log);
  } finally {
    store.close();
  }
}

async function throughStore(store: ObjectStore, options: FleetOptions, log: (m: string) => void): Promise<FleetResult> {
  // The API's own failures (the space request) propagate as the sync's would.
  const kind = await kindOf(options);
  let newest: string | undefined;
  let reachable = true;
  try {
    newest = await newestManifest(store, kind);
  } catch (err) {
    reachable = false;
    log(
      `content-sync: the store ${store.url} cannot be reached (${reason(err)}): syncing directly from the API, without sharing`,
    );
  }
  let pulled: Transfer | undefined;
  let repair: string[] = [];
  if (newest && !options.full && staleLocally(options.out, kind, cvOfKey(newest))) {
    try {
      pulled = await pull(store, options.out, newest);
    } catch (err) {
      if (err instanceof StoreIntegrityError) repair = err.digests;
      log(`content-sync: could not start from ${store.url}/${newest} (${reason(err)}): syncing from the API instead`);
    }
  }
  const result = await sync(options);
  let pushed: Transfer | undefined;
  if (reachable) {
    try {
      pushed = await push(store, options.out, repair);
    } catch (err) {
      log(
        `content-sync: could not publish the snapshot to ${store.url} (${reason(err)}); the local snapshot is complete`,
      );
    }
  }
  return { sync: result, ...(pulled ? { pulled } : {}), ...(pushed ? { pushed } : {}) };
}
