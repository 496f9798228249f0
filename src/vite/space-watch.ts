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
const RECORD_DIRS: readonly string[] = [FILES.stories, FILES.datasources];
const RECORD_FILE = new RegExp(`^(?:${FILES.stories}|${FILES.datasources})/\\d+\\.json$`);

/** Whether `rel` (a path in a space directory, `/`-separated) is a file the directory is read from. */
export function isSpaceFile(rel: string): boolean {
  return TOP_FILES.has(rel) || RECORD_FILE.test(rel);
}

/**
 * Calls `changed` after the space files under `dir` changed (once per quiet moment); the function
 * returned stops watching. Three directories are watched, not every file (a recursive watch on
 * Linux takes a watch per file: 10,000 at 10,000 stories, a quarter of a second to set up), and the
 * parent for the directory itself: a tool that writes a space directory anew renames a new one into
 * place (`content-sync demo --out`), and a watch follows the old one. A directory that cannot be
 * watched at the start, or a parent that fails, says so through `warn` and stops: the dev server
 * goes on without it.
 */
export function watchSpaceDirectory(dir: string, changed: () => void, warn: (msg: string) => void): () => void {
  const batcher = new Batcher<string>(QUIET_MS, MAX_WAIT_MS, () => changed());
  const watchers = new Map<string, FSWatcher>();
  let stopped = false;
  const stop = () => {
    stopped = true;
    batcher.cancel();
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  const fail = (err: Error) => {
    if (stopped) return;
    warn(`content-sync: stopped watching ${dir} for changes: ${err.message}`);
    stop();
  };
  const unwatch = (sub: string) => {
    watchers.get(sub)?.close();
    watchers.delete(sub);
  };
  /** Watches `sub` (a folder of records, or '' for the directory itself) when it exists; false when it does not. */
  const add = (sub: string): boolean => {
    if (stopped || watchers.has(sub)) return true;
    let watcher: FSWatcher;
    try {
      watcher = watch(path.join(dir, sub), { persistent: false }, (_event, name) => {
        const rel = sub ? `${sub}/${name}` : String(name);
        if (isSpaceFile(rel)) batcher.add([rel]);
        else if (!sub && RECORD_DIRS.includes(rel)) {
          // A folder of records made, removed or put in place of another since the watch began.
          unwatch(rel);
          add(rel);
          batcher.add([rel]);
        }
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      fail(err as Error);
      return true;
    }
    // Gone (removed, or renamed away): watched again when the one above sees it come back.
    watcher.on('error', () => {
      watcher.close();
      if (watchers.get(sub) === watcher) watchers.delete(sub);
    });
    watchers.set(sub, watcher);
    return true;
  };
  /** The directory and its folders of records, watched anew (the directory was replaced). */
  const watchAll = (): boolean => {
    for (const sub of ['', ...RECORD_DIRS]) unwatch(sub);
    const found = add('');
    for (const sub of RECORD_DIRS) add(sub);
    return found;
  };
  try {
    const parent = watch(path.dirname(dir), { persistent: false }, (_event, name) => {
      if (String(name) !== path.basename(dir)) return;
      watchAll();
      batcher.add([FILES.space]);
    });
    parent.on('error', fail);
    watchers.set('..', parent);
  } catch (err) {
    fail(err as Error);
    return stop;
  }
  if (!watchAll()) fail(Object.assign(new Error(`ENOENT: no such directory, watch '${dir}'`), { code: 'ENOENT' }));
  return stop;
}
