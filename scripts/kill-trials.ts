/**
 * Kill trials: `content-sync sync` is killed (SIGKILL) at a seeded random
 * instant, and the snapshot it was writing must then be, after recovery,
 * exactly the old snapshot or exactly the new one: never a mix, never
 * unreadable. The next sync must succeed and give the new snapshot.
 *
 *   node --import tsx scripts/kill-trials.ts --trials 50 [--seed S] [--stories N] [--assets]
 *
 * The service runs in this process (a demo space, 5 ms of latency per answer).
 * Two reference snapshots are made first: "old" (a sync before a batch of
 * control-plane changes) and "new" (an uninterrupted sync after them). Each
 * trial copies "old" into a fresh directory and runs the command against it,
 * killed at one of three kinds of instant:
 * - anywhere: uniformly within the time an uninterrupted run takes;
 * - fetching: uniformly within the fetch phase, measured from the moment the
 *   transaction begins (`.txn` appears);
 * - commit: right after `.txn/COMMIT` appears (the commit point), while the
 *   staged files are being moved into place.
 * Odd trials pass `--full` (every file is rewritten: a long commit), even
 * ones sync incrementally. With `--assets`, every sync also downloads the
 * referenced assets (inside the same transaction), and the changes add a
 * story with a new asset: old and new then differ in their assets too.
 */
import { spawn } from 'node:child_process';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { generateDemoSpace } from '../src/demo/index.js';
import { DEFAULT_PUBLIC_TOKEN, startServer, type RunningServer, type SpaceStore } from '../src/server/index.js';
import { readSpaceDirectory, readState, type SpaceData } from '../src/snapshot/index.js';
import { sync } from '../src/sync/index.js';
import { Prng, readTree, removeTempDirs, tempDir, treeDiff } from '../test/sync/support.js';

const CLI_ENTRY = fileURLToPath(new URL('../src/cli/run.ts', import.meta.url));

export type KillMoment = 'anywhere' | 'fetching' | 'commit';
export type TrialVerdict = 'old' | 'new' | 'mixed' | 'unreadable';

export interface TrialOutcome {
  trial: number;
  moment: KillMoment;
  full: boolean;
  /** Planned delay in ms (from the start, or from the transaction's start); undefined for `commit`. */
  delayMs: number | undefined;
  /** The process was still running when the signal was sent. */
  killed: boolean;
  /** A `.txn/COMMIT` was on disk right after the process died (killed inside the commit). */
  diedCommitted: boolean;
  /** What recovery did. */
  recovery: string;
  verdict: TrialVerdict;
  /** Files that differ from the nearest reference, for a mixed snapshot; the error for an unreadable one. */
  detail: string[];
  /** The next sync ended well and gave the new snapshot. */
  nextSyncOk: boolean;
}

export interface KillTrialsOptions {
  trials: number;
  seed?: number;
  /** Stories in the demo space (default 200). */
  stories?: number;
  /** Service latency per answer in ms (default 5). */
  latencyMs?: number;
  /** Syncs download assets (`--assets`), and the changes add an asset. */
  assets?: boolean;
  log?: (line: string) => void;
}

export interface KillTrialsSummary {
  trials: number;
  old: number;
  new: number;
  mixed: number;
  unreadable: number;
  /** Trials whose process was killed inside the commit (COMMIT on disk after death). */
  diedCommitted: number;
  /** Trials whose process had already ended when the signal came. */
  finishedFirst: number;
  nextSyncFailures: number;
  outcomes: TrialOutcome[];
  line: string;
}

/** A batch of control-plane changes: edits, unpublications, deletions, creations, a datasource. */
export function changeContent(store: SpaceStore, data: SpaceData): void {
  const published = data.stories
    .filter((r) => r.published)
    .map((r) => r.id)
    .sort((a, b) => a - b);
  for (const id of published.slice(0, 10)) {
    store.updateStory(id, { name: `Revised ${id}` });
    store.publish(id);
  }
  for (const id of published.slice(10, 13)) store.unpublish(id);
  for (const id of published.slice(13, 16)) store.deleteStory(id);
  for (let i = 0; i < 2; i++) {
    const { story } = store.createStory({
      name: `Fresh ${i}`,
      slug: `fresh-${i}`,
      content: { component: 'page', title: `Fresh ${i}` },
    });
    store.publish(story.id);
  }
  store.replaceDatasourceEntries('sizes', {
    entries: [
      { name: 'xs', value: 'XS' },
      { name: 'xxl', value: 'XXL' },
    ],
  });
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  killed: boolean;
  diedCommitted: boolean;
  /** ms from spawn to the transaction's start, and to the end. */
  txnAt: number | undefined;
  endedAt: number;
}

/**
 * Runs the sync command into `out`; `plan` decides when to kill it: after a
 * delay from the start, after a delay from the moment `.txn` appears, or as
 * soon as `.txn/COMMIT` appears. Without a plan the run goes to its end.
 */
