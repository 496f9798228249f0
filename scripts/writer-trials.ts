/**
 * Writer trials: `content-sync` processes started together on one snapshot
 * directory, round after round; what each round leaves must be exactly one of
 * the snapshots (and compiles) the processes could have made alone, never a
 * mix, with nothing left behind, and every process that fails must say why.
 *
 *   node --import tsx scripts/writer-trials.ts --rounds 60 [--seed S] [--stories N]
 *
 * Two services run in this process: A (a demo space whose content changes
 * once, after the "old" reference is taken) and B (another demo space). The
 * references are made first, by syncs and compiles that run alone. Rounds go
 * through three kinds in turn, each process started after a seeded delay:
 * - two-services: `sync --full` from A and from B into one fresh directory;
 *   it ends as A's snapshot or B's (the one whose sync exited 0, if only one
 *   did; a sync waits for another's lock, then syncs over what it finds or
 *   fails on the space it finds);
 * - three-syncs: three syncs of A (incremental or `--full`) into a copy of
 *   the old snapshot; it ends as the new one, each sync waiting for the one
 *   before it;
 * - sync-compile: a sync of A into a copy of the old snapshot and a compile of
 *   it; the snapshot ends new, and the compile exits 0 with the output of the
 *   old snapshot or of the new one (a compile that started during the commit
 *   waited for it).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compile } from '../src/compile/index.js';
import { generateDemoSpace } from '../src/demo/index.js';
import { DEFAULT_PUBLIC_TOKEN, startServer, type RunningServer } from '../src/server/index.js';
import { sync } from '../src/sync/index.js';
import { Prng, readTree, removeTempDirs, tempDir, treeDiff } from '../test/sync/support.js';
import { changeContent } from './kill-trials.js';

const CLI_ENTRY = fileURLToPath(new URL('../src/cli/run.ts', import.meta.url));

export type RoundKind = 'two-services' | 'three-syncs' | 'sync-compile';
const KINDS: RoundKind[] = ['two-services', 'three-syncs', 'sync-compile'];

export interface RoundOutcome {
  round: number;
  kind: RoundKind;
  /** What the directory (and the compile's output) ended as: a reference's name, or 'mixed'. */
  verdict: string;
  /** Exit codes of the processes, in the order they were started. */
  codes: Array<number | null>;
  /** What is wrong, for a mixed round: files that differ, a failure without its reason, leftovers. */
  detail: string[];
  /** A sync-compile round in which the sync's commit was seen waiting for the compile to finish reading. */
  commitWaited: boolean;
}

export interface WriterTrialsOptions {
  rounds: number;
  seed?: number;
  /** Stories in each demo space (default 60). */
  stories?: number;
  log?: (line: string) => void;
}

export interface WriterTrialsSummary {
  rounds: number;
  mixed: number;
  /** Rounds by kind and verdict, e.g. `sync-compile: snapshot new, compile old`. */
  verdicts: Record<string, number>;
  /** Sync-compile rounds in which the commit was seen waiting for the compile. */
  commitWaited: number;
  outcomes: RoundOutcome[];
  durationMs: number;
  line: string;
}

interface Run {
  code: number | null;
  stderr: string;
}

function run(args: string[], delayMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    }, delayMs);
  });
}

const syncArgs = (baseUrl: string, out: string, full: boolean) => [
  'sync',
  '--base-url',
  baseUrl,
  '--token',
  DEFAULT_PUBLIC_TOKEN,
  '--out',
  out,
  ...(full ? ['--full'] : []),
];

/** Files a writer or reader may leave only while it runs: the journal, the lock, readers' marks, drafts. */
const leftovers = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('.')) : []);

type Tree = Map<string, string>;

/**
 * Watches `dir` until stopped: whether a commit's plan was ever seen beside a reader's mark
 * (the writer waiting for a compile before its commit point).
 */
function watchOverlap(dir: string): () => boolean {
  let seen = false;
  const timer = setInterval(() => {
    if (
      !seen &&
      existsSync(path.join(dir, '.txn', 'plan.json')) &&
      leftovers(dir).some((n) => n.startsWith('.reader~'))
    )
      seen = true;
  }, 2);
  return () => {
    clearInterval(timer);
    return seen;
  };
}

/** Which of the named trees `tree` is exactly; undefined when none. */
function which(tree: Tree, refs: Record<string, Tree>): string | undefined {
  return Object.entries(refs).find(([, ref]) => treeDiff(tree, ref).length === 0)?.[0];
}

/** Why a process failed, when it is a reason a process that runs beside another may fail for. */
const FAILS_FOR = /is being written by process|has been writing it for over|holds a snapshot of space/;

