/**
 * The store's layout: one object per distinct file, named by its sha256, and one manifest per
 * snapshot version naming its files by digest.
 *
 *   <prefix>/objects/<sha256>
 *   <prefix>/manifests/<space>/<api>-<views>/<cv, 16 digits>.json
 *
 * A manifest is written only after every object it names, so a manifest in the store is always
 * complete. The cv is padded so that the newest version is the last key in listing order.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { FILES, Manifest } from '../snapshot/index.js';
import type { ObjectStore } from './s3.js';

export const STORE_FORMAT = 1;
export const OBJECTS = 'objects/';
export const MANIFESTS = 'manifests/';

export const StoreManifest = z.object({
  format: z.literal(STORE_FORMAT),
  space: z.number().int(),
  api: z.enum(['v1', 'v2']),
  views: z.array(z.enum(['published', 'draft'])),
  cv: z.number().int(),
  /**
   * A snapshot synced from webhook events alone (its manifest keeps `last_complete`): it may lack a
   * change whose event was lost. A builder whose census completed the same version replaces it.
   */
  partial: z.literal(true).optional(),
  /** Relative path in the snapshot -> sha256 of its bytes. */
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});
export type StoreManifest = z.infer<typeof StoreManifest>;

/** What a snapshot version is kept under: the space, API version and views it holds. */
export interface SnapshotKind {
  space: number;
  api: 'v1' | 'v2';
  views: readonly string[];
}

export const objectKey = (digest: string): string => `${OBJECTS}${digest}`;

/** The folder of every manifest of one kind. */
export const manifestFolder = (kind: SnapshotKind): string =>
  `${MANIFESTS}${kind.space}/${kind.api}-${[...kind.views].sort().join('+')}/`;

export const manifestKey = (kind: SnapshotKind, cv: number): string =>
  `${manifestFolder(kind)}${String(cv).padStart(16, '0')}.json`;

/**
 * The kind and cv of the local snapshot in `dir`, from its manifest, and whether it is partial
 * (see StoreManifest); undefined when it has none readable.
 */
export function localVersion(dir: string): (SnapshotKind & { cv: number; partial: boolean }) | undefined {
  try {
    const m = Manifest.parse(JSON.parse(readFileSync(path.join(dir, FILES.manifest), 'utf8')));
    const partial = (m as { last_complete?: unknown }).last_complete !== undefined;
    return { space: m.space.id, api: m.api ?? 'v2', views: m.views, cv: m.cv, partial };
  } catch {
    return undefined;
  }
}

/** The key of the newest manifest of `kind` in the store, if any. */
export async function newestManifest(store: ObjectStore, kind: SnapshotKind): Promise<string | undefined> {
  let newest: string | undefined;
  for await (const o of store.list(manifestFolder(kind))) {
    if (o.key.endsWith('.json') && (newest === undefined || o.key > newest)) newest = o.key;
  }
  return newest;
}

export async function readManifest(store: ObjectStore, key: string): Promise<StoreManifest | undefined> {
  const bytes = await store.get(key);
  if (!bytes) return undefined;
  const parsed = StoreManifest.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!parsed.success)
    throw new Error(`${store.url}/${key} is not a snapshot manifest of this version of content-sync`);
  return parsed.data;
}
