/**
 * The files of a local snapshot and their digests: what a push uploads and what a pull compares
 * against. The transaction's journal, locks and readers' marks are not the snapshot's files.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';

/** Names the snapshot's machinery uses beside its files (see snapshot/lock.ts and transaction.ts). */
const isMachinery = (name: string): boolean =>
  name.startsWith('.txn') || name.startsWith('.reader') || name.includes('~');

/**
 * Whether `rel` (as a manifest in the store names it) can be a file of a snapshot: relative, inside
 * it, and none of its machinery (a lock or reader's mark planted by a pull would stall every writer).
 */
export const isSnapshotPath = (rel: string): boolean =>
  rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && !isMachinery(part));

export const digestOf = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function relativeFiles(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const rel = entry.split(path.sep).join('/');
    if (rel.split('/').some(isMachinery)) continue;
    if ((await fs.stat(path.join(dir, entry))).isFile()) files.push(rel);
  }
  return files.sort();
}

/** Every file of the snapshot in `dir` (relative path, `/`-separated) with its sha256. */
export async function snapshotDigests(dir: string): Promise<Map<string, string>> {
  const queue = new PQueue({ concurrency: 16 });
  const digests = new Map<string, string>();
  await queue.addAll(
    (await relativeFiles(dir)).map((rel) => async () => {
      digests.set(rel, digestOf(await fs.readFile(path.join(dir, rel))));
    }),
  );
  return new Map([...digests].sort(([a], [b]) => (a < b ? -1 : 1)));
}
