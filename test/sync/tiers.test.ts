/**
 * A full sync spends its budget in the fastest tier only: story listings at 25 per page, and
 * datasources and their entries (1,000 per page, which the contract still counts as single
 * items). A client that charged the entries by their page size would wait ten times too long
 * for each of them.
 */
import { afterAll, expect, it } from 'vitest';
import { requestCost } from '../../src/api/index.js';
import { type RateBudget, serviceBudget } from '../../src/client/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer } from '../../src/server/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC } from '../helpers/server.js';
import { removeTempDirs, tempDir } from './support.js';

afterAll(removeTempDirs);

it('every request of a full sync costs one fiftieth of a second of budget, datasource entries included', async () => {
  const server = await startServer({ space: generateDemoSpace({ stories: 120 }), publicToken: PUBLIC, admin: true });
  try {
    const inner = serviceBudget();
    const costs: number[] = [];
    const budget: RateBudget = {
      acquire: (cost, signal) => {
        costs.push(cost);
        return inner.acquire(cost, signal);
      },
      throttled: (s) => inner.throttled(s),
      succeeded: () => inner.succeeded(),
    };
    const result = await sync({
      baseUrl: server.url,
      token: PUBLIC,
      out: await tempDir('tiers'),
      client: { pacer: budget },
    });
    const stats = (await (await fetch(`${server.url}/__admin/stats`)).json()) as {
      by_route: Record<string, number>;
      by_status: Record<string, number>;
    };
    expect(stats.by_route['v2 datasource_entries']).toBeGreaterThan(0);
    expect(stats.by_status['429'] ?? 0).toBe(0);
    expect(costs).toHaveLength(result.requests);
    expect(new Set(costs)).toEqual(new Set([requestCost('single')]));
  } finally {
    await server.close();
  }
});