/** A story whose image is a new asset, uploaded through the control plane's catalog. */
function addAssetStory(server: RunningServer): void {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="#147"/></svg>';
  const asset = server.service.assets.catalog.add({
    name: 'trial.svg',
    bytes: Buffer.from(svg),
    width: 40,
    height: 30,
  });
  const { story } = server.service.store.createStory({
    name: 'With a new asset',
    slug: 'with-a-new-asset',
    content: { component: 'page', title: 'With a new asset', image: { ...asset.meta, fieldtype: 'asset' } },
  });
  server.service.store.publish(story.id);
}

function runSync(
  baseUrl: string,
  out: string,
  full: boolean,
  assets: boolean,
  plan?: { moment: KillMoment; delayMs: number },
): Promise<Run> {
  const args = [
    '--import',
    'tsx',
    CLI_ENTRY,
    'sync',
    '--base-url',
    baseUrl,
    '--token',
    DEFAULT_PUBLIC_TOKEN,
    '--out',
    out,
  ];
  if (full) args.push('--full');
  if (assets) args.push('--assets');
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const txnDir = path.join(out, '.txn');
  const commitFile = path.join(txnDir, 'COMMIT');
  let txnAt: number | undefined;
  let killed = false;
  let exited = false;
  const timers: NodeJS.Timeout[] = [];
  const watchers: FSWatcher[] = [];

  const kill = () => {
    if (exited || killed) return;
    killed = child.kill('SIGKILL');
  };
  const onTxn = () => {
    if (txnAt !== undefined) return;
    txnAt = performance.now() - started;
    if (plan?.moment === 'fetching') timers.push(setTimeout(kill, plan.delayMs));
    if (plan?.moment === 'commit') {
      try {
        // inotify tells of the rename that creates COMMIT sooner than polling can.
        watchers.push(
          watch(txnDir, (_event, name) => {
            if (name === 'COMMIT') kill();
          }),
        );
      } catch {
        // The transaction ended before the watch began: polling below still runs.
      }
    }
  };
  if (plan?.moment === 'anywhere') timers.push(setTimeout(kill, plan.delayMs));
  try {
    watchers.push(
      watch(out, (_event, name) => {
        if (name === '.txn' && existsSync(txnDir)) onTxn();
      }),
    );
  } catch {
    // Polling below notices the transaction.
  }
  const poll = setInterval(() => {
    if (txnAt === undefined && existsSync(txnDir)) onTxn();
    if (plan?.moment === 'commit' && existsSync(commitFile)) kill();
  }, 1);

  return new Promise((resolve, reject) => {
    child.on('error', reject);
    let endedAt = 0;
    let diedCommitted = false;
    child.on('exit', () => {
      exited = true;
      endedAt = performance.now() - started;
      diedCommitted = existsSync(commitFile);
      clearInterval(poll);
      for (const t of timers) clearTimeout(t);
      for (const w of watchers) w.close();
    });
    child.on('close', (code, signal) =>
      resolve({ code, signal, stderr, killed: killed && signal === 'SIGKILL', diedCommitted, txnAt, endedAt }),
    );
  });
}

type Tree = Map<string, string>;

/** Which reference the recovered directory equals, and what differs otherwise. */
async function judge(
  dir: string,
  oldTree: Tree,
  oldManifest: string,
  newTree: Tree,
): Promise<{ recovery: string; verdict: TrialVerdict; detail: string[] }> {
  const txn = path.join(dir, '.txn');
  const recovery = existsSync(path.join(txn, 'COMMIT'))
    ? 'rolled forward'
    : existsSync(txn)
      ? 'rolled back'
      : 'nothing to recover';
  try {
    // Every reader recovers first; readState does, and says nothing when the directory is unusable.
    const state = await readState(dir);
    if (!state) return { recovery, verdict: 'unreadable', detail: ['readState found no usable snapshot'] };
    if (existsSync(txn)) return { recovery, verdict: 'unreadable', detail: ['.txn is still there after recovery'] };
    await readSpaceDirectory(dir);
  } catch (err) {
    return { recovery, verdict: 'unreadable', detail: [(err as Error).message] };
  }
  const tree = await readTree(dir);
  const toOld = treeDiff(tree, oldTree);
  if (toOld.length === 0) {
    // Exactly the old one: the manifest's bytes too, synced_at included.
    const manifest = await readFile(path.join(dir, 'manifest.json'), 'utf8');
    return manifest === oldManifest
      ? { recovery, verdict: 'old', detail: [] }
      : { recovery, verdict: 'mixed', detail: ['manifest.json (synced_at)'] };
  }
  const toNew = treeDiff(tree, newTree);
  if (toNew.length === 0) return { recovery, verdict: 'new', detail: [] };
  return { recovery, verdict: 'mixed', detail: toOld.length <= toNew.length ? toOld : toNew };
}

