/**
 * The part of a snapshot a sync needs to know what it already has: the
 * manifest and the two indexes. Anything missing or unreadable means "no
 * usable snapshot", and the sync starts over with a full one.
 *
 * A process that syncs the same directory again and again (the dev server on
 * every webhook) keeps the state its last commit left, with a stamp of the
 * files it describes; the next read takes it from memory while those files
 * are still the ones this process wrote (same inode, size and modification
 * time), and from disk otherwise.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { FILES, INDEX_FILES, Manifest } from './format.js';
import type { DatasourceIndexEntry, StoryIndexEntry } from './index-entries.js';
import { canonicalJson } from './json.js';
import { fileStamp, readJsonFile } from './read.js';
import type { IndexLayout } from './stories-index.js';
import { recoverSnapshot, type SnapshotTransaction } from './transaction.js';

export interface SnapshotState {
  manifest: Manifest & { max_published_at?: string | null; synced_at?: string; last_complete?: LastComplete };
  stories: Map<number, StoryIndexEntry>;
  datasources: Map<number, DatasourceIndexEntry>;
  /** Where each entry sits in `indexes/stories.json`, when this process wrote that file. */
  index?: IndexLayout;
}

/**
 * What the last sync that read every change saw: its cache version and newest publication. Kept
 * in the manifest by a sync that fetched only what webhook events named, which vouches for
 * nothing else: a later sync without events takes up from here, not from the events' version
 * (else a change whose event was lost would stay out for good).
 */
export interface LastComplete {
  cv: number;
  max_published_at: string | null;
}

/** Where a snapshot was last complete: the `last_complete` a sync of events kept, else the manifest's own. */
export function lastCompleteOf(manifest: SnapshotState['manifest']): LastComplete {
  return manifest.last_complete ?? { cv: manifest.cv, max_published_at: manifest.max_published_at ?? null };
}

/** The files a state is read from. */
const STATE_FILES: string[] = [FILES.manifest, INDEX_FILES.stories, INDEX_FILES.datasources];

/**
 * The last state this process committed to each directory, with the stamps its
 * files had. A sync copies the maps before changing them, and index entries
 * are never changed in place (a change replaces the entry), so what is kept
 * here stays what was committed.
 */
const remembered = new Map<string, { state: SnapshotState; stamp: string }>();

async function stampsOf(files: string[]): Promise<string[] | undefined> {
  const stamps = await Promise.all(files.map(fileStamp));
  return stamps.every((s) => s !== undefined) ? (stamps as string[]) : undefined;
}

/**
 * The stamps the state files of `txn`'s directory will have once it commits:
 * a staged file keeps its inode, size and modification time when renamed into
 * place, and a file the transaction does not touch stays as it is. Taken while
 * the transaction holds the directory, so no other writer comes in between.
 */
export async function committedStamps(txn: SnapshotTransaction): Promise<string[] | undefined> {
  const { puts, deletes } = txn.changes;
  if (STATE_FILES.some((rel) => deletes.includes(rel))) return undefined;
  return stampsOf(
    STATE_FILES.map((rel) => (puts.includes(rel) ? path.join(txn.dir, '.txn', 'files', rel) : path.join(txn.dir, rel))),
  );
}

/**
 * Keeps the state a commit left in `dir`: its files stamped by
 * `committedStamps` before the commit, and the layout of the stories index
 * written from `state.stories`.
 */
export function rememberState(
  dir: string,
  state: Omit<SnapshotState, 'index'>,
  layout: Omit<IndexLayout, 'stamp'> | undefined,
  stamps: string[] | undefined,
): void {
  dir = path.resolve(dir);
  if (stamps === undefined) {
    remembered.delete(dir);
    return;
  }
  // The manifest as a read from disk would give it.
  const manifest = Manifest.parse(JSON.parse(canonicalJson(state.manifest))) as SnapshotState['manifest'];
  const index =
    layout && layout.entries === state.stories
      ? { ...layout, stamp: stamps[STATE_FILES.indexOf(INDEX_FILES.stories)]! }
      : undefined;
  remembered.set(dir, {
    state: { manifest, stories: state.stories, datasources: state.datasources, ...(index ? { index } : {}) },
    stamp: stamps.join('|'),
  });
}

/** Drops what this process remembers of `dir` (a sync of it failed). */
export function forgetState(dir: string): void {
  remembered.delete(path.resolve(dir));
}

/** What a sync knows of the snapshot in `dir` (its maps copies: the caller may change them). */
export async function readState(dir: string): Promise<SnapshotState | undefined> {
  const state = await loadState(dir);
  return (
    state && {
      manifest: structuredClone(state.manifest),
      stories: new Map(state.stories),
      datasources: new Map(state.datasources),
    }
  );
}

/**
 * The state this process committed to `dir` last, if the directory still holds
 * exactly that (after finishing a transaction a killed writer left); else
 * undefined, and the disk is the truth.
 */
export async function rememberedState(dir: string): Promise<SnapshotState | undefined> {
  if (!existsSync(dir)) return undefined;
  await recoverSnapshot(dir);
  const mem = remembered.get(path.resolve(dir));
  if (!mem) return undefined;
  if (mem.stamp === (await stampsOf(STATE_FILES.map((rel) => path.join(dir, rel))))?.join('|')) return mem.state;
  // Written by someone else since.
  remembered.delete(path.resolve(dir));
  return undefined;
}

/**
 * What a sync knows of the snapshot in `dir`, possibly this process's memory
 * of it: to be read, never changed.
 */
export async function loadState(dir: string): Promise<SnapshotState | undefined> {
  const mem = await rememberedState(dir);
  if (mem) return mem;
  // A directory that is not there fails the first read: undefined.
  try {
    const manifest = Manifest.parse(await readJsonFile(path.join(dir, FILES.manifest)));
    const stories = (await readJsonFile(path.join(dir, INDEX_FILES.stories))) as StoryIndexEntry[];
    const datasources = (await readJsonFile(path.join(dir, INDEX_FILES.datasources))) as DatasourceIndexEntry[];
    if (!Array.isArray(stories) || !Array.isArray(datasources)) return undefined;
    return {
      manifest: manifest as SnapshotState['manifest'],
      stories: new Map(stories.map((s) => [s.id, s])),
      datasources: new Map(datasources.map((d) => [d.id, d])),
    };
  } catch {
    return undefined;
  }
}