export async function runWriterTrials(options: WriterTrialsOptions): Promise<WriterTrialsSummary> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const rng = new Prng(options.seed ?? 1);
  const stories = options.stories ?? 60;
  const servers: RunningServer[] = [];
  try {
    const dataA = generateDemoSpace({ stories });
    const a = await startServer({ space: generateDemoSpace({ stories }), rateLimit: false, latencyMs: 10 });
    servers.push(a);
    const b = await startServer({
      space: generateDemoSpace({ stories, seed: 'other' }),
      rateLimit: false,
      latencyMs: 2,
    });
    servers.push(b);
    const root = await tempDir('writer-trials');

    // The references, each made alone.
    const oldDir = path.join(root, 'old');
    await sync({ baseUrl: a.url, token: DEFAULT_PUBLIC_TOKEN, out: oldDir });
    changeContent(a.service.store, dataA);
    const newDir = path.join(root, 'new');
    await sync({ baseUrl: a.url, token: DEFAULT_PUBLIC_TOKEN, out: newDir });
    const otherDir = path.join(root, 'other');
    await sync({ baseUrl: b.url, token: DEFAULT_PUBLIC_TOKEN, out: otherDir });
    const snapshots = { old: await readTree(oldDir), new: await readTree(newDir), other: await readTree(otherDir) };
    const compiled: Record<string, Tree> = {};
    for (const name of ['old', 'new'] as const) {
      const out = path.join(root, `compiled-${name}`);
      await compile({ snapshot: path.join(root, name), out });
      compiled[name] = await readTree(out);
    }

    const outcomes: RoundOutcome[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const kind = KINDS[(round - 1) % KINDS.length]!;
      const dir = path.join(root, `round-${round}`);
      const detail: string[] = [];
      let codes: Array<number | null>;
      let verdict: string | undefined;
      let commitWaited = false;
      const explain = (runs: Run[]) => {
        runs.forEach((r, k) => {
          if (r.code !== 0 && !FAILS_FOR.test(r.stderr))
            detail.push(
              `process ${k + 1} failed (exit ${r.code}) for another reason: ${r.stderr.trim().split('\n').pop()}`,
            );
        });
      };
      if (kind === 'two-services') {
        const runs = await Promise.all([
          run(syncArgs(a.url, dir, true), rng.int(0, 300)),
          run(syncArgs(b.url, dir, true), rng.int(0, 300)),
        ]);
        codes = runs.map((r) => r.code);
        explain(runs);
        verdict = which(await readTree(dir), { new: snapshots.new, other: snapshots.other });
        // A sync that alone exited 0 made the snapshot.
        const expected =
          codes[0] === 0 && codes[1] !== 0 ? 'new' : codes[1] === 0 && codes[0] !== 0 ? 'other' : undefined;
        if (codes.every((c) => c !== 0)) detail.push('no sync succeeded');
        if (expected && verdict !== expected)
          detail.push(`only the sync that makes "${expected}" succeeded, yet the directory is ${verdict ?? 'neither'}`);
      } else if (kind === 'three-syncs') {
        await cp(oldDir, dir, { recursive: true });
        const runs = await Promise.all(
          [0, 1, 2].map(() => run(syncArgs(a.url, dir, rng.next() < 0.5), rng.int(0, 300))),
        );
        codes = runs.map((r) => r.code);
        explain(runs);
        verdict = which(await readTree(dir), { new: snapshots.new });
        if (codes.every((c) => c !== 0)) detail.push('no sync succeeded');
      } else {
        await cp(oldDir, dir, { recursive: true });
        const out = path.join(root, `round-${round}-compiled`);
        const overlap = watchOverlap(dir);
        const runs = await Promise.all([
          run(syncArgs(a.url, dir, rng.next() < 0.5), 0),
          run(['compile', '--snapshot', dir, '--out', out], rng.int(0, 1500)),
        ]);
        commitWaited = overlap();
        codes = runs.map((r) => r.code);
        runs.forEach((r, k) => {
          if (r.code !== 0)
            detail.push(`process ${k + 1} failed (exit ${r.code}): ${r.stderr.trim().split('\n').pop()}`);
        });
        const snapshot = which(await readTree(dir), { new: snapshots.new });
        const output = runs[1]!.code === 0 ? which(await readTree(out), compiled) : undefined;
        verdict = snapshot && output ? `snapshot ${snapshot}, compile ${output}` : undefined;
      }
      const left = leftovers(dir);
      if (left.length) detail.push(`left behind: ${left.join(', ')}`);
      const outcome: RoundOutcome = {
        round,
        kind,
        verdict: verdict && !detail.length ? verdict : 'mixed',
        codes,
        detail,
        commitWaited,
      };
      outcomes.push(outcome);
      log(
        `round ${round} ${kind}: exits ${codes.join(' ')} -> ${outcome.verdict}${commitWaited ? ' (the commit waited for the compile)' : ''}${detail.length ? ` (${detail.slice(0, 4).join('; ')})` : ''}`,
      );
    }
    const verdicts: Record<string, number> = {};
    for (const o of outcomes) verdicts[`${o.kind}: ${o.verdict}`] = (verdicts[`${o.kind}: ${o.verdict}`] ?? 0) + 1;
    const mixed = outcomes.filter((o) => o.verdict === 'mixed').length;
    const commitWaited = outcomes.filter((o) => o.commitWaited).length;
    const durationMs = performance.now() - started;
    return {
      rounds: outcomes.length,
      mixed,
      verdicts,
      commitWaited,
      outcomes,
      durationMs,
      line: `${outcomes.length} rounds in ${(durationMs / 1000).toFixed(1)} s: ${mixed} mixed; ${Object.entries(
        verdicts,
      )
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')}; the commit waited for the compile in ${commitWaited}`,
    };
  } finally {
    for (const server of servers) await server.close();
    await removeTempDirs();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string' }, seed: { type: 'string' }, stories: { type: 'string' } },
  });
  const rounds = Number(values.rounds ?? 60);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a positive integer (got ${values.rounds})`);
  const summary = await runWriterTrials({
    rounds,
    seed: Number(values.seed ?? 1),
    stories: Number(values.stories ?? 60),
    log: (line) => console.error(line),
  });
  console.log(summary.line);
  if (summary.mixed) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  });
}
