/**
 * Benchmarks of the content compiler:
 * - compiling a 100,000-story snapshot (target under 20 s, peak RSS under 512 MB), into a
 *   fresh directory on disk and into tmpfs (/dev/shm) side by side, since creating files
 *   dominates on slow disks;
 * - an incremental compile after one story change in a 10,000-story snapshot (target under
 *   200 ms) and the files it rewrote, for a story nothing embeds and for an author that
 *   articles embed through relations: as a command (a new process reading its state file,
 *   median of five edits) and in one process compiling again and again (the dev server), median
 *   of seven.
 * Commands are run as users run them: the built CLI (compiled from the sources first). The figure
 * against a target is the compile's own duration (`durationMs` of `--json`); for a command the
 * process from start to exit is printed beside it (starting Node, loading the modules, writing the
 * state file after the compile returns).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompileCache, compile } from '../src/compile/compile.js';
import { sync } from '../src/sync/index.js';
import { compileFloor } from './compile-floor.js';
import { DATA, demoSpace, fmt, json, loadavg, percentile, runBuiltCli, runCli, serve } from './lib.js';

const RELATIONS = 'article.author,article.categories,product.related_products';
/** Edits compiled by a command, per kind of edit (the median is reported). */
const COMMAND_RUNS = 5;
/** The edits measured: a story nothing embeds, and one that many embed (listing filters that find each). */
const CHANGES = [
  ['an article nothing embeds', 'filter_query[component][in]=article&sort_by=id:desc'],
  ['an author that articles embed', 'filter_query[component][in]=author'],
] as const;

async function snapshotOf(stories: number): Promise<{ dir: string; url?: string; stop?: () => Promise<void> }> {
  const dir = path.join(DATA, `compile-snap-${stories}`);
  const space = await demoSpace(stories);
  const s = await serve(space, ['--no-rate-limit', '--admin']);
  const r = await runCli(['sync', '--base-url', s.url, '--token', 'bench-public', '--out', dir, '--json']);
  if (r.code !== 0) throw new Error(`sync failed: ${r.stderr}`);
  return { dir, url: s.url, stop: s.stop };
}

async function compileCli(
  snapshot: string,
  out: string,
  extra: string[] = [],
): Promise<{ ms: number; wallMs: number; written: string[]; rssMb: number; userS: number; systemS: number }> {
  const rssFile = path.join(DATA, 'compile-rss.txt');
  const cpuFile = path.join(DATA, 'compile-cpu.txt');
  await Promise.all([rssFile, cpuFile].map((f) => fs.rm(f, { force: true })));
  const started = performance.now();
  const r = await runBuiltCli(
    [
      'compile',
      '--snapshot',
      snapshot,
      '--out',
      out,
      '--resolve-relations',
      RELATIONS,
      '--resolve-links',
      'url',
      '--json',
      ...extra,
    ],
    {
      env: { BENCH_RSS_FILE: rssFile, BENCH_CPU_FILE: cpuFile },
      node: ['--import', path.join(import.meta.dirname, 'rss-probe.mjs')],
    },
  );
  const wallMs = performance.now() - started;
  if (r.code !== 0) throw new Error(`compile failed: ${r.stderr}`);
  const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { durationMs: number; written: string[] };
  const rssKb = Number(await fs.readFile(rssFile, 'utf8').catch(() => 'NaN'));
  const [user, system] = (await fs.readFile(cpuFile, 'utf8').catch(() => 'NaN NaN')).split(' ').map(Number);
  return {
    ms: summary.durationMs,
    wallMs,
    written: summary.written,
    rssMb: rssKb / 1024,
    userS: user! / 1e6,
    systemS: system! / 1e6,
  };
}

async function full100k(): Promise<void> {
  const snap = path.join(DATA, 'sync-100000');
  const source = existsSync(path.join(snap, 'manifest.json')) ? { dir: snap } : await snapshotOf(100_000);
  await source.stop?.();
  for (const [label, out] of [
    ['disk', path.join(DATA, 'compile-100000')],
    ['tmpfs', '/dev/shm/content-sync-compile-100000'],
  ] as const) {
    if (label === 'tmpfs' && !existsSync('/dev/shm')) continue;
    await fs.rm(out, { recursive: true, force: true });
    // What earlier runs left to write back (the removal of the last run's 196,000 files, or the
    // gigabyte the disk run just wrote) is written back before this run is timed, not during it.
    settle();
    const r = await compileCli(source.dir, out);
    console.log(
      `compile: 100,000-story snapshot into a fresh directory on ${label} (built CLI): ${fmt(r.ms / 1000, 1)} s (the process, from start to exit, ${fmt(r.wallMs / 1000, 1)} s), peak RSS ${fmt(r.rssMb, 0)} MB, ${r.written.length} files (targets < 20 s, < 512 MB); CPU time of the process ${fmt(r.userS, 1)} s user, ${fmt(r.systemS, 1)} s system`,
    );
    if (label === 'tmpfs') await fs.rm(out, { recursive: true, force: true });
  }
}

