/**
 * Atomic changes to a snapshot directory, whatever their size.
 *
 * A writer first takes the directory's lock (see lock.ts), then finishes or
 * discards a journal a killed writer left, then stages every new file under
 * `<dir>/.txn/files/`. To commit, it checks that every staged file is there,
 * writes the list of puts and deletes to `.txn/plan.json` (from then on no
 * compile starts reading: see openForReading), waits for the compiles reading
 * the directory to finish, and renames the plan to `.txn/COMMIT`: that rename
 * is the commit point. Applying renames each staged file over its target and
 * unlinks the deletes, the manifest last. A process killed at any instant
 * leaves either no COMMIT (the staging is discarded by the next writer: the
 * old snapshot stands) or a COMMIT (the next writer or reader finishes
 * applying it: the new snapshot stands). Only the holder of the lock touches
 * `.txn`, and a journal is deleted by first renaming it to a name of the
 * deleting process's own, so nothing deletes another process's journal.
 */

import { createHash } from 'node:crypto';
import { existsSync, promises as fs, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FILES } from './format.js';
import {
  LOCK_FILE,
  liveReaders,
  lockHolder,
  newOwner,
  processRunning,
  ReaderMark,
  SnapshotBusyError,
  SnapshotLockedError,
  sleep,
  sweep,
  transientName,
  WriterLock,
} from './lock.js';

export { SnapshotBusyError, SnapshotLockedError } from './lock.js';

const TXN = '.txn';
const PLAN = 'plan.json';
const COMMIT = 'COMMIT';

/** How long a commit waits for the compiles reading the directory, and a compile for a commit under way. */
export const WAIT_FOR_READERS_MS = 120_000;
export const WAIT_FOR_COMMIT_MS = 60_000;

interface Plan {
  puts: string[];
  deletes: string[];
}

/** Rejects relative paths that would leave the snapshot. */
function safeRelative(rel: string): string {
  const normal = path.posix.normalize(rel);
  if (normal.startsWith('..') || path.posix.isAbsolute(normal) || normal.split('/').includes(TXN)) {
    throw new Error(`refusing to write outside the snapshot: ${rel}`);
  }
  return normal;
}

/**
 * Moves the journal's staged files into place. `resuming`: finishing a commit a killed writer
 * began, whose puts may already be in place; otherwise a staged file that is missing is an error.
 */
async function apply(dir: string, plan: Plan, resuming: boolean): Promise<void> {
  const staged = path.join(dir, TXN, 'files');
  const made = new Set<string>();
  const puts = [...plan.puts.filter((p) => p !== FILES.manifest), ...plan.puts.filter((p) => p === FILES.manifest)];
  const whole = await wholeDirectories(dir, staged, puts);
  for (const rel of whole) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.rename(path.join(staged, rel), path.join(dir, rel));
  }
  for (const rel of puts) {
    if (whole.has(path.posix.dirname(rel))) continue;
    const target = path.join(dir, rel);
    const parent = path.dirname(target);
    if (!made.has(parent)) {
      await fs.mkdir(parent, { recursive: true });
      made.add(parent);
    }
    try {
      await fs.rename(path.join(staged, rel), target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // Moved by the interrupted application this one finishes.
      if (resuming && existsSync(target)) continue;
      throw new Error(
        `${path.join(staged, rel)} is missing from the commit of ${dir}; the snapshot may be incomplete: run \`content-sync sync --full\``,
      );
    }
  }
  for (const rel of plan.deletes) {
    await fs.rm(path.join(dir, rel), { force: true });
  }
}

/**
 * The directories of a plan the snapshot does not have yet and whose staged files are exactly the
 * plan's (the stories of a first sync): each is moved in whole, one rename instead of thousands.
 * A commit resumed after that rename finds those files in place, as after one rename per file.
 */
async function wholeDirectories(dir: string, staged: string, puts: readonly string[]): Promise<Set<string>> {
  const counts = new Map<string, number>();
  for (const rel of puts) {
    const parent = path.posix.dirname(rel);
    if (parent !== '.') counts.set(parent, (counts.get(parent) ?? 0) + 1);
  }
  const whole = new Set<string>();
  for (const [parent, n] of counts) {
    if (n < 2 || existsSync(path.join(dir, parent))) continue;
    const entries = await fs.readdir(path.join(staged, parent)).catch(() => [] as string[]);
    if (entries.length === n) whole.add(parent);
  }
  return whole;
}

