import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter, requestCost, tierRate } from '../../src/server/index.js';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

/** A limiter whose clock the test moves by hand (milliseconds). */
function limiterAt(start = 1_000) {
  const clock = { t: start };
  const limiter = new RateLimiter({ now: () => clock.t });
  return { clock, limiter };
}

/** How many requests of `cost` fit before the first refusal, at a frozen clock. */
function burst(limiter: RateLimiter, key: string, cost: number, max = 1_000): number {
  for (let n = 0; n < max; n++) if (!limiter.take(key, cost).ok) return n;
  return max;
}

describe('RateLimiter (injected clock)', () => {
  it('50 single requests fit in one second; the 51st must wait at least a second', () => {
    const { limiter } = limiterAt();
    const cost = requestCost('single');
    for (let i = 0; i < 50; i++) expect(limiter.take('tok', cost), `request ${i + 1}`).toEqual({ ok: true });
    const refused = limiter.take('tok', cost);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('tiers: up to 25 per page 50/s, 26..50 15/s, 51..75 10/s, 76..100 5/s (50 and 75 in the lower-rate band)', () => {
    expect(tierRate(undefined)).toBe(50);
    for (const p of [1, 10, 25]) expect(tierRate(p), `per_page ${p}`).toBe(50);
    for (const p of [26, 40, 50]) expect(tierRate(p), `per_page ${p}`).toBe(15);
    for (const p of [51, 60, 75]) expect(tierRate(p), `per_page ${p}`).toBe(10);
    for (const p of [76, 90, 100]) expect(tierRate(p), `per_page ${p}`).toBe(5);
  });

  it('each tier admits its rate in a burst from a full bucket', () => {
    for (const [perPage, rate] of [
      [25, 50],
      [50, 15],
      [75, 10],
      [100, 5],
    ] as const) {
      const { limiter } = limiterAt();
      expect(burst(limiter, 'tok', requestCost('list', perPage)), `per_page ${perPage}`).toBe(rate);
    }
  });

  it('a listing at per_page 100 costs ten times one at 25', () => {
    expect(requestCost('list', 100)).toBeCloseTo(10 * requestCost('list', 25), 12);
    expect(requestCost('list', 25)).toBeCloseTo(requestCost('single'), 12);
    // One request at 100 spends the budget of ten at 25.
    const { limiter } = limiterAt();
    expect(limiter.take('tok', requestCost('list', 100)).ok).toBe(true);
    expect(burst(limiter, 'tok', requestCost('list', 25))).toBe(40);
  });

  it('refills continuously, not once per second', () => {
    const { clock, limiter } = limiterAt();
    const cost = requestCost('single');
    expect(burst(limiter, 'tok', cost)).toBe(50);
    clock.t += 20; // 20 ms refill 1/50 of a second: exactly one more request
    expect(limiter.take('tok', cost).ok).toBe(true);
    expect(limiter.take('tok', cost).ok).toBe(false);
    clock.t += 100; // five more
    expect(burst(limiter, 'tok', cost)).toBe(5);
    clock.t += 10_000; // the bucket holds at most one second's allowance
    expect(burst(limiter, 'tok', cost)).toBe(50);
  });

  it('retryAfterSeconds covers the wait for an expensive request', () => {
    const { clock, limiter } = limiterAt();
    expect(burst(limiter, 'tok', requestCost('single'))).toBe(50);
    const refused = limiter.take('tok', requestCost('list', 100));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    clock.t += refused.retryAfterSeconds * 1000;
    expect(limiter.take('tok', requestCost('list', 100)).ok).toBe(true);
  });

  it('tokens have independent budgets', () => {
    const { limiter } = limiterAt();
    const cost = requestCost('single');
    expect(burst(limiter, 'a', cost)).toBe(50);
    expect(limiter.take('a', cost).ok).toBe(false);
    expect(burst(limiter, 'b', cost)).toBe(50);
  });
});

describe('rate limit over HTTP', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a burst of 60 uncached listings meets 429s with a JSON error body and Retry-After', async () => {
    server = await startTestServer({ rateLimit: true });
    const cv = String(server.service.store.space.version);
    const s = server;
    // Distinct URLs: none can come from the CDN cache. At per_page 100 the budget is 5 per
    // second, so the burst exceeds it however slowly the requests arrive.
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        s.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${cv}&per_page=100&page=${i + 1}`),
      ),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    for (const a of answers) expect([200, 429]).toContain(a.status);
    for (const a of limited) {
      expect(a.headers.get('content-type')).toMatch(/application\/json/);
      expect(a.body).toEqual({ error: expect.any(String) });
      const retryAfter = Number(a.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    }
  });

  it('repeated requests at the current cv come from the CDN cache: never 429, counted as cached', async () => {
    server = await startTestServer({ rateLimit: true, admin: true });
    const s = server;
    const first = await s.api('/v2/cdn/stories/blog/first-post');
    expect(first.status).toBe(200);
    await s.get('/__admin/stats/reset', { method: 'POST' });
    const answers = await Promise.all(Array.from({ length: 200 }, () => s.api('/v2/cdn/stories/blog/first-post')));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.text).toBe(first.text);
    }
    const stats = (await s.get('/__admin/stats')).body;
    expect(stats.total).toBe(200);
    expect(stats.cached).toBe(200);
    expect(stats.by_status['200']).toBe(200);
    expect(stats.by_status['429']).toBeUndefined();
    expect(stats.by_route['v2 story']).toBe(200);
  });

  it('the CDN cache does not spend the budget of uncached requests', async () => {
    server = await startTestServer({ rateLimit: true, admin: true });
    const s = server;
    const cv = String(s.service.store.space.version);
    await s.api('/v2/cdn/tags');
    await Promise.all(Array.from({ length: 100 }, () => s.api('/v2/cdn/tags')));
    // The first tags request spent 1/50; 49 distinct uncached requests still fit.
    const answers: number[] = [];
    for (let i = 0; i < 49; i++)
      answers.push((await s.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${cv}&page=${i + 1}`)).status);
    expect(answers.filter((x) => x === 429)).toHaveLength(0);
  });

  it('a draft request is never cached: each repeat reaches the origin and spends budget', async () => {
    server = await startTestServer({ rateLimit: true, admin: true });
    const s = server;
    // At per_page 100 a request costs a fifth of the budget: five fit in a burst.
    const path = `/v2/cdn/stories?token=${PREVIEW}&version=draft&per_page=100&cv=${s.service.store.space.version}`;
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await s.get(path));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toContain(429);
    expect(answers[0]!.body.stories.map((x: { id: number }) => x.id)).toContain(15);
    const stats = (await s.get('/__admin/stats')).body;
    expect(stats.cached).toBe(0);
    expect(stats.by_status['429']).toBe(statuses.filter((x) => x === 429).length);
  });
});
