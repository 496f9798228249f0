/**
 * `content-sync sync` killed with SIGKILL at seeded random instants, the
 * commit included: after recovery the snapshot is exactly the old one or
 * exactly the new one, and the next sync succeeds. The trials themselves live
 * in scripts/kill-trials.ts, which runs many more of them. With assets, the
 * snapshot's assets/ directory and index are part of what must be old or new.
 */
import { describe, expect, it } from 'vitest';
import { runKillTrials } from '../../../scripts/kill-trials.js';

describe('a sync killed at any instant', () => {
  it('leaves exactly the old or exactly the new snapshot, readable, and the next sync succeeds', {
    timeout: 120_000,
  }, async () => {
    const lines: string[] = [];
    const summary = await runKillTrials({ trials: 8, seed: 20251001, stories: 120, log: (l) => lines.push(l) });
    const report = lines.join('\n');
    expect(summary.trials).toBe(8);
    expect(summary.mixed, report).toBe(0);
    expect(summary.unreadable, report).toBe(0);
    expect(summary.old + summary.new, report).toBe(8);
    expect(summary.nextSyncFailures, report).toBe(0);
    // The trials did reach the states that matter: killed before the commit,
    // and killed inside it (rolled forward by the next reader).
    expect(
      summary.outcomes.some((o) => o.killed && o.verdict === 'old'),
      report,
    ).toBe(true);
    expect(
      summary.outcomes.some((o) => o.killed && o.moment === 'commit'),
      report,
    ).toBe(true);
    for (const o of summary.outcomes) {
      if (o.diedCommitted) expect(o.verdict, report).toBe('new');
    }
  });

  it('with assets: the old snapshot with its assets or the new one with its own, never a mix', {
    timeout: 120_000,
  }, async () => {
    const lines: string[] = [];
    const summary = await runKillTrials({
      trials: 4,
      seed: 20251124,
      stories: 80,
      assets: true,
      log: (l) => lines.push(l),
    });
    const report = lines.join('\n');
    expect(summary.mixed, report).toBe(0);
    expect(summary.unreadable, report).toBe(0);
    expect(summary.old + summary.new, report).toBe(4);
    expect(summary.nextSyncFailures, report).toBe(0);
    expect(
      summary.outcomes.some((o) => o.killed && o.verdict === 'old'),
      report,
    ).toBe(true);
    for (const o of summary.outcomes) {
      if (o.diedCommitted) expect(o.verdict, report).toBe('new');
    }
  });
});
