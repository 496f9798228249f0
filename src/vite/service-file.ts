/**
 * The embedded service of a running process, for the project's other processes: a build, `astro
 * check` or `content-sync prepare` run while the dev server runs. On its own, such a process
 * cannot take the port the snapshot's asset URLs name (the dev server holds it): it would read the
 * whole space again from the directory on another port, rewriting every asset URL to a port that
 * closes with it and dropping from the snapshot the edits made through the dev server's control
 * plane, under the dev server that serves them. So while a service runs, its owner keeps where it
 * is and its tokens in `<dir>/service.json` (readable by its user alone; the tokens of a service on
 * loopback that lives as long as the process), and a build syncs from it instead.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { processRunning } from '../snapshot/lock.js';
import { keepFile } from './kept-file.js';

export interface ServiceEntry {
  url: string;
  publicToken: string;
  previewToken: string;
  /** The space directory it serves (absolute). */
  data: string;
  pid: number;
  /** The pipeline that started it (several may run in one process). */
  owner: string;
  /**
   * What shapes the snapshot its owner syncs (view, API version, assets): a build that would sync
   * another snapshot into the same directory does not borrow the service, it starts its own.
   */
  shape: string;
}

/** Where a project keeps its running service: in its content directory. */
export const serviceFileOf = (contentDir: string): string => path.join(contentDir, 'service.json');

/** How long a running service may take to answer before it is taken for gone. */
const PROBE_MS = 2_000;

/**
 * Keeps `entry` in `file`, whole (renamed into place), unless the file names the service of another
 * pipeline whose process runs (a second dev server of the project leaves the first one's entry);
 * a failure only costs another process a sync of its own.
 */
export function announceService(file: string, entry: ServiceEntry): void {
  const held = readEntry(file);
  if (held && held.owner !== entry.owner && processRunning(held.pid)) return;
  keepFile(file, JSON.stringify(entry), 0o600);
}

/** Removes `file` when it still names the service of `owner`. */
export function withdrawService(file: string, owner: string): void {
  if (readEntry(file)?.owner === owner) rmSync(file, { force: true });
}

/**
 * The service a pipeline runs over the space directory `data`, when it is alive and answers with
 * its token; undefined otherwise (none, a process gone, another directory).
 */
export async function runningService(file: string, data: string, shape: string): Promise<ServiceEntry | undefined> {
  const entry = readEntry(file);
  if (!entry || entry.data !== data || entry.shape !== shape || !processRunning(entry.pid)) return undefined;
  try {
    const url = new URL('/v2/cdn/spaces/me', entry.url);
    url.searchParams.set('token', entry.publicToken);
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_MS) });
    // A space, not just any answer: the port may have passed to another server since.
    const body = res.ok ? ((await res.json()) as { space?: { id?: unknown } }) : undefined;
    return typeof body?.space?.id === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}

function readEntry(file: string): ServiceEntry | undefined {
  try {
    const e = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServiceEntry> | null;
    const strings = [e?.url, e?.publicToken, e?.previewToken, e?.data, e?.owner, e?.shape];
    if (strings.some((s) => typeof s !== 'string') || !Number.isInteger(e?.pid)) return undefined;
    return e as ServiceEntry;
  } catch {
    return undefined;
  }
}
