/**
 * What a process killed in another container leaves in a snapshot directory kept between runs (a
 * CI cache, a mounted volume): every container has a hostname of its own, so its lock and its
 * reader's mark name a host that is never this one. The next run must still recover without
 * --full: a mark or lock of another host nobody has touched for ten minutes is not a live process's
 * (a live one touches its own every minute).
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotTransaction, openForReading } from '../../src/snapshot/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function snapshotDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-other-host-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'a.json'), 'old a\n');
  writeFileSync(path.join(dir, 'manifest.json'), 'old manifest\n');
  return dir;
}

const anHourAgo = () => new Date(Date.now() - 3600_000);
const read = (dir: string, rel: string) => readFileSync(path.join(dir, rel), 'utf8');

describe('a process killed in another container', () => {
  it("a compile's reader's mark, an hour old, does not keep every later sync from committing", async () => {
    const dir = snapshotDir();
    // `content-sync compile` (or a vite build's) SIGKILLed in container ci-a.
    const mark = path.join(dir, '.reader~ci-a~4242-0123456789ab');
    writeFileSync(mark, '');
    utimesSync(mark, anHourAgo(), anHourAgo());
    // The next run, in container ci-b.
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    await txn.put('manifest.json', 'new manifest\n');
    await expect(txn.commit({ waitForReadersMs: 2_000 })).resolves.toBeUndefined();
    expect(read(dir, 'a.json')).toBe('new a\n');
  });

  it('a commit it left half applied, an hour old, is finished by the next reader instead of blocking it', async () => {
    const dir = snapshotDir();
    // `content-sync sync` SIGKILLed in container ci-a after its commit point, before its manifest was moved.
    mkdirSync(path.join(dir, '.txn/files'), { recursive: true });
    writeFileSync(path.join(dir, '.txn/files/manifest.json'), 'new manifest\n');
    writeFileSync(path.join(dir, 'a.json'), 'new a\n');
    writeFileSync(path.join(dir, '.txn/COMMIT'), JSON.stringify({ puts: ['a.json', 'manifest.json'], deletes: [] }));
    const lock = path.join(dir, '.txn.lock');
    writeFileSync(lock, JSON.stringify({ host: 'ci-a', pid: 4242, nonce: '0123456789ab' }));
    utimesSync(lock, anHourAgo(), anHourAgo());
    // The next run's compile, in container ci-b: the new snapshot, whole.
    const reading = await openForReading(dir, 2_000);
    await reading.close();
    expect(read(dir, 'manifest.json')).toBe('new manifest\n');
    expect(read(dir, 'a.json')).toBe('new a\n');
  });

  it("another host's reader's mark touched a minute ago still holds a commit back (it may be reading)", async () => {
    const dir = snapshotDir();
    const mark = path.join(dir, '.reader~ci-a~4242-0123456789ab');
    writeFileSync(mark, '');
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(mark, aMinuteAgo, aMinuteAgo);
    const txn = await SnapshotTransaction.begin(dir);
    await txn.put('a.json', 'new a\n');
    await expect(txn.commit({ waitForReadersMs: 500 })).rejects.toThrow(/ci-a/);
    expect(read(dir, 'a.json')).toBe('old a\n');
  });
});
