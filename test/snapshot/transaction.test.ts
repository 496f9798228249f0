/**
 * The writer's lock, the journal and the readers' marks of a snapshot
 * directory: one writer at a time, a stale lock taken over by exactly one
 * process, a staged file that vanished refused before the commit point, a
 * commit that waits for the compiles reading, and write errors that name the
 * snapshot and say the previous one is intact.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  mkdirSync,
  utimesSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SnapshotBusyError,
  SnapshotLockedError,
  SnapshotTransaction,
  SnapshotWriteError,
  openForReading,
  recoverSnapshot,
} from '../../src/snapshot/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A snapshot directory holding `a.json` and `manifest.json`. */
function snapshotDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-txn-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'a.json'), 'old a\n');
  writeFileSync(path.join(dir, 'manifest.json'), 'old manifest\n');
  return dir;
}

const read = (dir: string, rel: string) => readFileSync(path.join(dir, rel), 'utf8');
/** What is in the directory besides the snapshot's files: nothing once every writer and reader is done. */
const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.'));

/** The pid of a process that has ended (one for the whole file: starting a process takes a while). */
let ended: number | undefined;
function deadPid(): number {
  ended ??= Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
  );
  return ended;
}

/** A lock as a killed writer of this host leaves it. */
function staleLock(dir: string): void {
  writeFileSync(
    path.join(dir, '.txn.lock'),
    JSON.stringify({
      host: os.hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host',
      pid: deadPid(),
      nonce: '0123456789ab',
    }),
  );
}

describe('one writer at a time', () => {
  it('a second transaction on the directory is refused while the first is open, in this process too, and the first commits whole', async () => {
    const dir = snapshotDir();
    const first = await SnapshotTransaction.begin(dir);
    await first.put('a.json', 'new a\n');
    await first.put('manifest.json', 'new manifest\n');
    await expect(SnapshotTransaction.begin(dir)).rejects.toThrow(SnapshotLockedError);
    await expect(SnapshotTransaction.begin(dir)).rejects.toThrow(`being written by process ${process.pid}`);
    // Readers find the journal of a live writer and leave it alone.
    expect(await recoverSnapshot(dir)).toBe('staging');
    await first.commit();
    expect(read(dir, 'a.json')).toBe('new a\n');
    expect(read(dir, 'manifest.json')).toBe('new manifest\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it('many writers started together: exactly one holds the directory, and the lock is free after it', async () => {
    for (let round = 0; round < 10; round++) {
      const dir = snapshotDir();
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => SnapshotTransaction.begin(dir)));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SnapshotLockedError);
      await won[0]!.value.abort();
      expect(leftovers(dir)).toEqual([]);
      await (await SnapshotTransaction.begin(dir)).abort();
    }
  });

  it('a stale lock (its process is gone) is taken over by exactly one of many writers, which finishes the commit it left', async () => {
    for (let round = 0; round < 10; round++) {
      const dir = snapshotDir();
      // A writer killed after its commit point: its journal holds the plan as COMMIT.
      mkdirSync(path.join(dir, '.txn', 'files'), { recursive: true });
      writeFileSync(path.join(dir, '.txn', 'files', 'a.json'), 'committed a\n');
      writeFileSync(path.join(dir, '.txn', 'COMMIT'), JSON.stringify({ puts: ['a.json'], deletes: [] }));
      staleLock(dir);
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => SnapshotTransaction.begin(dir)));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect(read(dir, 'a.json')).toBe('committed a\n');
      await won[0]!.value.abort();
      expect(leftovers(dir)).toEqual([]);
    }
  });

  it("the lock and reader's mark of an earlier process of this pid (a container restarted) are taken over; a fresh one is not", async () => {
    const dir = snapshotDir();
    const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
    const lock = path.join(dir, '.txn.lock');
    const mark = path.join(dir, `.reader~${host}~${process.pid}-0123456789ab`);
    writeFileSync(lock, JSON.stringify({ host, pid: process.pid, nonce: '0123456789ab' }));
    // Made by a live holder since this process started (another thread of it, say): waited for.
    await expect(SnapshotTransaction.begin(dir)).rejects.toThrow(`is being written by process ${process.pid}`);
    // Last touched before this process started: the process that had this pid then is gone.
    const before = new Date(Date.now() - process.uptime() * 1000 - 60_000);
    utimesSync(lock, before, before);
    writeFileSync(mark, '');
    utimesSync(mark, before, before);
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    await txn.commit({ waitForReadersMs: 0 });
    expect(read(dir, 'a.json')).toBe('new a\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it("an earlier version's journal naming this pid in .txn/LOCK (a container restarted after a kill) is finished, by a writer and by a reader", async () => {
    // As versions before the lock file left it: the plan committed, the writer's pid in the journal.
    const legacyJournal = (dir: string) => {
      mkdirSync(path.join(dir, '.txn', 'files'), { recursive: true });
      writeFileSync(path.join(dir, '.txn', 'files', 'a.json'), 'committed a\n');
      writeFileSync(path.join(dir, '.txn', 'COMMIT'), JSON.stringify({ puts: ['a.json'], deletes: [] }));
      writeFileSync(path.join(dir, '.txn', 'LOCK'), String(process.pid));
    };
    const written = snapshotDir();
    legacyJournal(written);
    await (await SnapshotTransaction.begin(written)).abort();
    expect(read(written, 'a.json')).toBe('committed a\n');
    expect(leftovers(written)).toEqual([]);
    const compiled = snapshotDir();
    legacyJournal(compiled);
    await (await openForReading(compiled, 0)).close();
    expect(read(compiled, 'a.json')).toBe('committed a\n');
    expect(leftovers(compiled)).toEqual([]);
  });

  it('a lock that is not one content-sync wrote is left alone, with what to do', async () => {
    const dir = snapshotDir();
    writeFileSync(path.join(dir, '.txn.lock'), '');
    await expect(SnapshotTransaction.begin(dir)).rejects.toThrow(
      /not a lock content-sync wrote; if no sync of .* is running, remove it/,
    );
    expect(existsSync(path.join(dir, '.txn.lock'))).toBe(true);
  });
});

