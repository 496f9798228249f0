/**
 * A sync onto a full disk: a real file system (a small tmpfs, so this runs
 * only where it may be mounted: Linux as root) filled to several levels of
 * free space before a sync that has changes to write. At every level the sync
 * either fails with a message that names the snapshot and says the previous
 * one is intact (and it is, with nothing left behind), or succeeds whole.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { changeContent } from '../../../scripts/kill-trials.js';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { DEFAULT_PUBLIC_TOKEN, startServer } from '../../../src/server/index.js';
import { sync } from '../../../src/sync/index.js';
import { readTree, removeTempDirs, tempDir, treeDiff } from '../support.js';

const mountPoint = path.join(os.tmpdir(), `content-sync-full-disk-${process.pid}`);

/** Mounts a tmpfs of `size` at the mount point; false where that is not allowed. */
function mountTmpfs(size: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  mkdirSync(mountPoint, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint]).status === 0;
}
const mounted = mountTmpfs('2m');

afterAll(async () => {
  if (mounted) spawnSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
  await removeTempDirs();
});

/** Fills the disk until `free` bytes are left (a page or so more, as the file system counts). */
function fill(free: number): string {
  const filler = path.join(mountPoint, 'filler');
  const st = statfsSync(mountPoint);
  const available = Number(st.bavail) * Number(st.bsize);
  writeFileSync(filler, Buffer.alloc(Math.max(0, available - free)));
  return filler;
}

describe.runIf(mounted)('a sync onto a full disk', () => {
  it('fails naming the snapshot and saying it is intact (and it is), or succeeds whole, at every level of free space', {
    timeout: 120_000,
  }, async () => {
    const data = generateDemoSpace({ stories: 30 });
    const server = await startServer({ space: generateDemoSpace({ stories: 30 }), rateLimit: false });
    try {
      const options = { baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN };
      const out = path.join(mountPoint, 'snapshot');
      await sync({ ...options, out });
      const kept = path.join(await tempDir('full-disk'), 'old');
      await cp(out, kept, { recursive: true });
      const before = await readTree(out);
      changeContent(server.service.store, data);
      const fresh = path.join(await tempDir('full-disk'), 'new');
      await sync({ ...options, out: fresh });
      const after = await readTree(fresh);

      const outcomes: string[] = [];
      for (const pages of [0, 1, 2, 4, 8, 16, 64]) {
        const filler = fill(pages * 4096);
        let failure: Error | undefined;
        try {
          await sync({ ...options, out });
        } catch (err) {
          failure = err as Error;
        }
        rmSync(filler);
        const leftovers = readdirSync(out).filter((n) => n.startsWith('.'));
        expect(leftovers, `${pages} pages free`).toEqual([]);
        if (failure) {
          outcomes.push(`${pages} pages: failed`);
          expect(failure.message, `${pages} pages free`).toMatch(
            /^cannot write the snapshot in .* \(ENOSPC: [^)]*\); nothing was committed: the previous snapshot is intact$/,
          );
          expect(failure.message).toContain(out);
          expect(treeDiff(await readTree(out), before), `${pages} pages free`).toEqual([]);
        } else {
          outcomes.push(`${pages} pages: synced`);
          expect(treeDiff(await readTree(out), after), `${pages} pages free`).toEqual([]);
          // Back to the old snapshot for the next level.
          rmSync(out, { recursive: true });
          await cp(kept, out, { recursive: true });
        }
      }
      // The levels reach both sides: too little space, and enough.
      expect(
        outcomes.some((o) => o.endsWith('failed')),
        outcomes.join(', '),
      ).toBe(true);
      expect(
        outcomes.some((o) => o.endsWith('synced')),
        outcomes.join(', '),
      ).toBe(true);
    } finally {
      await server.close();
    }
  });
});