/** Runs of each side of the floor comparison: writeback makes single runs on a disk vary widely. */
const FLOOR_RUNS = 3;

/**
 * A full compile into a fresh directory against the floor (see compile-floor.ts), on the same file
 * system: the bench's disk, and tmpfs (/dev/shm) where there is one, since what a disk does with
 * 100 MB of new files moves either figure by seconds. Runs alternate; medians are compared.
 */
async function againstFloor(snapshot: string): Promise<void> {
  const places: Array<[string, string]> = [['disk', DATA]];
  if (existsSync('/dev/shm')) places.push(['tmpfs', '/dev/shm']);
  for (const [label, root] of places) {
    const fresh = path.join(root, 'content-sync-compile-fresh');
    const floorOut = path.join(root, 'content-sync-compile-floor');
    const compiles: number[] = [];
    const floors: number[] = [];
    /** CPU seconds (user and system, every thread): the compile's process, and the floor's runs. */
    const compileCpu: number[] = [];
    const floorCpu: number[] = [];
    for (let run = 0; run < FLOOR_RUNS; run++) {
      await Promise.all([fresh, floorOut].map((d) => fs.rm(d, { recursive: true, force: true })));
      settle();
      const compiled = await compileCli(snapshot, fresh, ['--full']);
      compiles.push(compiled.ms);
      compileCpu.push(compiled.userS + compiled.systemS);
      settle();
      const before = process.cpuUsage();
      floors.push(compileFloor(snapshot, floorOut));
      const used = process.cpuUsage(before);
      floorCpu.push((used.user + used.system) / 1e6);
    }
    await Promise.all([fresh, floorOut].map((d) => fs.rm(d, { recursive: true, force: true })));
    const compile = percentile(compiles, 50);
    const floor = percentile(floors, 50);
    const runs = (xs: number[]) => xs.map((x) => fmt(x / 1000, 2)).join(', ');
    console.log(
      `compile: full compile of the 10,000-story snapshot into a fresh directory on ${label} (built CLI), median of ${FLOOR_RUNS}: ${fmt(compile / 1000, 2)} s ` +
        `(${runs(compiles)}) against the floor (read and parse every record, write two modules per story, one thread) ${fmt(floor / 1000, 2)} s ` +
        `(${runs(floors)}): ${fmt(compile / floor, 2)}x (target < 2x)`,
    );
    // Wall time with threads is bounded by the CPU work over the cores: the work itself, side by side.
    const cpu = percentile(compileCpu, 50);
    const cpuFloor = percentile(floorCpu, 50);
    console.log(
      `compile: CPU time on ${label} (user and system, every thread), median: the compile's process ${fmt(cpu, 2)} s, the floor ${fmt(cpuFloor, 2)} s: ${fmt(cpu / cpuFloor, 2)}x`,
    );
  }
}

/** The floor comparison alone (`npm run bench -- compile-floor`). */
export async function benchCompileFloor(): Promise<void> {
  console.log(`compile: load average at start ${loadavg()} (${os.cpus().length} cores)`);
  const { dir, stop } = await snapshotOf(10_000);
  await stop?.();
  await againstFloor(dir);
}

/** Flushes the file systems' pending writes (`sync`), where there is such a command. */
function settle(): void {
  try {
    execFileSync('sync');
  } catch {
    // No sync command: timed as it is.
  }
}