describe('the commit', () => {
  it('moves a directory the snapshot lacks in whole, puts files one by one into one it has, and leaves nothing staged', async () => {
    const dir = snapshotDir();
    mkdirSync(path.join(dir, 'old'));
    writeFileSync(path.join(dir, 'old', 'kept.json'), 'kept\n');
    const txn = await SnapshotTransaction.begin(dir);
    for (let i = 0; i < 50; i++) await txn.put(`fresh/${i}.json`, `fresh ${i}\n`);
    await txn.put('old/new.json', 'new\n');
    await txn.put('deep/er/x.json', 'x\n');
    await txn.put('deep/er/y.json', 'y\n');
    await txn.put('deep/z.json', 'z\n');
    await txn.put('manifest.json', 'new manifest\n');
    const staged = statSync(path.join(dir, '.txn', 'files', 'fresh')).ino;
    await txn.commit();
    // The very directory that was staged: one rename, not fifty.
    expect(statSync(path.join(dir, 'fresh')).ino).toBe(staged);
    expect(readdirSync(path.join(dir, 'fresh')).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `${i}.json`).sort(),
    );
    expect(read(dir, 'fresh/49.json')).toBe('fresh 49\n');
    expect(readdirSync(path.join(dir, 'old')).sort()).toEqual(['kept.json', 'new.json']);
    expect([read(dir, 'deep/er/x.json'), read(dir, 'deep/er/y.json'), read(dir, 'deep/z.json')]).toEqual([
      'x\n',
      'y\n',
      'z\n',
    ]);
    expect(read(dir, 'manifest.json')).toBe('new manifest\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it('a commit killed after moving a new directory in whole is finished by the next writer', async () => {
    const dir = snapshotDir();
    // Killed after its commit point, once `fresh/` was moved in whole and before a.json was.
    mkdirSync(path.join(dir, '.txn', 'files'), { recursive: true });
    mkdirSync(path.join(dir, 'fresh'));
    for (const n of ['1.json', '2.json']) writeFileSync(path.join(dir, 'fresh', n), `fresh ${n}\n`);
    writeFileSync(path.join(dir, '.txn', 'files', 'a.json'), 'committed a\n');
    writeFileSync(
      path.join(dir, '.txn', 'COMMIT'),
      JSON.stringify({ puts: ['fresh/1.json', 'fresh/2.json', 'a.json'], deletes: [] }),
    );
    staleLock(dir);
    const txn = await SnapshotTransaction.begin(dir);
    await txn.abort();
    expect(read(dir, 'a.json')).toBe('committed a\n');
    expect(readdirSync(path.join(dir, 'fresh')).sort()).toEqual(['1.json', '2.json']);
    expect(leftovers(dir)).toEqual([]);
  });

  it('fails loudly, before the commit point, when a staged file vanished, and the previous snapshot stands', async () => {
    const dir = snapshotDir();
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    await txn.put('manifest.json', 'new manifest\n');
    rmSync(path.join(dir, '.txn', 'files', 'a.json'));
    await expect(txn.commit()).rejects.toThrow(
      /staged file\(s\) of the snapshot in .* vanished before the commit \(a\.json\).*the previous snapshot is intact/,
    );
    await txn.abort();
    expect(read(dir, 'a.json')).toBe('old a\n');
    expect(read(dir, 'manifest.json')).toBe('old manifest\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it('refuses, before the commit point, a file where it puts a directory and a directory where it puts a file', async () => {
    const dir = snapshotDir();
    writeFileSync(path.join(dir, 'indexes'), 'not a folder\n');
    mkdirSync(path.join(dir, 'stories', '1.json'), { recursive: true });
    for (const [rel, message] of [
      ['indexes/stories.json', `${path.join(dir, 'indexes')} is a file where the snapshot has a directory`],
      ['stories/1.json', `${path.join(dir, 'stories', '1.json')} is a directory where the snapshot has a file`],
    ]) {
      const txn = await SnapshotTransaction.begin(dir);
      await txn.put('a.json', 'new a\n');
      await txn.put(rel!, '[]\n');
      await txn.put('manifest.json', 'new manifest\n');
      // Past the commit point, every later writer and reader would resume this commit and fail the same way.
      await expect(txn.commit()).rejects.toThrow(`${message}; nothing was committed: the previous snapshot is intact`);
      await txn.abort();
      expect(read(dir, 'a.json')).toBe('old a\n');
      expect(read(dir, 'manifest.json')).toBe('old manifest\n');
      expect(leftovers(dir)).toEqual([]);
    }
    rmSync(path.join(dir, 'indexes'));
    rmSync(path.join(dir, 'stories'), { recursive: true });
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('indexes/stories.json', '[]\n');
    await txn.put('stories/1.json', '{}\n');
    await txn.commit();
    expect(read(dir, 'indexes/stories.json')).toBe('[]\n');
    expect(read(dir, 'stories/1.json')).toBe('{}\n');
  });

  /** A directory on another file system than the temporary directory's, if the machine has one. */
  const otherDisk = ['/dev/shm'].find((d) => existsSync(d) && statSync(d).dev !== statSync(os.tmpdir()).dev);

  it.runIf(otherDisk)('refuses, before the commit point, a folder linked to another file system', async () => {
    const dir = snapshotDir();
    const elsewhere = mkdtempSync(path.join(otherDisk!, 'content-sync-txn-'));
    dirs.push(elsewhere);
    writeFileSync(path.join(elsewhere, '1.json'), 'old 1\n');
    symlinkSync(elsewhere, path.join(dir, 'stories'));
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    await txn.put('stories/1.json', 'new 1\n');
    // Past the commit point, the rename into it would fail (EXDEV) in every later writer and reader too.
    await expect(txn.commit()).rejects.toThrow(
      `${path.join(dir, 'stories')} is on another file system (a link to another disk?), where its files cannot be renamed into place at once; nothing was committed: the previous snapshot is intact`,
    );
    await txn.abort();
    expect(read(dir, 'a.json')).toBe('old a\n');
    expect(read(dir, 'stories/1.json')).toBe('old 1\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it('waits for a compile reading the directory, and commits once it is done', async () => {
    const dir = snapshotDir();
    const reading = await openForReading(dir);
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    let committed = false;
    const commit = txn.commit().then(() => (committed = true));
    await new Promise((r) => setTimeout(r, 200));
    // The reader still sees the snapshot it opened.
    expect(committed).toBe(false);
    expect(read(dir, 'a.json')).toBe('old a\n');
    await reading.close();
    await commit;
    expect(read(dir, 'a.json')).toBe('new a\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it('gives up waiting for a compile after its bound, saying so, with nothing committed and the lock free', async () => {
    const dir = snapshotDir();
    const reading = await openForReading(dir);
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    const err = await txn.commit({ waitForReadersMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotBusyError);
    expect((err as Error).message).toMatch(
      new RegExp(`process ${process.pid} still reading it after .*the previous snapshot is intact`),
    );
    await txn.abort();
    await reading.close();
    expect(read(dir, 'a.json')).toBe('old a\n');
    expect(leftovers(dir)).toEqual([]);
  });

  it("a compile opening the directory during a commit waits for it, and a killed writer's commit is finished first", async () => {
    const dir = snapshotDir();
    mkdirSync(path.join(dir, '.txn', 'files'), { recursive: true });
    writeFileSync(path.join(dir, '.txn', 'files', 'a.json'), 'committed a\n');
    writeFileSync(path.join(dir, '.txn', 'COMMIT'), JSON.stringify({ puts: ['a.json'], deletes: ['manifest.json'] }));
    staleLock(dir);
    const reading = await openForReading(dir, 1000);
    expect(read(dir, 'a.json')).toBe('committed a\n');
    expect(existsSync(path.join(dir, 'manifest.json'))).toBe(false);
    await reading.close();
    expect(leftovers(dir)).toEqual([]);
  });
});

describe.runIf(existsSync('/dev/full'))(
  'a write that fails (a full disk: /dev/full answers every write with ENOSPC)',
  () => {
    it('names the snapshot and says the previous one is intact, which it is', async () => {
      const dir = snapshotDir();
      const txn = await SnapshotTransaction.begin(dir);
      await txn.put('manifest.json', 'new manifest\n');
      symlinkSync('/dev/full', path.join(dir, '.txn', 'files', 'a.json'));
      const err = await txn.put('a.json', 'new a\n').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SnapshotWriteError);
      expect((err as SnapshotWriteError).code).toBe('ENOSPC');
      expect((err as Error).message).toBe(
        `cannot write the snapshot in ${dir} (ENOSPC: no space left on device, write); nothing was committed: the previous snapshot is intact`,
      );
      const pieces = await txn.putPieces('a.json', ['new ', 'a\n']).catch((e: unknown) => e);
      expect((pieces as Error).message).toContain(`cannot write the snapshot in ${dir} (ENOSPC`);
      await txn.abort();
      expect(read(dir, 'a.json')).toBe('old a\n');
      expect(read(dir, 'manifest.json')).toBe('old manifest\n');
      expect(leftovers(dir)).toEqual([]);
    });
  },
);
