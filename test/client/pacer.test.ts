/**
 * The Pacer with an injected clock: start times spaced evenly at 96% of the
 * tier's rate, halving and the Retry-After wait after a 429, and the rate won
 * back a step per success.
 */
import { describe, expect, it } from 'vitest';
import { requestCost } from '../../src/api/index.js';
import { Pacer, UNPACED } from '../../src/client/index.js';

/** A clock that only moves when the pacer sleeps, or when the test says so. */
function fakeClock() {
  const clock = {
    t: 1_000,
    sleeps: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

/** Start times of `n` requests acquired one after the other. */
async function starts(pacer: Pacer, clock: ReturnType<typeof fakeClock>, n: number, cost: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    await pacer.acquire(cost);
    out.push(clock.t);
  }
  return out;
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('Pacer', () => {
  it('starts the first request at once and spaces the next at 96% of the tier rate', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep });
    const times = await starts(pacer, clock, 6, requestCost('list', 25));
    expect(times[0]).toBe(1_000);
    // 50 requests/s at 96%: one every 1000 / (50 * 0.96) ms.
    for (const gap of gaps(times)) expect(gap).toBeCloseTo(1000 / 48, 6);
    expect(pacer.share).toBe(0.96);
  });

  it('spaces by the cost of each tier: 100 per page is ten times 25 per page', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep });
    const times = await starts(pacer, clock, 4, requestCost('list', 100));
    for (const gap of gaps(times)) expect(gap).toBeCloseTo(1000 / (5 * 0.96), 6);
    // Mixed costs: each request pushes the next by its own share of the budget.
    const t0 = clock.t;
    await pacer.acquire(requestCost('single'));
    const afterSingle = clock.t;
    await pacer.acquire(requestCost('list', 50));
    expect(afterSingle - t0).toBeCloseTo(1000 / (5 * 0.96), 6);
    expect(clock.t - afterSingle).toBeCloseTo(1000 / (50 * 0.96), 6);
  });

  it('gives requests that ask at the same instant successive slots, never a burst', async () => {
    const clock = fakeClock();
    const waits: number[] = [];
    const pacer = new Pacer({ now: clock.now, sleep: async (ms) => void waits.push(ms) });
    await Promise.all(Array.from({ length: 5 }, () => pacer.acquire(requestCost('single'))));
    // The first does not sleep at all.
    expect(waits).toHaveLength(4);
    waits.forEach((w, i) => {
      expect(w).toBeCloseTo(((i + 1) * 1000) / 48, 6);
    });
  });

  it('after a 429: halves the rate and waits what Retry-After says before the next start', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep });
    await starts(pacer, clock, 3, requestCost('single'));
    const at = clock.t;
    pacer.throttled(2);
    expect(pacer.share).toBeCloseTo(0.48, 9);
    const times = await starts(pacer, clock, 4, requestCost('single'));
    expect(times[0]).toBe(at + 2_000);
    for (const gap of gaps(times)) expect(gap).toBeCloseTo(1000 / (50 * 0.48), 6);
  });

  it('halves again on every 429, down to the floor', () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep });
    pacer.throttled(1);
    pacer.throttled(1);
    expect(pacer.share).toBeCloseTo(0.24, 9);
    for (let i = 0; i < 10; i++) pacer.throttled(1);
    expect(pacer.share).toBe(0.1);
  });

  it('a Retry-After shorter than the schedule does not start anything early', async () => {
    const clock = fakeClock();
    const sleeps: number[] = [];
    const pacer = new Pacer({ now: clock.now, sleep: async (ms) => void sleeps.push(ms) });
    // Ten requests for 100 per page take their slots at once (the clock stands still).
    for (let i = 0; i < 10; i++) await pacer.acquire(requestCost('list', 100));
    pacer.throttled(1);
    await pacer.acquire(requestCost('single'));
    // Still after every slot already handed out (10 slots of 1000 / 4.8 ms), not at now + 1 s.
    expect(sleeps.at(-1)).toBeCloseTo((10 * 1000) / 4.8, 6);
  });

  it('wins the rate back additively, one step per success, never above the target', () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep });
    pacer.throttled(1);
    expect(pacer.share).toBeCloseTo(0.48, 9);
    pacer.succeeded();
    expect(pacer.share).toBeCloseTo(0.49, 9);
    for (let i = 0; i < 9; i++) pacer.succeeded();
    expect(pacer.share).toBeCloseTo(0.58, 9);
    for (let i = 0; i < 100; i++) pacer.succeeded();
    expect(pacer.share).toBe(0.96);
  });

  it('spaces at the recovered rate as it climbs back', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep, step: 0.1 });
    pacer.throttled(0);
    const shares: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      shares.push(pacer.share);
      await pacer.acquire(requestCost('single'));
      times.push(clock.t);
      pacer.succeeded();
    }
    // Each gap is set by the share in force when the earlier request took its slot.
    gaps(times).forEach((gap, i) => {
      expect(gap).toBeCloseTo(1000 / (50 * shares[i]!), 6);
    });
    expect(shares.at(-1)).toBeCloseTo(0.96, 9);
  });
});

describe('UNPACED (the embedded service, which has no rate limit)', () => {
  it('grants every request at once, before and after a 429, where the Pacer would space them', async () => {
    const clock = fakeClock();
    const paced = new Pacer({ now: clock.now, sleep: clock.sleep });
    for (let i = 0; i < 3; i++) await paced.acquire(1);
    expect(clock.sleeps.length).toBeGreaterThan(0);

    let granted = 0;
    await Promise.all(Array.from({ length: 1_000 }, () => UNPACED.acquire(1).then(() => granted++)));
    UNPACED.throttled(30);
    await UNPACED.acquire(1);
    UNPACED.succeeded();
    expect(granted).toBe(1_000);
  });
});
