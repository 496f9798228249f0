/**
 * The runner (one run at a time, the rest merged into one next run) and the
 * batcher (coalescing with a maximum wait).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Batcher, Runner } from '../../src/trigger/index.js';

/** A run that waits until the test releases it. */
function gated() {
  const inputs: number[][] = [];
  const releases: Array<() => void> = [];
  const runner = new Runner<number[], number[]>(
    (input) => {
      inputs.push(input);
      return new Promise((resolve) => releases.push(() => resolve(input)));
    },
    (queued, later) => [...queued, ...later],
  );
  return { runner, inputs, release: () => releases.shift()!() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Runner', () => {
  it('runs one at a time and merges what arrives meanwhile into one next run', async () => {
    const { runner, inputs, release } = gated();
    const first = runner.request([1]);
    await tick();
    expect(runner.running).toBe(true);
    const later = [runner.request([2]), runner.request([3]), runner.request([4])];
    expect(runner.queued).toBe(true);
    await tick();
    expect(inputs).toEqual([[1]]);
    release();
    expect(await first).toEqual([1]);
    await tick();
    expect(inputs).toEqual([[1], [2, 3, 4]]);
    expect(runner.queued).toBe(false);
    release();
    // Every request merged into the second run gets its result.
    expect(await Promise.all(later)).toEqual([
      [2, 3, 4],
      [2, 3, 4],
      [2, 3, 4],
    ]);
    await runner.idle();
    expect(runner.running).toBe(false);
  });

  it("gives a run's failure to the requests it covers, and goes on with the next", async () => {
    let n = 0;
    const runner = new Runner<string, string>(
      async (input) => {
        if (++n === 1) throw new Error(`failed ${input}`);
        return input;
      },
      (a, b) => a + b,
    );
    await expect(runner.request('a')).rejects.toThrow('failed a');
    await expect(runner.request('b')).resolves.toBe('b');
  });
});

describe('Batcher', () => {
  // Fake timers: the windows are what is tested, not the machine's speed.
  afterEach(() => void vi.useRealTimers());

  it('hands over items that arrive within the window together', () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const batcher = new Batcher<number>(200, 2000, (items) => batches.push(items));
    batcher.add([1]);
    vi.advanceTimersByTime(150);
    batcher.add([2, 3]);
    vi.advanceTimersByTime(150);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(60);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('hands over a steady stream no later than the maximum wait after its first item', () => {
    vi.useFakeTimers();
    const batches: Array<{ at: number; items: number[] }> = [];
    const start = Date.now();
    const batcher = new Batcher<number>(200, 1000, (items) => batches.push({ at: Date.now() - start, items }));
    for (let i = 0; i < 30; i++) {
      batcher.add([i]);
      vi.advanceTimersByTime(100);
    }
    expect(batches.map((b) => b.at)).toEqual([1000, 2000, 3000]);
    expect(batches.flatMap((b) => b.items)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('drops what waits on cancel', () => {
    vi.useFakeTimers();
    const batches: number[][] = [];
    const batcher = new Batcher<number>(0, 0, (items) => batches.push(items));
    batcher.add([1]);
    batcher.cancel();
    vi.runAllTimers();
    expect(batches).toEqual([]);
  });
});
