/**
 * The Pacer after a stall: slots that passed unused (no request was ready)
 * are made up, at most `catchUpMs` of them; an idle start is no burst.
 */
import { describe, expect, it } from 'vitest';
import { requestCost } from '../../src/api/index.js';
import { Pacer } from '../../src/client/index.js';

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

const slot = 1000 / 48;

describe('Pacer catch-up', () => {
  it('after a stall, starts the next requests at once until the schedule is caught up, within catchUpMs', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep, catchUpMs: 100 });
    await pacer.acquire(requestCost('single'));
    clock.t += 1_000; // nothing was ready for a second
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      await pacer.acquire(requestCost('single'));
      times.push(clock.t);
    }
    // 100 ms of slots are made up (five at once), then the even spacing resumes.
    const immediate = times.filter((t) => t === 2_000).length;
    expect(immediate).toBe(Math.floor(100 / slot) + 1);
    const late = times.slice(immediate);
    late.slice(1).forEach((t, i) => {
      expect(t - late[i]!).toBeCloseTo(slot, 6);
    });
  });

  it('initialCreditMs lets the first requests spend that much of the starting bucket at once, then spaces them', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep, target: 0.96, initialCreditMs: 200 });
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      await pacer.acquire(requestCost('single'));
      times.push(clock.t);
    }
    const immediate = times.filter((t) => t === 1_000).length;
    // 200 ms of budget at 48 requests/s: ten start at once (the tenth is due exactly now).
    expect(immediate).toBe(Math.floor(200 / slot) + 1);
    // The schedule began 200 ms in the past: the next request is due at its slot in it.
    const late = times.slice(immediate);
    expect(late[0]).toBeCloseTo(1_000 - 200 + immediate * slot, 6);
    late.slice(1).forEach((t, i) => {
      expect(t - late[i]!).toBeCloseTo(slot, 6);
    });
  });

  it('with catchUpMs 0, a stall is never made up', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ now: clock.now, sleep: clock.sleep, catchUpMs: 0 });
    await pacer.acquire(requestCost('single'));
    clock.t += 1_000;
    await pacer.acquire(requestCost('single'));
    const t = clock.t;
    await pacer.acquire(requestCost('single'));
    expect(clock.t - t).toBeCloseTo(slot, 6);
  });
});
