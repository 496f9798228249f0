/**
 * A pipeline closing (its dev server stops) while its sync's commit waits for another process's
 * compile reading the snapshot: the sync is stopped before its commit point, at once, and the
 * snapshot stays as it was. The commit used to wait out the reader (up to two minutes).
 */
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { openForReading } from '../../src/snapshot/transaction.js';
import { parseOptions } from '../../src/vite/options.js';
import { ContentPipeline } from '../../src/vite/pipeline.js';
import { PUBLIC_TOKEN, capturingLogger, clearContentEnv, publishTitle, removeDir, startService } from './support.js';

let service: RunningServer;
let root: string;

beforeAll(async () => {
  clearContentEnv();
  service = await startService();
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-pipeline-close-'));
});
afterAll(async () => {
  await service?.close();
  await removeDir(root);
});

async function waitFor(what: string, done: () => boolean): Promise<void> {
  const until = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a pipeline closed while its commit waits for a reader', () => {
  it('stops the sync at once and leaves the snapshot as it was', async () => {
    const project = await fs.mkdtemp(path.join(root, 'project-'));
    const pipeline = new ContentPipeline(
      parseOptions({ baseUrl: service.url, token: PUBLIC_TOKEN }),
      project,
      capturingLogger(),
    );
    await pipeline.start();
    await pipeline.refresh();
    const story = path.join(pipeline.snapshotDir, 'stories', '14.json');
    const before = await fs.readFile(story, 'utf8');
    const reading = await openForReading(pipeline.snapshotDir);
    try {
      await publishTitle(service, 14, 'Held back by a reader');
      const refreshed = pipeline.refresh([{ action: 'published', space_id: 4242, story_id: 14 }]);
      refreshed.catch(() => undefined);
      // The plan is written just before the commit waits for the readers.
      await waitFor('the commit to wait for the reader', () =>
        existsSync(path.join(pipeline.snapshotDir, '.txn', 'plan.json')),
      );
      const asked = performance.now();
      await pipeline.close();
      expect(performance.now() - asked).toBeLessThan(5_000);
      await expect(refreshed).rejects.toThrow(/pipeline closed/);
      expect(await fs.readFile(story, 'utf8')).toBe(before);
    } finally {
      await reading.close();
    }
  }, 60_000);
});