/**
 * A path of `rels` that `dir` holds as a directory, or one of their folders that it holds as a
 * file: the commit could not move the file into place, and it would fail past its point of no
 * return, where every later writer and reader of the snapshot resumes it and fails the same way.
 * One listing per folder (a stat per file of a first sync costs more).
 */
export async function collision(dir: string, rels: readonly string[]): Promise<string | undefined> {
  const byFolder = new Map<string, string[]>();
  for (const rel of rels) {
    const folder = path.posix.dirname(rel);
    const names = byFolder.get(folder) ?? [];
    names.push(path.posix.basename(rel));
    byFolder.set(folder, names);
  }
  const ancestors = new Set<string>();
  for (const folder of byFolder.keys())
    for (let at = folder; at !== '.'; at = path.posix.dirname(at)) ancestors.add(at);
  for (const folder of [...ancestors].sort()) {
    // Followed: a folder linked elsewhere (assets on another disk) takes the files as one does.
    const found = await fs.stat(path.join(dir, folder)).catch(() => undefined);
    if (found && !found.isDirectory()) return folder;
  }
  for (const [folder, names] of byFolder) {
    const entries = await fs.readdir(path.join(dir, folder), { withFileTypes: true }).catch(() => []);
    const folders = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
    const clash = names.find((name) => folders.has(name));
    if (clash) return path.posix.join(folder, clash);
  }
  return undefined;
}

/**
 * A folder of `rels` that `dir` holds on another file system than its staging (a link to another
 * disk): the commit could not rename a file into it, past its point of no return, as for a collision.
 */
async function otherDevice(dir: string, rels: readonly string[]): Promise<string | undefined> {
  const staging = (await fs.stat(path.join(dir, TXN, 'files'))).dev;
  // Their parents too: a folder the snapshot lacks is made (or moved in whole) in its nearest one.
  const folders = new Set<string>();
  for (const rel of rels)
    for (let at = path.posix.dirname(rel); at !== '.' && !folders.has(at); at = path.posix.dirname(at)) folders.add(at);
  for (const folder of [...folders].sort()) {
    const found = await fs.stat(path.join(dir, folder)).catch(() => undefined);
    if (found && found.dev !== staging) return folder;
  }
  return undefined;
}

/** Deletes the journal of `dir`, first renamed to a name of this process's own (see the top of this file). */
async function discardJournal(dir: string): Promise<void> {
  const aside = path.join(dir, transientName(TXN, newOwner()));
  try {
    await fs.rename(path.join(dir, TXN), aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  await fs.rm(aside, { recursive: true, force: true });
}

/** Finishes or discards the journal a killed writer left, under the lock; what it did. */
async function recoverJournal(dir: string): Promise<'clean' | 'rolled-forward' | 'rolled-back'> {
  await sweep(dir);
  const txn = path.join(dir, TXN);
  if (!existsSync(txn)) return 'clean';
  // A journal of an earlier version, whose writer named itself in it. One naming this process is an
  // earlier process's that had its pid (a container restarted after a kill): this one writes none.
  const legacy = Number((await fs.readFile(path.join(txn, 'LOCK'), 'utf8').catch(() => '')).trim());
  if (legacy !== process.pid && processRunning(legacy)) {
    throw new SnapshotLockedError(
      `${dir} is being written by process ${legacy} (an earlier version of content-sync); wait for it to finish`,
    );
  }
  const commit = path.join(txn, COMMIT);
  if (existsSync(commit)) {
    await apply(dir, JSON.parse(await fs.readFile(commit, 'utf8')) as Plan, true);
    await discardJournal(dir);
    return 'rolled-forward';
  }
  await discardJournal(dir);
  return 'rolled-back';
}

/** Whether a commit of `dir` is under way: its plan or its commit point is on disk. */
const committing = (dir: string): boolean =>
  existsSync(path.join(dir, TXN, PLAN)) || existsSync(path.join(dir, TXN, COMMIT));

/**
 * Finishes or discards a transaction a dead writer left behind, and says what
 * it did. A live writer that is still staging is left alone ('staging': the
 * snapshot is readable as it is); one that is committing is waited for, up to
 * `waitMs` ('busy' past that).
 */
export async function recoverSnapshot(
  dir: string,
  waitMs = WAIT_FOR_COMMIT_MS,
): Promise<'clean' | 'rolled-forward' | 'rolled-back' | 'staging' | 'busy'> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    // Synchronous: two stats, which on the thread pool would cost a round trip each (every sync and compile asks first).
    // A lock without a journal is a writer's about to make one, or a killed writer's (then removed here).
    if (!existsSync(path.join(dir, TXN)) && !existsSync(path.join(dir, LOCK_FILE))) return 'clean';
    // A live writer is asked nothing (nor is anything written to ask it): still staging, the snapshot
    // itself is untouched and readable; committing, it is waited for.
    let lock: WriterLock | undefined;
    if (!(await lockHolder(dir))) {
      lock = await WriterLock.take(dir).catch((err: unknown) => {
        if (err instanceof SnapshotLockedError) return undefined;
        throw err;
      });
    }
    if (!lock) {
      if (!committing(dir)) return 'staging';
      if (Date.now() > deadline) return 'busy';
      await sleep(20);
      continue;
    }
    try {
      return await recoverJournal(dir);
    } finally {
      await lock.release();
    }
  }
}