async function incremental10k(): Promise<void> {
  const { dir, url, stop } = await snapshotOf(10_000);
  const out = path.join(DATA, 'compile-10000');
  try {
    const first = await compileCli(dir, out);
    console.log(
      `compile: 10,000-story snapshot (built CLI, ${first.written.length ? 'full' : 'already compiled'}): ${fmt(first.ms / 1000, 1)} s`,
    );
    await againstFloor(dir);
    const none = await compileCli(dir, out);
    console.log(
      `compile: incremental with no change (a command): ${fmt(none.ms, 0)} ms, ${none.written.length} files written; the process ${fmt(none.wallMs, 0)} ms`,
    );
    for (const [label, filter] of CHANGES) {
      // Several edits, each synced and compiled by a new process: single runs vary with the machine's load.
      const times: number[] = [];
      const walls: number[] = [];
      let written: string[] = [];
      for (let run = 0; run < COMMAND_RUNS; run++) {
        const space = await json<{ space: { version: number } }>('GET', `${url}/v2/cdn/spaces/me?token=bench-public`);
        const cv = space.space.version;
        const list = await json<{ stories: Array<{ id: number; name: string }> }>(
          'GET',
          `${url}/v2/cdn/stories?token=bench-public&cv=${cv}&per_page=1&${filter}`,
        );
        const story = list.stories[0]!;
        await json('PUT', `${url}/__admin/stories/${story.id}`, {
          name: `${story.name.replace(/ \(edited.*$/, '')} (edited ${Date.now()})`,
        });
        await json('POST', `${url}/__admin/stories/${story.id}/publish`);
        const events = path.join(DATA, 'compile-event.json');
        await fs.writeFile(events, JSON.stringify({ action: 'published', space_id: 1, story_id: story.id }));
        const s = await runCli([
          'sync',
          '--base-url',
          url!,
          '--token',
          'bench-public',
          '--out',
          dir,
          '--events',
          events,
          '--json',
        ]);
        if (s.code !== 0) throw new Error(`sync failed: ${s.stderr}`);
        const r = await compileCli(dir, out);
        times.push(r.ms);
        walls.push(r.wallMs);
        written = r.written;
      }
      const shown =
        written.length > 6 ? `${written.slice(0, 6).join(', ')}, ... (${written.length - 6} more)` : written.join(', ');
      console.log(
        `compile: incremental after one change (${label}, a command), median of ${times.length}: ${fmt(percentile(times, 50), 0)} ms ` +
          `(min ${fmt(Math.min(...times), 0)}, max ${fmt(Math.max(...times), 0)}; target < 200 ms); the process, from start to exit, ${fmt(percentile(walls, 50), 0)} ms; ` +
          `the last rewrote ${written.length} files: ${shown}`,
      );
    }
    await inProcess(url!, dir, out);
  } finally {
    await stop?.();
  }
}

/** Edits published through the control plane, each synced (narrowed to the event) and compiled in this process. */
async function inProcess(url: string, snapshot: string, out: string): Promise<void> {
  const options = {
    snapshot,
    out,
    resolveRelations: RELATIONS.split(','),
    resolveLinks: 'url' as const,
    // As the dev server does: the last state kept in memory between compiles.
    cache: new CompileCache(),
  };
  await compile(options);
  for (const [label, filter] of CHANGES) {
    const times: number[] = [];
    let written: string[] = [];
    for (let run = 0; run < 7; run++) {
      const space = await json<{ space: { version: number } }>('GET', `${url}/v2/cdn/spaces/me?token=bench-public`);
      const list = await json<{ stories: Array<{ id: number; name: string }> }>(
        'GET',
        `${url}/v2/cdn/stories?token=bench-public&cv=${space.space.version}&per_page=1&${filter}`,
      );
      const story = list.stories[0]!;
      await json('PUT', `${url}/__admin/stories/${story.id}`, {
        name: `${story.name.replace(/ \(edited.*$/, '')} (edited ${Date.now()})`,
      });
      await json('POST', `${url}/__admin/stories/${story.id}/publish`);
      await sync({
        baseUrl: url,
        token: 'bench-public',
        out: snapshot,
        events: [{ action: 'published', space_id: 1, story_id: story.id }],
      });
      const r = await compile(options);
      times.push(r.durationMs);
      written = r.written;
    }
    const shown =
      written.length > 6 ? `${written.slice(0, 6).join(', ')}, ... (${written.length - 6} more)` : written.join(', ');
    console.log(
      `compile: in-process incremental after one change (${label}), median of ${times.length}: ${fmt(percentile(times, 50), 0)} ms (target < 200 ms); rewrote ${written.length} files: ${shown}`,
    );
  }
}

export async function benchCompile(): Promise<void> {
  console.log(`compile: load average at start ${loadavg()} (${os.cpus().length} cores)`);
  await incremental10k();
  await full100k();
  console.log(`compile: load average at end ${loadavg()}`);
}
