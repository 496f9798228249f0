/**
 * The embedded service's space directory, watched while a dev server runs: a story or datasource
 * file edited, added or removed (by hand, by an editor, by a script writing the directory) makes the
 * service serve the directory as it is now, and the page shows it (see `ContentPipeline.reloadEmbedded`).
 *
 * Only the files a space directory is read from count: reading it leaves marks of its own beside
 * them, and an editor its swap and backup files. An editor's save is several events (a temporary
 * file renamed into place, say): they make one reload once the directory has been quiet a moment.
 */
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { FILES } from '../snapshot/index.js';
import { Batcher } from '../trigger/index.js';

/** How long the directory stays quiet before a reload, and the longest a stream of changes defers one (ms). */
const QUIET_MS = 150;
const MAX_WAIT_MS = 2_000;

const TOP_FILES = new Set<string>([FILES.space, FILES.folders, FILES.releases, FILES.workflowStages]);
const RECORD_FILE = new RegExp(`^(?:${FILES.stories}|${FILES.datasources})/\\d+\\.json$`);

/** Whether `rel` (a path in a space directory, `/`-separated) is a file the directory is read from. */
export function isSpaceFile(rel: string): boolean {
  return TOP_FILES.has(rel) || RECORD_FILE.test(rel);
}

/**
 * Calls `changed` after the space files under `dir` changed (once per quiet moment); the function
 * returned stops watching. A watcher that fails (the directory removed, no more inotify watches)
 * says so through `warn` and stops: the dev server goes on without it.
 */
export function watchSpaceDirectory(dir: string, changed: () => void, warn: (msg: string) => void): () => void {
  const batcher = new Batcher<string>(QUIET_MS, MAX_WAIT_MS, () => changed());
  let watcher: FSWatcher | undefined;
  const stop = () => {
    batcher.cancel();
    watcher?.close();
    watcher = undefined;
  };
  try {
    watcher = watch(dir, { recursive: true, persistent: false }, (_event, name) => {
      const rel = name?.toString().split(path.sep).join('/');
      if (rel && isSpaceFile(rel)) batcher.add([rel]);
    });
  } catch (err) {
    warn(`content-sync: not watching ${dir} for changes: ${(err as Error).message}`);
    return stop;
  }
  watcher.on('error', (err) => {
    warn(`content-sync: stopped watching ${dir} for changes: ${err.message}`);
    stop();
  });
  return stop;
}
