/**
 * Who may write a snapshot directory, and who is reading it.
 *
 * The writer's lock is the file `.txn.lock`, naming its owner (host, pid and a
 * nonce of its own). It is created whole: written under a name of its own,
 * then hard-linked to `.txn.lock`, which fails if that name exists. So no
 * instant exists at which the lock is there without its owner's pid, and the
 * rule for a stale lock is exact: a lock is stale when it names a process of
 * this host that is not running, or this process's own pid in a file last
 * touched before this process started (an earlier process of that pid: a
 * container restarted after a kill). A lock of another host (whose pid means
 * nothing here) is stale only once untouched for STALE_MS, its live holder
 * touching it every HEARTBEAT_MS; a lock that is not one this code wrote is
 * never removed (the message says so and what to do).
 *
 * Breaking a stale lock: several processes may find the same stale lock at
 * once, and one that removed it by name after another had removed it and
 * taken the lock anew would remove the new lock. So a stale lock is removed
 * only by the one process that creates the token `<lock>.<its nonce>.break`
 * (created whole, like a lock), after checking that the lock still holds that
 * nonce; then nobody else can remove that lock, so it is the one removed. A
 * breaker that dies leaves its token behind, stale in turn and broken the
 * same way.
 *
 * Readers (a compile) leave a mark `.reader~<host>~<pid>-<nonce>` for as long
 * as they read; a writer that is about to commit waits for the marks of live
 * processes to go (see SnapshotTransaction.commit).
 *
 * Every transient name ends in `~<host>~<pid>-<nonce>`, so what a killed
 * process left behind is recognized as its and removed (`sweep`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE = '.txn.lock';
const READER = '.reader';
/** The host part of transient names: what a file name may hold of it. */
const HOST = os.hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
const TRANSIENT = /~([A-Za-z0-9._-]+)~(\d+)-([0-9a-f]{12})$/;

export class SnapshotLockedError extends Error {
  override name = 'SnapshotLockedError';
}

/** Waited too long for another process (a commit under way, or a compile reading). */
export class SnapshotBusyError extends Error {
  override name = 'SnapshotBusyError';
}

export interface Owner {
  host: string;
  pid: number;
  nonce: string;
}

export const newOwner = (): Owner => ({ host: HOST, pid: process.pid, nonce: randomBytes(6).toString('hex') });

/** A name of this owner's own: `<base>~<host>~<pid>-<nonce>`. */
export const transientName = (base: string, owner: Owner): string =>
  `${base}~${owner.host}~${owner.pid}-${owner.nonce}`;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a process of this host with this pid is running (this process included). */
export function processRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When this process started, by the clock that stamps files (process-wide: the same in every thread). */
const STARTED_MS = Date.now() - process.uptime() * 1000;
/** The nonces of the locks and marks this thread holds: its own, whatever the clock did since. */
const held = new Set<string>();

/**
 * Whether `file`, naming this process's pid, is the lock or mark of an earlier process that had
 * this pid: a container restarted after a kill runs its command under the same pid (often 1) and
 * hostname, and would otherwise wait for itself. A live holder made and touches its file after
 * this process started (a second of slack for the clock's rounding).
 */
function earlierIncarnation(file: string, nonce: string): boolean {
  if (held.has(nonce)) return false;
  try {
    return statSync(file).mtimeMs < STARTED_MS - 1000;
  } catch {
    return false;
  }
}

/** Whether the owner may still be running: always for another host's, which cannot be told from here. */
export const mayBeAlive = (owner: Pick<Owner, 'host' | 'pid'>): boolean =>
  owner.host !== HOST || processRunning(owner.pid);

/**
 * A lock or mark of another host untouched for this long is a dead process's (a container killed,
 * whose hostname never comes back): live holders touch theirs every HEARTBEAT_MS.
 */
export const STALE_MS = 10 * 60_000;
const HEARTBEAT_MS = 60_000;

/** Touches `file` every HEARTBEAT_MS while its holder lives; the returned function stops it. */
function heartbeat(file: string): () => void {
  const timer = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Whether the owner named by `file` may still be running: for another host's, only while it touches the file. */
function aliveAt(owner: Owner, file: string): boolean {
  if (!mayBeAlive(owner)) return false;
  if (owner.host === HOST && owner.pid === process.pid) return !earlierIncarnation(file, owner.nonce);
  if (owner.host === HOST) return true;
  try {
    return Date.now() - statSync(file).mtimeMs <= STALE_MS;
  } catch {
    return false;
  }
}

/** Who `<dir>/<name>` names; undefined if it is not there. */
export async function readOwner(dir: string, name: string): Promise<Owner | undefined> {
  const file = path.join(dir, name);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const owner = JSON.parse(text) as Owner;
    if (typeof owner.host === 'string' && Number.isInteger(owner.pid) && typeof owner.nonce === 'string') return owner;
  } catch {
    // Described below.
  }
  throw new SnapshotLockedError(`${file} is not a lock content-sync wrote; if no sync of ${dir} is running, remove it`);
}

/** Creates `<dir>/<name>` naming `owner`, whole (see the top of this file); false when the name exists. */
async function createWhole(dir: string, name: string, owner: Owner): Promise<boolean> {
  const draft = path.join(dir, transientName(`${name}.draft`, owner));
  try {
    await fs.writeFile(draft, JSON.stringify(owner), { flag: 'wx' });
    await fs.link(draft, path.join(dir, name));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await fs.rm(draft, { force: true });
  }
}

/**
 * Removes the lock (or token) `name` if its owner is dead, as described at the top of this
 * file. True when `name` is free now (for the caller to try again); false when a live process
 * holds it, or is breaking it.
 */