/** A compile's hold on a snapshot: while it is open, no commit changes the directory. */
export interface SnapshotReading {
  close(): Promise<void>;
}

/**
 * Opens `dir` for reading a consistent snapshot: waits for a commit under way
 * (finishing one a killed writer left), then leaves a reader's mark, which a
 * writer waits for before its commit point. A SnapshotBusyError when a commit
 * is not done within `waitMs`.
 */
export async function openForReading(dir: string, waitMs = WAIT_FOR_COMMIT_MS): Promise<SnapshotReading> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (!existsSync(dir)) return { close: async () => undefined };
    // The mark first, then the look at the journal: a writer writes its plan first, then looks
    // for marks, so either this reader sees the plan or the writer sees the mark.
    const mark = await ReaderMark.leave(dir).catch((err: NodeJS.ErrnoException) => {
      // A directory this process may not write (a read-only copy): nobody else writes it either, as a rule.
      if (err.code === 'EROFS' || err.code === 'EACCES' || err.code === 'EPERM') return undefined;
      if (err.code === 'ENOTDIR') throw new Error(`${dir} is a file, not a snapshot or space directory`);
      throw err;
    });
    if (!committing(dir)) return { close: async () => mark?.remove() };
    await mark?.remove();
    const holder = await lockHolder(dir);
    if (!holder) {
      // A killed writer's commit: finished (or its plan discarded) here.
      await recoverSnapshot(dir, 0);
      continue;
    }
    if (Date.now() > deadline) {
      throw new SnapshotBusyError(
        `${dir} is being committed by process ${holder.pid}, not done within ${Math.round(waitMs / 1000)} s; the compile did not start (its output is unchanged); try again`,
      );
    }
    await sleep(20);
  }
}

/** A write to a snapshot that failed (a full disk, no permission): says which snapshot, and that the previous one is intact. */
export class SnapshotWriteError extends Error {
  override name = 'SnapshotWriteError';
  readonly code: string | undefined;

  constructor(dir: string, err: unknown, committed = false) {
    const cause = err as NodeJS.ErrnoException;
    super(
      committed
        ? `the commit of the snapshot in ${dir} was interrupted (${cause.message}); the new snapshot is committed and the next sync or compile finishes putting it in place`
        : `cannot write the snapshot in ${dir} (${cause.message}); nothing was committed: the previous snapshot is intact`,
      { cause },
    );
    this.code = cause.code;
  }
}

export class SnapshotTransaction {
  readonly #dir: string;
  readonly #lock: WriterLock;
  readonly #puts = new Set<string>();
  readonly #deletes = new Set<string>();
  readonly #made = new Set<string>();
  #done = false;
  /** The first directory this transaction's open made (the snapshot's, or a parent): removed again, empty, when nothing is committed. */
  readonly #created: string | undefined;
  /** Ends the commit's wait for readers too, as it ends the wait for another writer (a watch stopping). */
  readonly #signal: AbortSignal | undefined;

  private constructor(dir: string, lock: WriterLock, created: string | undefined, signal: AbortSignal | undefined) {
    this.#dir = dir;
    this.#lock = lock;
    this.#created = created;
    this.#signal = signal;
  }

  /**
   * Opens a transaction on `dir` (created if missing): takes its lock (a SnapshotLockedError when a
   * live process holds it; with `waitMs`, after waiting that long for it to finish), then finishes
   * or discards a journal a killed writer left.
   */
  static async begin(
    dir: string,
    waitMs = 0,
    /** While another writer (or, at the commit, a reader) holds the snapshot: what ends the wait, and who is told whom it waits for. */
    waiting: { signal?: AbortSignal; onWait?: (holder: string) => void } = {},
  ): Promise<SnapshotTransaction> {
    try {
      return await SnapshotTransaction.#open(dir, waitMs, waiting);
    } catch (err) {
      throw (err as NodeJS.ErrnoException).code ? new SnapshotWriteError(dir, err) : err;
    }
  }

