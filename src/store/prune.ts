/**
 * Retention: keeps the newest N manifests of each kind (space, API version, views) and the
 * objects they name. An object younger than the grace period is never removed, whatever names
 * it: a push uploads its objects before its manifest, and the objects it relies on without
 * uploading them are those of the newest manifest of its kind, which every prune keeps.
 */
import { MANIFESTS, OBJECTS, readManifest } from './manifest.js';
import type { ObjectStore } from './s3.js';

export interface PruneOptions {
  /** Manifests kept per kind, newest first (at least 1). */
  keep: number;
  /** Objects younger than this are kept (ms). */
  graceMs: number;
  now?: Date;
}

export interface PruneResult {
  manifests: { kept: number; removed: number };
  objects: { kept: number; removed: number };
}

export async function prune(store: ObjectStore, options: PruneOptions): Promise<PruneResult> {
  if (!(options.keep >= 1)) throw new Error('prune keeps at least one manifest of each kind');
  const byKind = new Map<string, string[]>();
  for await (const o of store.list(MANIFESTS)) {
    if (!o.key.endsWith('.json')) continue;
    const kind = o.key.slice(0, o.key.lastIndexOf('/'));
    byKind.set(kind, [...(byKind.get(kind) ?? []), o.key]);
  }
  const kept: string[] = [];
  const stale: string[] = [];
  for (const keys of byKind.values()) {
    keys.sort().reverse();
    kept.push(...keys.slice(0, options.keep));
    stale.push(...keys.slice(options.keep));
  }
  const named = new Set<string>();
  for (const key of kept)
    for (const digest of Object.values((await readManifest(store, key))?.files ?? {})) named.add(digest);
  // Manifests first: a manifest never outlives one of its objects.
  await store.delete(stale);
  const oldest = (options.now ?? new Date()).getTime() - options.graceMs;
  const doomed: string[] = [];
  let objects = 0;
  for await (const o of store.list(OBJECTS)) {
    objects++;
    if (!named.has(o.key.slice(OBJECTS.length)) && o.modified.getTime() < oldest) doomed.push(o.key);
  }
  await store.delete(doomed);
  return {
    manifests: { kept: kept.length, removed: stale.length },
    objects: { kept: objects - doomed.length, removed: doomed.length },
  };
}
