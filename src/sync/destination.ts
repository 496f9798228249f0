/** Where a sync may write its snapshot. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FILES, SPACE_DIRECTORY_NAMES, newerFormatReason } from '../snapshot/index.js';
import { SyncError } from './sync-error.js';

/**
 * A sync writes only into a new or empty directory or an earlier snapshot: a directory holding
 * someone's files (a project's `public/` with its own manifest.json) is refused, untouched.
 */
export async function refuseForeignDirectory(out: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(out);
  } catch {
    return; // missing (created by the commit) or not a directory (the transaction says so)
  }
  const foreign = entries.filter((e) => !e.startsWith('.') && !SPACE_DIRECTORY_NAMES.has(e));
  let manifestForeign = false;
  let newer: string | undefined;
  if (entries.includes(FILES.manifest)) {
    try {
      const m = JSON.parse(await fs.readFile(path.join(out, FILES.manifest), 'utf8')) as unknown;
      // A newer version's snapshot (whose names may be foreign here): this one would replace it whole in its own format.
      newer = newerFormatReason(out, (m as { format?: unknown } | null)?.format);
      // A space directory `demo` wrote (or one of a space's own) has a manifest too, without the API
      // version a sync records: its records, folders and releases would stay among the synced ones.
      manifestForeign = typeof m !== 'object' || m === null || !('cv' in m) || !('space' in m) || !('api' in m);
    } catch {
      // Unreadable: a damaged snapshot, which a sync repairs.
    }
  }
  if (newer) throw new SyncError(`${newer}, or sync into another --out (or dir)`);
  if (foreign.length || manifestForeign)
    throw new SyncError(
      `${out} holds files that are not a snapshot's (${(manifestForeign ? [FILES.manifest, ...foreign] : foreign).slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}): a sync writes only into a new or empty directory or an earlier snapshot; choose another --out (or dir)`,
    );
}
