/**
 * Moving a snapshot between a local directory and the store. Push uploads the objects the store
 * lacks, then the manifest; pull downloads the objects the local snapshot lacks, checks each
 * against its digest, and commits them through the snapshot's own transaction (complete or
 * absent).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { canonicalJson, FILES, forgetState, newerFormatReason, SnapshotTransaction } from '../snapshot/index.js';
import { collision, openForReading } from '../snapshot/transaction.js';
import { refuseForeignDirectory } from '../sync/index.js';
import { digestOf, isSnapshotPath, snapshotDigests } from './files.js';
import {
  localVersion,
  manifestKey,
  newestManifest,
  objectKey,
  readManifest,
  STORE_FORMAT,
  type StoreManifest,
} from './manifest.js';
import type { ObjectStore } from './s3.js';

const CONCURRENCY = 16;

export interface Transfer {
  /** The manifest's key in the store. */
  manifest: string;
  cv: number;
  /** Objects moved, and their bytes. */
  objects: number;
  bytes: number;
}

/** Objects a store's manifest names that it lacks, or whose bytes are not what their key says. */
export class StoreIntegrityError extends Error {
  override name = 'StoreIntegrityError';
  constructor(
    readonly store: string,
    /** Every object to publish again: the missing and the damaged. */
    readonly digests: string[],
    missing: readonly string[] = [],
  ) {
    const damaged = digests.filter((d) => !missing.includes(d));
    const parts = [
      missing.length &&
        `${missing.length} object(s) its manifest names are missing (${missing.slice(0, 2).join(', ')}: pruned while this pull ran, or never uploaded)`,
      damaged.length &&
        `${damaged.length} object(s) do not match their digest (${damaged.slice(0, 2).join(', ')}: the store is damaged)`,
    ].filter(Boolean);
    super(`${store}: ${parts.join('; ')}; nothing was committed`);
  }
}

/**
 * Publishes the snapshot in `dir`: uploads the objects the store lacks, then the manifest.
 * A manifest already there for this version is left alone, unless `repair` names objects to
 * upload again (found damaged by a pull), or it is partial and this snapshot is not: the same
 * version read whole replaces one synced from events alone.
 */
export async function push(
  store: ObjectStore,
  dir: string,
  repair: readonly string[] = [],
): Promise<Transfer | undefined> {
  // Read as a compile reads: no commit of another writer (a dev server's sync, a second sync of
  // the same directory) is applied while the manifest and the files are read, and one under way is
  // waited for, so the version and its files are one snapshot. The uploads after check each file
  // against the digest read here.
  const reading = await openForReading(path.resolve(dir));
  let version: ReturnType<typeof localVersion>;
  let key: string;
  let files: Map<string, string>;
  try {
    version = localVersion(dir);
    if (!version) throw new Error(`${dir} holds no snapshot to publish`);
    key = manifestKey(version, version.cv);
    if (!repair.length && (await keeps(store, key, version.partial))) return undefined;
    files = await snapshotDigests(dir);
  } finally {
    await reading.close();
  }
  // Objects the newest manifest of this kind names are in the store (prune keeps them). Every
  // other object is uploaded, even when the store has it: the upload makes it young, which
  // protects it from a prune running until this manifest is written (see prune.ts).
  const previous = await newestManifest(store, version);
  const known = new Set(previous ? Object.values((await readManifest(store, previous))?.files ?? {}) : []);
  for (const d of repair) known.delete(d);
  const byDigest = new Map<string, string>();
  for (const [rel, digest] of files) if (!known.has(digest)) byDigest.set(digest, rel);
  let objects = 0;
  let bytes = 0;
  await new PQueue({ concurrency: CONCURRENCY }).addAll(
    [...byDigest].map(([digest, rel]) => async () => {
      const body = await fs.readFile(path.join(dir, rel));
      // The file may have changed since it was hashed (another sync): never store bytes under another digest.
      if (digestOf(body) !== digest)
        throw new Error(`${path.join(dir, rel)} changed while it was published; publish again`);
      await store.put(objectKey(digest), body);
      objects++;
      bytes += body.length;
    }),
  );
  const manifest: StoreManifest = {
    format: STORE_FORMAT,
    space: version.space,
    api: version.api,
    views: [...version.views].sort() as StoreManifest['views'],
    cv: version.cv,
    ...(version.partial ? { partial: true as const } : {}),
    files: Object.fromEntries(files),
  };
  await store.put(key, canonicalJson(manifest));
  return { manifest: key, cv: version.cv, objects, bytes };
}