async function breakIfStale(dir: string, name: string): Promise<boolean> {
  const stale = await readOwner(dir, name);
  if (!stale) return true;
  if (aliveAt(stale, path.join(dir, name))) return false;
  const token = `${name}.${stale.nonce}.break`;
  const me = newOwner();
  while (!(await createWhole(dir, token, me))) {
    if (!(await breakIfStale(dir, token))) return false;
  }
  try {
    if ((await readOwner(dir, name).catch(() => undefined))?.nonce === stale.nonce)
      await fs.rm(path.join(dir, name), { force: true });
  } finally {
    await fs.rm(path.join(dir, token), { force: true });
  }
  return true;
}

/** The writer's lock on a directory, held by this process. */
export class WriterLock {
  readonly #stop: () => void;

  private constructor(
    readonly dir: string,
    readonly owner: Owner,
  ) {
    this.#stop = heartbeat(path.join(dir, LOCK_FILE));
    held.add(owner.nonce);
  }

  /** Takes the lock on `dir` (which exists), breaking a stale one; a SnapshotLockedError when a live process holds it. */
  static async take(dir: string): Promise<WriterLock> {
    const taken = await WriterLock.#attempt(dir);
    if (taken instanceof WriterLock) return taken;
    throw new SnapshotLockedError(`${dir} is being written by ${describe(taken)}; wait for it to finish`);
  }

  /**
   * Takes the lock on `dir` (which exists), waiting up to `waitMs` for a live holder to give it up;
   * a SnapshotBusyError after that, naming the holder and `what` it does.
   */
  static async takeWaiting(
    dir: string,
    waitMs: number,
    what: string,
    /** `signal` ends the wait (with its reason); `onWait` is told once who holds the lock, when it is not free. */
    options: { signal?: AbortSignal; onWait?: (holder: string) => void } = {},
  ): Promise<WriterLock> {
    const deadline = Date.now() + waitMs;
    for (let told = false; ; told = true) {
      options.signal?.throwIfAborted();
      const taken = await WriterLock.#attempt(dir);
      if (taken instanceof WriterLock) return taken;
      if (!told) options.onWait?.(describe(taken));
      if (Date.now() >= deadline)
        throw new SnapshotBusyError(
          `${dir}: ${describe(taken)} has been ${what} for over ${Math.round(waitMs / 1000)} s; try again when it is done`,
        );
      await sleep(50);
    }
  }

  /** The lock, or the live process that holds it. */
  static async #attempt(dir: string): Promise<WriterLock | Owner> {
    const owner = newOwner();
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await createWhole(dir, LOCK_FILE, owner)) return new WriterLock(dir, owner);
      if (await breakIfStale(dir, LOCK_FILE)) continue;
      const holder = await readOwner(dir, LOCK_FILE);
      // Released meanwhile: try again.
      if (holder) return holder;
    }
    throw new SnapshotLockedError(
      `${dir}: could not take its lock (${LOCK_FILE}) in 100 attempts; other processes keep taking it`,
    );
  }

  /** Gives the lock up (nobody else removes a live owner's lock, so it is still this one). */
  async release(): Promise<void> {
    this.#stop();
    const current = await readOwner(this.dir, LOCK_FILE).catch(() => undefined);
    if (current?.nonce === this.owner.nonce) await fs.rm(path.join(this.dir, LOCK_FILE), { force: true });
    held.delete(this.owner.nonce);
  }
}

/** A lock's owner in a message: `process 12` on this host, `process 12 on <host>` on another. */
const describe = (owner: Pick<Owner, 'host' | 'pid'>): string =>
  owner.host === HOST ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;

/** Who holds the writer's lock on `dir` and may be running; undefined when nobody does. */
export async function lockHolder(dir: string): Promise<Owner | undefined> {
  const owner = await readOwner(dir, LOCK_FILE).catch(() => undefined);
  return owner && aliveAt(owner, path.join(dir, LOCK_FILE)) ? owner : undefined;
}

/** A reader's mark on a directory, for as long as it reads. */
export class ReaderMark {
  readonly #stop: () => void;

  private constructor(
    readonly file: string,
    readonly nonce: string,
  ) {
    this.#stop = heartbeat(file);
    held.add(nonce);
  }

  static async leave(dir: string): Promise<ReaderMark> {
    const owner = newOwner();
    const file = path.join(dir, transientName(READER, owner));
    await fs.writeFile(file, '', { flag: 'wx' });
    return new ReaderMark(file, owner.nonce);
  }

  async remove(): Promise<void> {
    this.#stop();
    await fs.rm(this.file, { force: true });
    held.delete(this.nonce);
  }
}

/** The processes (host and pid) that have a reader's mark on `dir` and may be running; the marks of dead ones are removed. */
export function liveReaders(dir: string): string[] {
  const live: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${READER}~`)) continue;
    const m = TRANSIENT.exec(name);
    if (m && !aliveAt({ host: m[1]!, pid: Number(m[2]), nonce: m[3]! }, path.join(dir, name))) {
      void fs.rm(path.join(dir, name), { force: true });
      continue;
    }
    live.push(m ? describe({ host: m[1]!, pid: Number(m[2]) }) : name);
  }
  return live;
}

/**
 * Removes what dead processes of this host left in `dir` under transient names: drafts of
 * locks, reader marks, journals set aside to be deleted. Run by the holder of the writer's lock.
 */
export async function sweep(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const m = name.startsWith('.') ? TRANSIENT.exec(name) : null;
    if (m && m[1] === HOST && !aliveAt({ host: m[1], pid: Number(m[2]), nonce: m[3]! }, path.join(dir, name)))
      await fs.rm(path.join(dir, name), { recursive: true, force: true });
  }
}
