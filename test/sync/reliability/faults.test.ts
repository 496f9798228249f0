/**
 * A full sync through the service's fault injection (429s, 5xx, resets,
 * truncated bodies, slow answers; rate limit off) completes, and its files
 * are byte for byte those of a fault-free sync.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { DEFAULT_PUBLIC_TOKEN, parseFaultSpec, startServer, type RunningServer } from '../../../src/server/index.js';
import { readSpaceDirectory } from '../../../src/snapshot/index.js';
import { sync, type SyncResult } from '../../../src/sync/index.js';
import { readTree, removeTempDirs, tempDir, treeDiff } from '../support.js';

const MIXED = '429=0.1,500=0.03,502=0.03,503=0.03,504=0.02,reset=0.03,truncate=0.03,slow=0.02,slowms=300';

let root: string;
const references = new Map<number, Map<string, string>>();

/** A sync of a fresh demo space of `stories` through a service with `faults`, into a new directory. */
async function syncThrough(
  stories: number,
  faults: string | undefined,
): Promise<{ result: SyncResult; tree: Map<string, string>; out: string }> {
  let server: RunningServer | undefined;
  try {
    server = await startServer({
      space: generateDemoSpace({ stories }),
      rateLimit: false,
      ...(faults ? { faults: parseFaultSpec(faults) } : {}),
    });
    const out = path.join(root, `${stories}-${faults ?? 'clean'}`.replace(/[^a-z0-9-]+/gi, '_'));
    const result = await sync({ baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN, out });
    return { result, tree: await readTree(out), out };
  } finally {
    await server?.close();
  }
}

beforeAll(async () => {
  root = await tempDir('faults');
  for (const stories of [200, 20]) {
    const { result, tree } = await syncThrough(stories, undefined);
    expect(result.retries).toBe(0);
    references.set(stories, tree);
  }
});
afterAll(removeTempDirs);

describe.concurrent('sync through injected faults', () => {
  for (const seed of [1, 7, 42]) {
    it(`completes with the fault-free files (200 stories, seed ${seed})`, async ({ expect }) => {
      const { result, tree, out } = await syncThrough(200, `${MIXED},seed=${seed}`);
      expect(result.mode).toBe('full');
      expect(result.retries).toBeGreaterThan(0);
      expect(result.counts.stories).toBeGreaterThan(0);
      expect(treeDiff(tree, references.get(200)!)).toEqual([]);
      expect([...tree.keys()].some((f) => f.startsWith('.txn'))).toBe(false);
      const data = await readSpaceDirectory(out);
      expect(data.stories.length).toBe(result.counts.stories);
    });
  }

  it('completes through a 429 storm (half of all requests refused)', async ({ expect }) => {
    const { result, tree } = await syncThrough(20, '429=0.5,seed=3');
    expect(result.throttled).toBeGreaterThan(0);
    expect(result.retries).toBeGreaterThanOrEqual(result.throttled);
    expect(treeDiff(tree, references.get(20)!)).toEqual([]);
  });
});
