/**
 * Atomic changes to a snapshot directory, whatever their size.
 *
 * A transaction stages every new file under `<dir>/.txn/files/`, then writes
 * the list of puts and deletes to `.txn/plan.json` and renames it to
 * `.txn/COMMIT`: that rename is the commit point. Applying renames each staged
 * file over its target and unlinks the deletes, the manifest last. A process
 * killed at any instant leaves either no COMMIT (the staging is discarded on
 * the next open: the old snapshot stands) or a COMMIT (the next open finishes
 * applying it: the new snapshot stands). Every open runs that recovery first,
 * so a reader never sees a mix.
 *
 * `.txn/LOCK` holds the writer's pid: one writer at a time, and recovery
 * leaves a live writer's transaction alone.
 */
import { existsSync, promises as fs, constants as fsc } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { FILES } from './format.js';

const TXN = '.txn';

interface Plan {
  puts: string[];
  deletes: string[];
}

export class SnapshotLockedError extends Error {
  override name = 'SnapshotLockedError';
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function lockHolder(dir: string): Promise<number | undefined> {
  try {
    const pid = Number((await fs.readFile(path.join(dir, TXN, 'LOCK'), 'utf8')).trim());
    return isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Rejects relative paths that would leave the snapshot. */
function safeRelative(rel: string): string {
  const normal = path.posix.normalize(rel);
  if (normal.startsWith('..') || path.posix.isAbsolute(normal) || normal.split('/').includes(TXN)) {
    throw new Error(`refusing to write outside the snapshot: ${rel}`);
  }
  return normal;
}

async function apply(dir: string, plan: Plan): Promise<void> {
  const staged = path.join(dir, TXN, 'files');
  const made = new Set<string>();
  const puts = [...plan.puts.filter((p) => p !== FILES.manifest), ...plan.puts.filter((p) => p === FILES.manifest)];
  for (const rel of puts) {
    const target = path.join(dir, rel);
    const parent = path.dirname(target);
    if (!made.has(parent)) {
      await fs.mkdir(parent, { recursive: true });
      made.add(parent);
    }
    try {
      await fs.rename(path.join(staged, rel), target);
    } catch (err) {
      // Already moved by an earlier, interrupted application.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  for (const rel of plan.deletes) {
    await fs.rm(path.join(dir, rel), { force: true });
  }
}

/**
 * Finishes or discards a transaction a dead writer left behind, and says what
 * it did. A live writer that is still staging is left alone ('staging': the
 * snapshot is readable as it is); one that is applying its commit is waited
 * for, up to `waitMs` ('busy' past that).
 */
export async function recoverSnapshot(
  dir: string,
  waitMs = 30_000,
): Promise<'clean' | 'rolled-forward' | 'rolled-back' | 'staging' | 'busy'> {
  const txn = path.join(dir, TXN);
  const deadline = Date.now() + waitMs;
  for (;;) {
    // Synchronous: one stat, which on the thread pool would cost a round trip (every sync and compile asks first).
    if (!existsSync(txn)) return 'clean';
    const holder = await lockHolder(dir);
    if (holder === undefined || holder === process.pid) break;
    // A live writer still staging: the snapshot itself is untouched and readable.
    if (!existsSync(path.join(txn, 'COMMIT'))) return 'staging';
    if (Date.now() > deadline) return 'busy';
    await new Promise((r) => setTimeout(r, 50));
  }
  const commit = path.join(txn, 'COMMIT');
  if (existsSync(commit)) {
    const plan = JSON.parse(await fs.readFile(commit, 'utf8')) as Plan;
    await apply(dir, plan);
    await fs.rm(txn, { recursive: true, force: true });
    return 'rolled-forward';
  }
  await fs.rm(txn, { recursive: true, force: true });
  return 'rolled-back';
}

export class SnapshotTransaction {
  readonly #dir: string;
  readonly #puts = new Set<string>();
  readonly #deletes = new Set<string>();
  readonly #made = new Set<string>();
  #done = false;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /** Opens a transaction on `dir` (created if missing), after recovering any left behind. */
  static async begin(dir: string): Promise<SnapshotTransaction> {
    await fs.mkdir(dir, { recursive: true });
    const state = await recoverSnapshot(dir);
    if (state === 'busy' || state === 'staging') {
      throw new SnapshotLockedError(`${dir} is being written by process ${await lockHolder(dir)}; wait for it to finish`);
    }
    const txn = path.join(dir, TXN);
    await fs.mkdir(path.join(txn, 'files'), { recursive: true });
    try {
      const handle = await fs.open(path.join(txn, 'LOCK'), fsc.O_CREAT | fsc.O_EXCL | fsc.O_WRONLY);
      await handle.writeFile(String(process.pid));
      await handle.close();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new SnapshotLockedError(`${dir} is being written by another process; wait for it to finish`);
      }
      throw err;
    }
    return new SnapshotTransaction(dir);
  }

  get dir(): string {
    return this.#dir;
  }

  /** Stages a file (relative path inside the snapshot). */
  async put(rel: string, text: string): Promise<void> {
    const safe = safeRelative(rel);
    const file = path.join(this.#dir, TXN, 'files', safe);
    const parent = path.dirname(file);
    if (!this.#made.has(parent)) {
      await fs.mkdir(parent, { recursive: true });
      this.#made.add(parent);
    }
    await fs.writeFile(file, text);
    this.#deletes.delete(safe);
    this.#puts.add(safe);
  }

  /**
   * Stages a large file from pieces (strings or bytes), never holding it
   * whole, and returns its sha256. With `unless` (the digest of the file as it
   * stands) an identical file is not staged.
   */
  async putPieces(rel: string, pieces: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>, unless?: string): Promise<string> {
    const safe = safeRelative(rel);
    const file = path.join(this.#dir, TXN, 'files', safe);
    const parent = path.dirname(file);
    if (!this.#made.has(parent)) {
      await fs.mkdir(parent, { recursive: true });
      this.#made.add(parent);
    }
    const hash = createHash('sha256');
    const handle = await fs.open(file, 'w');
    try {
      // Pieces are gathered into chunks of about a megabyte, each hashed and written as one buffer.
      let batch: Uint8Array[] = [];
      let size = 0;
      const flush = async () => {
        const chunk = batch.length === 1 ? batch[0]! : Buffer.concat(batch, size);
        batch = [];
        size = 0;
        hash.update(chunk);
        for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at)).bytesWritten;
      };
      for await (const piece of pieces) {
        const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
        batch.push(bytes);
        size += bytes.length;
        if (size >= 1 << 20) await flush();
      }
      if (size) await flush();
    } finally {
      await handle.close();
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

  /** Makes every staged change visible, atomically. */
  async commit(): Promise<void> {
    if (this.#done) throw new Error('transaction already finished');
    const txn = path.join(this.#dir, TXN);
    const plan: Plan = this.changes;
    const planFile = path.join(txn, 'plan.json');
    const handle = await fs.open(planFile, 'w');
    await handle.writeFile(JSON.stringify(plan));
    await handle.sync();
    await handle.close();
    await fs.rename(planFile, path.join(txn, 'COMMIT'));
    await apply(this.#dir, plan);
    await fs.rm(txn, { recursive: true, force: true });
    this.#done = true;
  }

  /** Discards every staged change. */
  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await fs.rm(path.join(this.#dir, TXN), { recursive: true, force: true });
  }
}
