/**
 * `content-sync` processes started together on one snapshot directory: syncs
 * from two services, three syncs of one, a sync and a compile. Every round
 * ends as exactly one of the snapshots (and compiles) the processes make
 * alone, nothing is left behind, every process that fails says why, and syncs
 * of one space wait for each other rather than fail. The
 * rounds live in scripts/writer-trials.ts, which runs many more of them.
 */
import { describe, expect, it } from 'vitest';
import { runWriterTrials } from '../../../scripts/writer-trials.js';

describe('writers and a compile at once on one snapshot directory', () => {
  it('never leave a mixed snapshot or a mixed compile', { timeout: 240_000 }, async () => {
    const lines: string[] = [];
    const summary = await runWriterTrials({ rounds: 6, seed: 20261124, stories: 40, log: (l) => lines.push(l) });
    const report = `${lines.join('\n')}\n${summary.line}`;
    expect(summary.rounds).toBe(6);
    expect(summary.mixed, report).toBe(0);
    // Each kind of round ran, and each ended as a snapshot a process makes alone.
    for (const kind of ['two-services', 'three-syncs', 'sync-compile']) {
      expect(
        summary.outcomes.filter((o) => o.kind === kind),
        report,
      ).toHaveLength(2);
    }
    // Syncs of one space started together: each waited for the one before it, none was refused.
    for (const o of summary.outcomes.filter((o) => o.kind === 'three-syncs'))
      expect(o.codes, report).toEqual([0, 0, 0]);
  });
});
