/**
 * The part of a snapshot a sync needs to know what it already has: the
 * manifest and the two indexes. Anything missing or unreadable means "no
 * usable snapshot", and the sync starts over with a full one.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FILES, Manifest, canonicalJson, recoverSnapshot } from '../snapshot/index.js';
import { INDEX_FILES, type DatasourceIndexEntry, type StoryIndexEntry } from './records.js';

export interface SnapshotState {
  manifest: Manifest & { max_published_at?: string | null; synced_at?: string };
  stories: Map<number, StoryIndexEntry>;
  datasources: Map<number, DatasourceIndexEntry>;
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(file, 'utf8'));
}

export async function readState(dir: string): Promise<SnapshotState | undefined> {
  try {
    await fs.access(dir);
  } catch {
    return undefined;
  }
  await recoverSnapshot(dir);
  try {
    const manifest = Manifest.parse(await readJson(path.join(dir, FILES.manifest)));
    const stories = (await readJson(path.join(dir, INDEX_FILES.stories))) as StoryIndexEntry[];
    const datasources = (await readJson(path.join(dir, INDEX_FILES.datasources))) as DatasourceIndexEntry[];
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

/** Reads one story record from a snapshot (or from a transaction's staging). */
export async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

export const sortedIndex = <T extends { id: number }>(map: Map<number, T>): string =>
  canonicalJson([...map.values()].sort((a, b) => a.id - b.id));

/**
 * The same text as `sortedIndex`, in pieces (one per entry), so that an index
 * of a large space is written without ever being one string.
 */
export function* sortedIndexPieces<T extends { id: number }>(map: Map<number, T>): Generator<string> {
  const ids = [...map.keys()].sort((a, b) => a - b);
  if (!ids.length) {
    yield '[]\n';
    return;
  }
  yield '[\n';
  for (let i = 0; i < ids.length; i++) {
    const entry = canonicalJson(map.get(ids[i]!)).slice(0, -1).replace(/\n/g, '\n  ');
    yield `  ${entry}${i < ids.length - 1 ? ',' : ''}\n`;
  }
  yield ']\n';
}
