/**
 * One rate budget across processes: clients on one token, each with its own queue, draw from one
 * bucket in Redis (Debian's redis-server on loopback) against the local service enforcing the
 * contract's rates. Every request asks for another story, so none is answered from the service's
 * CDN cache (which does not count against the limit). The service runs in a process of its own,
 * as it does for real, so that its answers are not held up by the clients' event loop. (The same clients each pacing themselves
 * alone are measured by the fleet bench: on this machine's in-process service they seldom exceed
 * it, the service itself being slower than the limit.)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContentClient, type RateBudget } from '../../src/client/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { RedisBudget } from '../../src/store/budget.js';
import { connectRedis, type Redis } from '../../src/store/redis.js';
import { admin } from '../sync/support.js';
import { serveDemoProcess, startRedis, type TestRedis, TOKEN } from './support.js';

const CLIENTS = 3;
const EACH = 50;

describe('a rate budget shared through Redis', () => {
  let service: { url: string; close(): Promise<void> };
  let redis: TestRedis;
  let connection: Redis;
  const ids = generateDemoSpace({ stories: 200, seed: 7 })
    .stories.filter((s) => s.published)
    .map((s) => s.id);
  beforeAll(async () => {
    [service, redis] = await Promise.all([serveDemoProcess(200), startRedis()]);
    connection = await connectRedis(redis.url);
  });
  afterAll(async () => {
    connection.disconnect();
    await Promise.all([service.close(), redis.close()]);
  });

  /** `CLIENTS` clients at once from a full bucket, each asking for `EACH` stories of its own; the 429s the service answered. */
  async function together(budget: () => RateBudget): Promise<number> {
    await sleep(1100); // The service's bucket refills.
    await admin(service.url, 'POST', '/stats/reset');
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const client = new ContentClient({ baseUrl: service.url, token: TOKEN, pacer: budget() });
        const mine = ids.slice(c * EACH, (c + 1) * EACH);
        // With the cache version pinned, as a sync asks: no redirect to it.
        await client.space();
        await Promise.all(
          mine.map((id) => client.request({ path: `stories/${id}`, schema: z.unknown(), withCv: true })),
        );
      }),
    );
    const stats = await admin(service.url, 'GET', '/stats');
    expect(stats.by_status['200']).toBe(CLIENTS * (EACH + 1));
    return stats.by_status['429'] ?? 0;
  }

  it('a pause longer than a minute (Retry-After) outlives no key: it holds for a process that starts during it', async () => {
    const key = 'content-sync:budget:long-pause';
    const warnings: string[] = [];
    new RedisBudget(connection, key, (m) => warnings.push(m)).throttled(120);
    while ((await connection.exists(key)) === 0 && !warnings.length) await sleep(10);
    expect(warnings).toEqual([]);
    expect(await connection.pttl(key)).toBeGreaterThan(120_000);
  });

  it('keeps any number of clients on one token within the contract: no 429', async () => {
    expect(ids.length).toBeGreaterThanOrEqual(CLIENTS * EACH);
    const warnings: string[] = [];
    expect(await together(() => new RedisBudget(connection, 'content-sync:budget:test', (m) => warnings.push(m)))).toBe(
      0,
    );
    expect(warnings).toEqual([]);
  }, 60_000);
});
