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
 * with a burst of 50 that spends the bucket's reserve (a second's allowance),
 * as a client that was already busy would have, so that the contention starts
 * with the sync instead of a few seconds into it.
 */
function startConsumer(baseUrl: string): {
  stop(): Promise<{ requests: number; ok: number; throttled: number; other: number }>;
} {
  const counts = { requests: 0, ok: 0, throttled: 0, other: 0 };
  const pending = new Set<Promise<void>>();
  let n = 0;
  const tick = () => {
    const page = (n++ % 6) + 1;
    counts.requests++;
    const p = fetch(`${baseUrl}/v1/cdn/stories?token=${DEFAULT_PUBLIC_TOKEN}&per_page=25&page=${page}`)
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) counts.ok++;
        else if (res.status === 429) counts.throttled++;
        else counts.other++;
      })
      .catch(() => {
        counts.other++;
      });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  for (let i = 0; i < 50; i++) tick();
  const timer = setInterval(tick, 40);
  return {
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
      // The burst is spent before the sync asks for its first page.
      await new Promise((r) => setTimeout(r, 200));
      try {
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
    // ...and together they asked for more than the budget: someone was refused.
    expect(result.throttled + consumer.throttled, report).toBeGreaterThan(0);
  });
});
