/**
 * Snapshot directories as data, for comparing two syncs byte for byte.
 */
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Every file under `dir` (relative, `/`-separated) and its bytes, `.txn` included when present. */
export async function readFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else out.set(child, await readFile(path.join(dir, child)));
    }
  };
  await walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every file with its modification time, to prove that nothing was touched. */
export async function readMtimes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const rel of (await readFiles(dir)).keys()) out.set(rel, (await stat(path.join(dir, rel))).mtimeMs);
  return out;
}

/**
 * The content of a snapshot: file name -> text, with the manifest's
 * `synced_at` (the only part that differs between two syncs of the same
 * content) removed.
 */
export async function snapshotContent(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [rel, bytes] of await readFiles(dir)) {
    let text = bytes.toString('utf8');
    if (rel === 'manifest.json') {
      const manifest = JSON.parse(text) as Record<string, unknown>;
      delete manifest.synced_at;
      text = JSON.stringify(manifest, null, 2);
    }
    out[rel] = text;
  }
  return out;
}

/** A fresh directory under the system's temporary directory. */
export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `content-sync-${prefix}-`));
}

export function removeDir(dir: string | undefined): Promise<void> {
  return dir ? rm(dir, { recursive: true, force: true }) : Promise.resolve();
}