/** Whether the store keeps its manifest `key` over this snapshot's: always, unless it is partial and this one is whole. */
async function keeps(store: ObjectStore, key: string, partial: boolean): Promise<boolean> {
  if (partial) return store.has(key);
  const stored = await readManifest(store, key);
  return stored !== undefined && !stored.partial;
}

/**
 * An object's bytes, checked against its digest; fetched a second time when they do not match, or
 * when the download broke off (a connection dropped mid-body, which the SDK does not retry): one
 * such object would otherwise send the whole pull back to the API. Else what was wrong with it: none
 * there (a prune, or an upload that never finished), or other bytes.
 */
async function fetchVerified(store: ObjectStore, digest: string): Promise<Uint8Array | 'missing' | 'damaged'> {
  let found: 'missing' | 'damaged' = 'missing';
  for (let attempt = 0; attempt < 2; attempt++) {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await store.get(objectKey(digest));
    } catch (err) {
      if (attempt === 1) throw err;
      continue;
    }
    if (bytes && digestOf(bytes) === digest) return bytes;
    found = bytes ? 'damaged' : 'missing';
  }
  return found;
}

/**
 * Refuses a snapshot a newer builder published (a fleet upgraded one builder at a time): this version
 * would commit files it misreads, then refuse its own snapshot directory. Nothing is committed.
 */
async function refuseNewerSnapshot(store: ObjectStore, key: string, manifest: StoreManifest): Promise<void> {
  const digest = manifest.files[FILES.manifest];
  const bytes = digest === undefined ? undefined : await fetchVerified(store, digest);
  if (typeof bytes !== 'object') return; // none, or missing or damaged: the pull says so
  let format: unknown;
  try {
    format = (JSON.parse(Buffer.from(bytes).toString('utf8')) as { format?: unknown } | null)?.format;
  } catch {
    return;
  }
  const newer = newerFormatReason(`${store.url}/${key}`, format);
  if (newer) throw new Error(`${newer}; nothing was committed`);
}

/**
 * Makes the snapshot in `dir` the one the manifest `key` names: downloads only the objects whose
 * file the local snapshot does not hold, verifies each, and commits in one transaction. A
 * StoreIntegrityError (nothing committed) when an object is missing or damaged.
 */
export async function pull(store: ObjectStore, dir: string, key: string, signal?: AbortSignal): Promise<Transfer> {
  const manifest = await readManifest(store, key);
  if (!manifest) throw new Error(`${store.url}/${key} is gone (pruned?)`);
  // A pull replaces every file of the directory: one of someone else's (--out src) is refused, untouched, as a sync refuses it.
  await refuseForeignDirectory(path.resolve(dir));
  const foreign = Object.keys(manifest.files).filter((rel) => !isSnapshotPath(rel));
  if (foreign.length)
    throw new Error(
      `${store.url}/${key} names ${foreign.length} path(s) no snapshot holds (${foreign.slice(0, 2).join(', ')}); nothing was committed`,
    );
  await refuseNewerSnapshot(store, key, manifest);
  const txn = await SnapshotTransaction.begin(dir);
  try {
    const local = await snapshotDigests(dir);
    const wanted = Object.entries(manifest.files).filter(([rel, digest]) => local.get(rel) !== digest);
    const clash = await collision(
      dir,
      wanted.map(([rel]) => rel),
    );
    if (clash)
      throw new Error(`${store.url}/${key} puts a file where ${dir} holds a directory, or under a file (${clash})`);
    const damaged: string[] = [];
    const missing: string[] = [];
    let bytes = 0;
    await new PQueue({ concurrency: CONCURRENCY }).addAll(
      wanted.map(([rel, digest]) => async () => {
        const body = await fetchVerified(store, digest);
        if (body === 'missing') return void missing.push(digest);
        if (body === 'damaged') return void damaged.push(digest);
        bytes += body.length;
        await txn.putPieces(rel, [body]);
      }),
    );
    if (damaged.length || missing.length)
      throw new StoreIntegrityError(store.url, [...new Set([...missing, ...damaged])], [...new Set(missing)]);
    for (const rel of local.keys()) if (!(rel in manifest.files)) txn.delete(rel);
    // A sync stopped while it pulled leaves the previous snapshot, as any stopped sync does.
    signal?.throwIfAborted();
    await txn.commit();
    forgetState(dir);
    return { manifest: key, cv: manifest.cv, objects: wanted.length, bytes };
  } catch (err) {
    await txn.abort();
    throw err;
  }
}