export async function runKillTrials(options: KillTrialsOptions): Promise<KillTrialsSummary> {
  const log = options.log ?? (() => undefined);
  const rng = new Prng(options.seed ?? 1);
  const data = generateDemoSpace({ stories: options.stories ?? 200 });
  let server: RunningServer | undefined;
  try {
    server = await startServer({
      space: generateDemoSpace({ stories: options.stories ?? 200 }),
      rateLimit: false,
      latencyMs: options.latencyMs ?? 5,
      ...(options.assets ? { assetUrls: 'self' as const } : {}),
    });
    const assets = options.assets === true;
    const library = { baseUrl: server.url, token: DEFAULT_PUBLIC_TOKEN, ...(assets ? { assets: {} } : {}) };
    const root = await tempDir('kill-trials');
    const oldDir = path.join(root, 'old');
    await sync({ ...library, out: oldDir });
    const oldTree = await readTree(oldDir);
    const oldManifest = await readFile(path.join(oldDir, 'manifest.json'), 'utf8');

    changeContent(server.service.store, data);
    if (assets) addAssetStory(server);

    // The new reference, through the command itself, timed to place the kills.
    const newDir = path.join(root, 'new');
    await cp(oldDir, newDir, { recursive: true });
    const reference = await runSync(server.url, newDir, true, assets);
    if (reference.code !== 0 || reference.txnAt === undefined) {
      throw new Error(`the reference sync failed (exit ${reference.code}): ${reference.stderr.trim()}`);
    }
    const newTree = await readTree(newDir);
    const changed = treeDiff(newTree, oldTree);
    if (changed.length === 0) throw new Error('the changes did not change the snapshot');
    if (assets && !changed.some((f) => f.startsWith('assets/') && f !== 'assets/index.json'))
      throw new Error('the changes did not change the asset files');
    const total = reference.endedAt;
    const fetching = reference.endedAt - reference.txnAt;
    log(`reference run: ${Math.round(total)} ms, transaction open for ${Math.round(fetching)} ms`);

    const moments: KillMoment[] = ['anywhere', 'fetching', 'commit'];
    const outcomes: TrialOutcome[] = [];
    for (let trial = 1; trial <= options.trials; trial++) {
      const moment = moments[(trial - 1) % moments.length]!;
      const full = trial % 2 === 1;
      const delayMs =
        moment === 'anywhere' ? rng.next() * total : moment === 'fetching' ? rng.next() * fetching : undefined;
      const dir = path.join(root, `trial-${trial}`);
      await cp(oldDir, dir, { recursive: true });
      const run = await runSync(server.url, dir, full, assets, { moment, delayMs: delayMs ?? 0 });
      if (!run.killed && run.code !== 0)
        throw new Error(`trial ${trial}: the sync failed on its own (exit ${run.code}): ${run.stderr.trim()}`);
      const { recovery, verdict, detail } = await judge(dir, oldTree, oldManifest, newTree);
      let nextSyncOk = false;
      try {
        await sync({ ...library, out: dir });
        nextSyncOk = treeDiff(await readTree(dir), newTree).length === 0;
      } catch {
        nextSyncOk = false;
      }
      const outcome: TrialOutcome = {
        trial,
        moment,
        full,
        delayMs,
        killed: run.killed,
        diedCommitted: run.diedCommitted,
        recovery,
        verdict,
        detail,
        nextSyncOk,
      };
      outcomes.push(outcome);
      const at = delayMs === undefined ? 'at COMMIT' : `after ${Math.round(delayMs)} ms`;
      log(
        `trial ${trial}: ${moment} ${at}${full ? ' (--full)' : ''}: ${run.killed ? 'killed' : 'had ended'}` +
          `${run.diedCommitted ? ' inside the commit' : ''}, ${recovery} -> ${verdict}${detail.length ? ` (${detail.slice(0, 5).join(', ')})` : ''}` +
          `${nextSyncOk ? '' : '; NEXT SYNC FAILED'}`,
      );
    }
    const count = (v: TrialVerdict) => outcomes.filter((o) => o.verdict === v).length;
    const summary = {
      trials: outcomes.length,
      old: count('old'),
      new: count('new'),
      mixed: count('mixed'),
      unreadable: count('unreadable'),
      diedCommitted: outcomes.filter((o) => o.diedCommitted).length,
      finishedFirst: outcomes.filter((o) => !o.killed).length,
      nextSyncFailures: outcomes.filter((o) => !o.nextSyncOk).length,
      outcomes,
    };
    const unreadable = summary.unreadable ? `, ${summary.unreadable} unreadable` : '';
    return {
      ...summary,
      line: `${summary.trials} trials: ${summary.old} old, ${summary.new} new, ${summary.mixed} mixed${unreadable}`,
    };
  } finally {
    await server?.close();
    await removeTempDirs();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      trials: { type: 'string' },
      seed: { type: 'string' },
      stories: { type: 'string' },
      assets: { type: 'boolean' },
    },
  });
  const trials = Number(values.trials ?? 50);
  const seed = Number(values.seed ?? 1);
  const stories = Number(values.stories ?? 200);
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error(`--trials must be a positive integer (got ${values.trials})`);
  const summary = await runKillTrials({
    trials,
    seed,
    stories,
    assets: values.assets === true,
    log: (line) => console.error(line),
  });
  console.error(
    `${summary.diedCommitted} killed inside the commit, ${summary.finishedFirst} had ended before the signal, ` +
      `${summary.nextSyncFailures} next syncs failed`,
  );
  console.log(summary.line);
  if (summary.mixed || summary.unreadable || summary.nextSyncFailures) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  });
}
