/**
 * What a compile reads of the snapshot besides story records: its manifest
 * and story index (from memory when this process synced it last), its
 * datasources and its tags.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Tag } from '../api/resources.js';
// From the modules themselves, not the packages' indexes: a compile loads no more than it uses.
import {
  FILES,
  INDEX_FILES,
  DatasourceRecord as DatasourceRecordSchema,
  type DatasourceRecord,
  type Manifest,
} from '../snapshot/format.js';
import { readManifest, refuseNewerFormat } from '../snapshot/read.js';
import { indexRowsOfLayout, parseIndexRowsText } from '../snapshot/index-rows.js';
import { rememberedState } from '../snapshot/state.js';
import { indexRowOf, scanIndexRows, type IndexRow } from '../snapshot/stories-index.js';
import { DamagedSnapshotError, parseSnapshotJson, readSnapshotFile } from './story.js';
import type { View } from '../api/index.js';

/**
 * The manifest of a snapshot and a reader of its story index: from memory
 * when this process synced it last, else from disk (finishing a transaction a
 * killed writer left).
 */
export async function openSnapshot(snapshot: string): Promise<{ manifest: Manifest; readIndex: () => IndexRow[] }> {
  const mem = await rememberedState(snapshot);
  if (mem) {
    // Written by this process: where each entry sits in the index is known, so links read entries as from disk.
    if (mem.index) {
      const index = indexRowsOfLayout(mem.index);
      return { manifest: mem.manifest, readIndex: () => index };
    }
    const index: IndexRow[] = [];
    for (const e of mem.stories.values())
      index.push({ id: e.id, uuid: e.uuid, digest: e.digest, component: e.component, published: e.published });
    return { manifest: mem.manifest, readIndex: () => index.sort((a, b) => a.id - b.id) };
  }
  refuseNewerFormat(snapshot);
  const manifest = await readManifest(snapshot).catch(() => undefined);
  if (!manifest)
    throw new Error(`${snapshot} holds no snapshot (no readable manifest.json); run \`content-sync sync\` first`);
  const readIndex = (): IndexRow[] => {
    const unreadable = `${snapshot} has no readable ${INDEX_FILES.stories}; it was not written by \`content-sync sync\` (sync it again)`;
    // The rows sync writes beside the index, when they describe the index the manifest names, as large as it is.
    const digest = (manifest.digests as Record<string, string> | undefined)?.stories;
    if (digest) {
      try {
        const bytes = statSync(path.join(snapshot, INDEX_FILES.stories)).size;
        const rows = parseIndexRowsText(readFileSync(path.join(snapshot, INDEX_FILES.storyRows), 'utf8'), {
          digest,
          bytes,
        });
        if (rows) return rows;
      } catch {
        // No rows file (an older sync), or no index: read below.
      }
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(snapshot, INDEX_FILES.stories));
    } catch {
      throw new Error(unreadable);
    }
    // The index as sync writes it is read off its lines; anything else is parsed.
    const rows = scanIndexRows(bytes.toString('latin1'), bytes) ?? parseIndexRows(bytes.toString('utf8'));
    if (!rows) throw new Error(unreadable);
    return rows.sort((a, b) => a.id - b.id);
  };
  return { manifest, readIndex };
}

function parseIndexRows(text: string): IndexRow[] | undefined {
  try {
    const raw = JSON.parse(text) as unknown;
    if (!Array.isArray(raw)) return undefined;
    const rows: IndexRow[] = [];
    for (const e of raw as Array<Record<string, unknown>>) {
      const row = indexRowOf(e);
      if (!row) return undefined;
      rows.push(row);
    }
    return rows;
  } catch {
    return undefined;
  }
}

/** The datasource records of the snapshot, by id; none when sync wrote no datasources directory. */
export function readDatasources(snapshot: string): DatasourceRecord[] {
  const dir = path.join(snapshot, FILES.datasources);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: DatasourceRecord[] = [];
  for (const n of names) {
    const rel = `${FILES.datasources}/${n}`;
    // A few files: parsed without the code zod would generate to parse many faster (see snapshot/read.ts).
    const checked = DatasourceRecordSchema.safeParse(readSnapshotJson(snapshot, rel), { jitless: true });
    if (!checked.success) throw DamagedSnapshotError.notA(snapshot, rel, 'a datasource record', checked.error);
    out.push(checked.data);
  }
  return out.sort((a, b) => a.datasource.id - b.datasource.id);
}

/** What sync writes in tags.json: the tags of each view it read. */
const TagsFile = z.object({ published: z.array(Tag).optional(), draft: z.array(Tag).optional() });

export function readTags(snapshot: string, view: View): Tag[] {
  const checked = TagsFile.safeParse(readSnapshotJson(snapshot, FILES.tags), { jitless: true });
  if (!checked.success) throw DamagedSnapshotError.notA(snapshot, FILES.tags, 'a tags file', checked.error);
  return checked.data[view] ?? checked.data.published ?? [];
}

/** A JSON file of the snapshot, parsed; a DamagedSnapshotError when it is missing or not JSON. */
const readSnapshotJson = (snapshot: string, rel: string): unknown =>
  parseSnapshotJson(snapshot, rel, readSnapshotFile(snapshot, rel).toString('utf8'));