  static async #open(
    dir: string,
    waitMs: number,
    waiting: { signal?: AbortSignal; onWait?: (holder: string) => void },
  ): Promise<SnapshotTransaction> {
    let created: string | undefined;
    let lock: WriterLock;
    for (let attempt = 1; ; attempt++) {
      created = (await fs.mkdir(dir, { recursive: true })) ?? created;
      try {
        lock =
          waitMs > 0 ? await WriterLock.takeWaiting(dir, waitMs, 'writing it', waiting) : await WriterLock.take(dir);
        break;
      } catch (err) {
        // The writer waited for failed its first sync and removed the directory it had made: made again.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 5) throw err;
      }
    }
    try {
      await recoverJournal(dir);
      await fs.mkdir(path.join(dir, TXN, 'files'), { recursive: true });
    } catch (err) {
      await lock.release();
      throw err;
    }
    return new SnapshotTransaction(dir, lock, created, waiting.signal);
  }

  /** Runs a write to the staging; its failure names the snapshot and says the previous one is intact. */
  async #staging<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      throw (err as NodeJS.ErrnoException).code ? new SnapshotWriteError(this.#dir, err) : err;
    }
  }

  get dir(): string {
    return this.#dir;
  }

  /** Where `safe` is staged, its directory made (once per directory). */
  async #stagedFile(safe: string): Promise<string> {
    const file = path.join(this.#dir, TXN, 'files', safe);
    const parent = path.dirname(file);
    if (!this.#made.has(parent)) {
      await this.#staging(() => fs.mkdir(parent, { recursive: true }));
      this.#made.add(parent);
    }
    return file;
  }

  /** Stages a file (relative path inside the snapshot). */
  async put(rel: string, text: string): Promise<void> {
    const safe = safeRelative(rel);
    const file = await this.#stagedFile(safe);
    // Synchronous: a record is a few kilobytes landing in the page cache; the thread pool's open,
    // write and close cost about 0.1 ms more processor time per file than writing it here.
    await this.#staging(async () => writeFileSync(file, text));
    this.#deletes.delete(safe);
    this.#puts.add(safe);
  }

  /**
   * Stages a large file from pieces (strings or bytes), never holding it
   * whole, and returns its sha256. With `unless` (the digest of the file as it
   * stands) an identical file is not staged.
   */
  async putPieces(
    rel: string,
    pieces: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
    unless?: string,
  ): Promise<string> {
    const safe = safeRelative(rel);
    const file = await this.#stagedFile(safe);
    const hash = createHash('sha256');
    const handle = await this.#staging(() => fs.open(file, 'w'));
    try {
      // Pieces are gathered into chunks of about a megabyte, each hashed and written as one buffer.
      let batch: Uint8Array[] = [];
      let size = 0;
      const flush = async () => {
        const chunk = batch.length === 1 ? batch[0]! : Buffer.concat(batch, size);
        batch = [];
        size = 0;
        hash.update(chunk);
        for (let at = 0; at < chunk.length; ) at += (await this.#staging(() => handle.write(chunk, at))).bytesWritten;
      };
      for await (const piece of pieces) {
        const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
        batch.push(bytes);
        size += bytes.length;
        if (size >= 1 << 20) await flush();
      }
      if (size) await flush();
    } finally {
      await this.#staging(() => handle.close());
    }
    const digest = hash.digest('hex');
    if (unless !== undefined && digest === unless) {
      await fs.rm(file, { force: true });
      return digest;
    }
    this.#deletes.delete(safe);
    this.#puts.add(safe);
    return digest;
  }

  /** Drops a file put() staged: the snapshot keeps the file it holds. */
  async unstage(rel: string): Promise<void> {
    const safe = safeRelative(rel);
    if (!this.#puts.delete(safe)) return;
    await fs.rm(path.join(this.#dir, TXN, 'files', safe), { force: true });
  }

  /** Marks a file for deletion at commit. */
  delete(rel: string): void {
    const safe = safeRelative(rel);
    this.#puts.delete(safe);
    this.#deletes.add(safe);
  }

  get changes(): { puts: string[]; deletes: string[] } {
    return { puts: [...this.#puts].sort(), deletes: [...this.#deletes].sort() };
  }

  /**
   * Makes every staged change visible, atomically (see the top of this file). Waits up to
   * `waitForReadersMs` for the compiles reading the directory; a SnapshotBusyError past that,
   * with nothing committed.
   */
  async commit({ waitForReadersMs = WAIT_FOR_READERS_MS }: { waitForReadersMs?: number } = {}): Promise<void> {
    if (this.#done) throw new Error('transaction already finished');
    const txn = path.join(this.#dir, TXN);
    const plan: Plan = this.changes;
    await this.#checkStaged(plan);
    await this.#checkTargets(plan);
    const planFile = path.join(txn, PLAN);
    await this.#staging(async () => {
      const handle = await fs.open(planFile, 'w');
      try {
        await handle.writeFile(JSON.stringify(plan));
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    await this.#waitForReaders(waitForReadersMs);
    await this.#staging(() => fs.rename(planFile, path.join(txn, COMMIT)));
    // Committed: whatever happens now, the journal stays until the new snapshot is in place.
    this.#done = true;
    try {
      await apply(this.#dir, plan, false);
      await discardJournal(this.#dir);
    } catch (err) {
      throw (err as NodeJS.ErrnoException).code ? new SnapshotWriteError(this.#dir, err, true) : err;
    } finally {
      await this.#lock.release();
    }
  }

  /** Fails loudly, before the commit point, when a file this transaction staged is not in the staging. */
  async #checkStaged(plan: Plan): Promise<void> {
    const root = path.join(this.#dir, TXN, 'files');
    // One listing per directory the plan puts into (a recursive walk of thousands of files costs more).
    const parents = [...new Set(plan.puts.map((rel) => path.posix.dirname(rel)))];
    const listings = new Map(
      await Promise.all(
        parents.map(async (parent) => {
          const names = await fs.readdir(path.join(root, parent)).catch(() => [] as string[]);
          return [parent, new Set(names)] as const;
        }),
      ),
    );
    const missing = plan.puts.filter((rel) => !listings.get(path.posix.dirname(rel))!.has(path.posix.basename(rel)));
    if (missing.length) {
      throw new Error(
        `${missing.length} staged file(s) of the snapshot in ${this.#dir} vanished before the commit (${missing.slice(0, 3).join(', ')}): something else wrote ${path.join(this.#dir, TXN)}; nothing was committed: the previous snapshot is intact`,
      );
    }
  }

  /**
   * Fails before the commit point when a file or folder of the snapshot stands where the plan puts the
   * other, or a folder the plan puts into is on another file system: past it, renaming would fail.
   */
  async #checkTargets(plan: Plan): Promise<void> {
    const elsewhere = await otherDevice(this.#dir, plan.puts);
    if (elsewhere !== undefined)
      throw new Error(
        `cannot commit the snapshot in ${this.#dir}: ${path.join(this.#dir, elsewhere)} is on another file system (a link to another disk?), where its files cannot be renamed into place at once; nothing was committed: the previous snapshot is intact; make it a directory of the snapshot's own`,
      );
    const clash = await collision(this.#dir, plan.puts);
    if (clash === undefined) return;
    const at = path.join(this.#dir, clash);
    const folder = (await fs.stat(at)).isDirectory();
    throw new Error(
      `cannot commit the snapshot in ${this.#dir}: ${at} is ${folder ? 'a directory where the snapshot has a file' : 'a file where the snapshot has a directory'}; nothing was committed: the previous snapshot is intact; remove ${at} and sync again`,
    );
  }

  /** Waits until no live process has a reader's mark on the directory (see openForReading). */
  async #waitForReaders(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const readers = liveReaders(this.#dir);
      if (!readers.length) return;
      // Before the commit point: ended here, nothing is committed.
      this.#signal?.throwIfAborted();
      if (Date.now() > deadline) {
        throw new SnapshotBusyError(
          `cannot commit the snapshot in ${this.#dir}: ${readers.join(', ')} still reading it after ${Math.round(waitMs / 1000)} s; nothing was committed: the previous snapshot is intact; sync again when the compile is done`,
        );
      }
      await sleep(20);
    }
  }

  /** Discards every staged change and gives the lock up. */
  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    try {
      await discardJournal(this.#dir);
    } finally {
      await this.#lock.release();
    }
    if (this.#created) await removeEmptyUpTo(path.resolve(this.#dir), path.resolve(this.#created));
  }
}

/**
 * Removes `dir` and its parents up to `top` while they are empty: a first sync that failed leaves
 * no empty directory behind. One that is not empty (another writer's lock, files of anyone) stays.
 */
async function removeEmptyUpTo(dir: string, top: string): Promise<void> {
  for (let at = dir; at.startsWith(top); at = path.dirname(at)) {
    try {
      await fs.rmdir(at);
    } catch {
      return;
    }
    if (at === top) return;
  }
}
