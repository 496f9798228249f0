/**
 * The rate limit on (the contract's tiers, one budget per token) and a second
 * consumer of the same token spending about half of that budget while the
 * sync runs: the sync slows down on its 429s instead of failing, and its
 * snapshot equals one made without contention.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { DEFAULT_PUBLIC_TOKEN, startServer, type RunningServer } from '../../../src/server/index.js';
import { sync } from '../../../src/sync/index.js';
import { readTree, removeTempDirs, tempDir, treeDiff } from '../support.js';

const STORIES = 150;

let root: string;
let reference: Map<string, string>;

async function withServer<T>(run: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer({ space: generateDemoSpace({ stories: STORIES }), rateLimit: true });
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

/**
 * Another client of the same token: every 40 ms (25 requests/s) a v1 story
 * listing of 25 per page, without a cache version, so the CDN cache never
 * answers it and each costs 1/50 of the budget: half of it in all. It opens
 * by spending the bucket's reserve (a second's allowance), as a client that
 * was already busy would have, so that the contention starts with the sync
 * instead of a few seconds into it: waves of requests until one is refused,
 * so the bucket is empty when `drained` resolves however busy the machine is
 * (a fixed burst, answered slowly, leaves the time it took refilled).
 */
function startConsumer(baseUrl: string): {
  drained: Promise<void>;
  stop(): Promise<{ requests: number; ok: number; throttled: number; other: number }>;
} {
  const counts = { requests: 0, ok: 0, throttled: 0, other: 0 };
  const pending = new Set<Promise<number>>();
  let n = 0;
  /** One request; its status (0 when it failed). */
  const tick = (): Promise<number> => {
    const page = (n++ % 6) + 1;
    counts.requests++;
    const p = fetch(`${baseUrl}/v1/cdn/stories?token=${DEFAULT_PUBLIC_TOKEN}&per_page=25&page=${page}`)
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) counts.ok++;
        else if (res.status === 429) counts.throttled++;
        else counts.other++;
        return res.status;
      })
      .catch(() => {
        counts.other++;
        return 0;
      });
    pending.add(p);
    void p.finally(() => pending.delete(p));
    return p;
  };
  const drain = async (): Promise<void> => {
    while (!(await Promise.all(Array.from({ length: 10 }, tick))).includes(429));
  };
  const drained = drain();
  const timer = setInterval(tick, 40);
  return {
    drained,
    async stop() {
      clearInterval(timer);
      await Promise.all([...pending]);
      return counts;
    },
  };
}

beforeAll(async () => {
  root = await tempDir('contention');
  const out = path.join(root, 'alone');
  const result = await withServer((server) => sync({ baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN, out }));
  expect(result.mode).toBe('full');
  reference = await readTree(out);
});
afterAll(removeTempDirs);

describe('sync sharing its token with another consumer', () => {
  it('completes, backs off on its 429s, and writes the same snapshot', { timeout: 60_000 }, async () => {
    const out = path.join(root, 'contended');
    const { result, consumer } = await withServer(async (server) => {
      const other = startConsumer(server.url);
      try {
        // The bucket is empty when the sync asks for its first page.
        await other.drained;
        const result = await sync({ baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN, out });
        return { result, consumer: await other.stop() };
      } catch (err) {
        await other.stop();
        throw err;
      }
    });
    const report = `sync: ${result.requests} requests, ${result.throttled} throttled; other consumer: ${JSON.stringify(consumer)}`;
    expect(result.mode, report).toBe('full');
    expect(treeDiff(await readTree(out), reference), report).toEqual([]);
    // Both consumers ran at the same time and got answers...
    expect(consumer.requests, report).toBeGreaterThan(10);
    expect(consumer.ok, report).toBeGreaterThan(0);
    expect(consumer.other, report).toBe(0);
    // ...and the sync, starting on an empty bucket and sharing it, was refused and waited.
    expect(result.throttled, report).toBeGreaterThan(0);
  });
});
