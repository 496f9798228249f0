/**
 * A sync that shares its snapshot with other builders through a store. Anything the store does wrong (unreachable, damaged) costs sharing, never the
 * snapshot: the sync goes to the API and says so.
 */
import path from 'node:path';
import { type SyncOptions, type SyncResult, refuseForeignDirectory, sync, syncClient } from '../sync/index.js';
import { localVersion, manifestKey, newestManifest, type SnapshotKind } from './manifest.js';
import type { ObjectStore } from './s3.js';
import { pull, push, StoreIntegrityError, type Transfer } from './transfer.js';

/** What a sync through the store did. */
export interface SharedSync {
  /** The sync this process made (none when it took a snapshot another builder had just published). */
  sync?: SyncResult;
  /** The snapshot taken from the store (before syncing, or instead of it). */
  pulled?: Transfer;
  /** What this process published. */
  pushed?: Transfer;
  /** The manifest in the store that the local snapshot now is, when the store has it. */
  published?: string;
}

/** The cv in a manifest's key. */
const cvOfKey = (key: string): number => Number(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));

const sameViews = (a: readonly string[], b: readonly string[]): boolean =>
  [...a].sort().join() === [...b].sort().join();

/** The space as the API has it now (one request): its id and cache version. */
async function currentSpace(options: SyncOptions): Promise<{ id: number; version: number }> {
  return syncClient(options).space();
}

/**
 * The kind of snapshot this sync makes: its space from the local snapshot, or asked of the API
 * (one request; the space's cache version comes with it then).
 */
async function kindOf(options: SyncOptions): Promise<{ kind: SnapshotKind; version?: number }> {
  const api = options.api ?? 'v2';
  const views = options.views ?? ['published'];
  const local = localVersion(options.out);
  if (local) return { kind: { space: local.space, api, views } };
  const space = await currentSpace(options);
  return { kind: { space: space.id, api, views }, version: space.version };
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

/**
 * The store's snapshot `newest` pulled into the local one, to sync from. Not one newer than the
 * space (restored, or a local service restarted without the edits made through its control
 * plane): it holds what the space no longer has. `version`: the space's, when already known.
 * A damaged snapshot names the objects to publish again (`repair`).
 */
async function startFromStore(
  store: ObjectStore,
  options: SyncOptions,
  newest: string,
  version: number | undefined,
  log: (m: string) => void,
): Promise<{ pulled?: Transfer; repair: string[] }> {
  const now = version ?? (await currentSpace(options)).version;
  if (cvOfKey(newest) > now) {
    log(
      `content-sync: the newest snapshot in ${store.url} (cv ${cvOfKey(newest)}) is newer than the space (cv ${now}): not taken; syncing from the API`,
    );
    return { repair: [] };
  }
  try {
    return { pulled: await pull(store, options.out, newest, options.signal), repair: [] };
  } catch (err) {
    options.signal?.throwIfAborted();
    log(`content-sync: could not start from ${store.url}/${newest} (${reason(err)}): syncing from the API instead`);
    return { repair: err instanceof StoreIntegrityError ? err.digests : [] };
  }
}

export const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Start from the store's newest snapshot when the local one is older or missing, sync
 * (incrementally from it), publish the result.
 */
export async function syncThroughStore(
  store: ObjectStore,
  options: SyncOptions,
  log: (m: string) => void,
): Promise<SharedSync> {
  // Refused before anything is pulled into it, as the sync would refuse it.
  await refuseForeignDirectory(path.resolve(options.out));
  // The API's own failures (the space request) propagate as the sync's would.
  const { kind, version } = await kindOf(options);
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
  const { pulled, repair } =
    newest && !options.full && staleLocally(options.out, kind, cvOfKey(newest))
      ? await startFromStore(store, options, newest, version, log)
      : { repair: [] };
  const result = await sync(options);
  let pushed: Transfer | undefined;
  let published: string | undefined;
  if (reachable) {
    try {
      pushed = await push(store, options.out, repair);
      const local = localVersion(options.out);
      published = local && manifestKey(local, local.cv);
    } catch (err) {
      log(
        `content-sync: could not publish the snapshot to ${store.url} (${reason(err)}); the local snapshot is complete`,
      );
    }
  }
  return {
    sync: result,
    ...(pulled ? { pulled } : {}),
    ...(pushed ? { pushed } : {}),
    ...(published ? { published } : {}),
  };
}
