/**
 * The default budget mirrors the service's bucket: one second of requests spent at once at the
 * start (less a small reserve), then the full rate; after a 429 no burst follows the wait.
 */
import { describe, expect, it } from 'vitest';
import { requestCost } from '../../src/api/index.js';
import { Pacer, serviceBudget } from '../../src/client/index.js';

function fakeClock() {
  const clock = {
    t: 1_000,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.t += ms;
    },
  };
  return clock;
}

/** Start times of `n` single requests acquired one after the other. */
async function starts(pacer: Pacer, clock: ReturnType<typeof fakeClock>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    await pacer.acquire(requestCost('single'));
    out.push(clock.t);
  }
  return out;
}

describe('serviceBudget', () => {
  it('spends the bucket less the reserve at once, then starts requests at the full rate', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ target: 1, initialCreditMs: 950, catchUpMs: 950, now: clock.now, sleep: clock.sleep });
    const times = await starts(pacer, clock, 100);
    // 950 ms of 20 ms slots: 48 at once (the 48th is due exactly now), then one every 20 ms.
    expect(times.filter((t) => t === 1_000)).toHaveLength(48);
    const later = times.slice(48);
    later.slice(1).forEach((t, i) => {
      expect(t - later[i]!).toBeCloseTo(20, 6);
    });
    // 100 requests cost 2 s of budget: with 950 ms spent up front they end 1.05 s later.
    expect(times.at(-1)! - 1_000).toBeCloseTo(2_000 - 950 - 20, 6);
    expect(serviceBudget().share).toBe(1);
  });

  it('after a 429 and its wait, catches up only in proportion to the rate left', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ target: 1, initialCreditMs: 950, catchUpMs: 950, now: clock.now, sleep: clock.sleep });
    await starts(pacer, clock, 60);
    pacer.throttled(1);
    clock.t += 5_000; // the wait, and a stall after it
    const times = await starts(pacer, clock, 40);
    // Half the rate: half the catch-up (475 ms of 40 ms slots: 12 at once, not 48).
    expect(times.filter((t) => t === times[0])).toHaveLength(12);
  });
});
