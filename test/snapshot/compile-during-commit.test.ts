/**
 * A commit that comes while a compile reads the snapshot (its worker threads
 * still compiling): the commit waits for the compile, which compiles the old
 * snapshot whole; then the new snapshot stands.
 */
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { changeContent } from '../../scripts/kill-trials.js';
import { compile } from '../../src/compile/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { DEFAULT_PUBLIC_TOKEN, startServer } from '../../src/server/index.js';
import { SnapshotTransaction } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { readTree, removeTempDirs, tempDir, treeDiff, walk } from '../sync/support.js';

afterAll(removeTempDirs);

describe('a commit while a compile reads', () => {
  it('waits for the compile, which compiles the old snapshot whole', { timeout: 180_000 }, async () => {
    const data = generateDemoSpace({ stories: 120 });
    const server = await startServer({ space: generateDemoSpace({ stories: 120 }), rateLimit: false });
    const root = await tempDir('compile-during-commit');
    const dir = path.join(root, 'snapshot');
    const fresh = path.join(root, 'new');
    try {
      await sync({ baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN, out: dir });
      changeContent(server.service.store, data);
      await sync({ baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN, out: fresh });
    } finally {
      await server.close();
    }
    const oldCopy = path.join(root, 'old');
    await cp(dir, oldCopy, { recursive: true });
    const reference = path.join(root, 'compiled-old');
    await compile({ snapshot: oldCopy, out: reference, threads: 1, chunkSize: 8 });

    // The new snapshot, staged as a sync stages it: every file of it, and the deletion of the rest.
    const txn = await SnapshotTransaction.begin(dir);
    const newFiles = await walk(fresh);
    for (const rel of newFiles) await txn.put(rel, await readFile(path.join(fresh, rel), 'utf8'));
    for (const rel of await walk(dir)) if (!rel.startsWith('.') && !newFiles.includes(rel)) txn.delete(rel);

    // Committed as soon as the first chunk is in, while the other threads still read records.
    let commit: Promise<void> | undefined;
    const out = path.join(root, 'compiled');
    const result = await compile({
      snapshot: dir,
      out,
      threads: 2,
      chunkSize: 8,
      onProgress: () => (commit ??= txn.commit()),
    });
    expect(commit).toBeDefined();
    await commit;
    expect(result.stories).toBeGreaterThan(0);
    // Every module as the old snapshot gives it (the state file names the snapshot it read).
    const modules = async (d: string) =>
      new Map([...(await readTree(d))].filter(([rel]) => rel !== '.content-sync-compile.json'));
    expect(treeDiff(await modules(out), await modules(reference))).toEqual([]);
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  });
});
