/**
 * Benchmarks of `content-sync sync` against the local service in its own
 * process, the sync itself a child process too (its memory and CPU its own):
 * - full sync of a 10,000-story space with rate limits and 40 ms latency,
 *   against the bound the rate limit sets (target >= 0.97 of it, no 429s);
 * - storyblok-js-client fetching the same resources, side by side, against a
 *   fresh service (a fresh budget): ours must be the faster;
 * - incremental syncs: no change, one changed story by census, by webhook event;
 * - peak memory of a 100,000-story sync (target < 512 MB).
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { requestCost } from '../src/api/limits.js';
import {
  DATA,
  ROOT,
  demoSpace,
  finished,
  fmt,
  json,
  loadavg,
  runCli,
  script,
  serve,
  type CliOptions,
  type ServedSpace,
} from './lib.js';

const TOKEN = 'bench-public';
const LATENCY_MS = 40;

interface SyncSummary {
  ok: boolean;
  mode: 'full' | 'incremental' | 'unchanged';
  counts: { stories: number; datasources: number };
  changed: { stories: number[]; removed: number[]; datasources: number[]; tags: boolean };
  requests: number;
  retries: number;
  throttled: number;
  duration_ms: number;
}

interface RequestStats {
  total: number;
  cached: number;
  by_route: Record<string, number>;
  by_status: Record<string, number>;
}

interface StoryblokResult {
  ms: number;
  storiesPerLanguage: Record<string, number>;
  datasources: number;
  entries: Record<string, number>;
  tags: number;
  rateLimitMessages: number;
}

const seconds = (ms: number) => fmt(ms / 1000, 2);

/** Runs `content-sync sync --json` as a child process; its JSON summary. */
async function runSync(
  url: string,
  out: string,
  extra: string[] = [],
  options: CliOptions = {},
): Promise<{ summary: SyncSummary; stderr: string }> {
  const r = await runCli(['sync', '--base-url', url, '--token', TOKEN, '--out', out, '--json', ...extra], options);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  let summary: SyncSummary | undefined;
  try {
    summary = JSON.parse(last) as SyncSummary;
  } catch {
    // reported below
  }
  if (r.code !== 0 || !summary?.ok)
    throw new Error(`sync failed (${r.code}): ${last.slice(0, 300)} ${r.stderr.slice(-500)}`);
  return { summary, stderr: r.stderr };
}

const stats = (s: ServedSpace) => json<RequestStats>('GET', `${s.url}/__admin/stats`);
const resetStats = (s: ServedSpace) => json('POST', `${s.url}/__admin/stats/reset`);
const status = (st: RequestStats, code: number) => st.by_status[String(code)] ?? 0;
const routes = (st: RequestStats) =>
  Object.entries(st.by_route)
    .map(([route, n]) => `${route} ${n}`)
    .join(', ');

/**
 * Seconds of rate budget the requests counted by the service spent: each
 * request's `requestCost` (story listings at 25 per page, everything else
 * single-tier), less the answers that spend none (CDN hits, 429s, redirects;
 * all in the 50/s tier here).
 */
function budgetSeconds(st: RequestStats): number {
  let cost = 0;
  for (const [route, n] of Object.entries(st.by_route)) {
    const endpoint = route.split(' ')[1];
    cost += n * (endpoint === 'stories' ? requestCost('list', 25) : requestCost('single'));
  }
  const free = st.cached + status(st, 429) + status(st, 301) + status(st, 302);
  return cost - free * requestCost('single');
}

/** Peak RSS (kB) of a command: GNU time when installed, else a preloaded probe. */
interface RssMeter {
  how: string;
  options(): Promise<CliOptions>;
  read(stderr: string): Promise<number>;
}

async function rssMeter(): Promise<RssMeter> {
  const gnuTime = await new Promise<boolean>((resolve) => {
    execFile('time', ['-v', process.execPath, '-e', ''], (err, _out, stderr) =>
      resolve(!err && /Maximum resident set size/.test(stderr)),
    );
  });
  if (gnuTime) {
    return {
      how: 'GNU time -v',
      options: async () => ({ wrap: ['time', '-v'] }),
      read: async (stderr) => Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]),
    };
  }
  const file = path.join(DATA, 'sync-rss.txt');
  return {
    how: 'process.resourceUsage().maxRSS at exit',
    options: async () => {
      await fs.rm(file, { force: true });
      return {
        node: ['--import', pathToFileURL(path.join(ROOT, 'bench', 'rss-probe.mjs')).href],
        env: { BENCH_RSS_FILE: file },
      };
    },
    read: async () => Number(await fs.readFile(file, 'utf8')),
  };
}

async function languagesOf(dir: string): Promise<string[]> {
  const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { languages: string[] };
  return manifest.languages;
}

/** Edits and publishes one story through the control plane. */
async function changeStory(s: ServedSpace, id: number, n: number): Promise<void> {
  const { record } = await json<{ record: { draft: { story: { name: string } } | null } }>(
    'GET',
    `${s.url}/__admin/stories/${id}`,
  );
  const name = record.draft?.story.name ?? `story ${id}`;
  await json('PUT', `${s.url}/__admin/stories/${id}`, { name: `${name.replace(/ \(edit \d+\)$/, '')} (edit ${n})` });
  await json('POST', `${s.url}/__admin/stories/${id}/publish`);
}

export async function benchSync(): Promise<void> {
  await benchSyncBound();
  await benchSyncMemory();
}

/** The full sync against the bound and against storyblok-js-client, then incremental syncs. */
export async function benchSyncBound(): Promise<void> {
  console.log(`sync: load average at start ${loadavg()} (${os.cpus().length} cores)`);
  const dir = await demoSpace(10_000);
  const languages = await languagesOf(dir);
  const snapshot = path.join(DATA, 'sync-10000');
  await fs.rm(snapshot, { recursive: true, force: true });

  const a = await serve(dir, ['--admin', '--latency', String(LATENCY_MS)]);
  try {
    // 1. Full sync against the rate-limit bound.
    await resetStats(a);
    const { summary: full } = await runSync(a.url, snapshot);
    const st = await stats(a);
    const bound = budgetSeconds(st) - 1 + LATENCY_MS / 1000;
    const actual = full.duration_ms / 1000;
    console.log(
      `sync: full sync of ${full.counts.stories} published stories x ${languages.length} languages, ${full.counts.datasources} datasources ` +
        `(rate limits on, ${LATENCY_MS} ms latency): ${fmt(actual, 2)} s; rate-limit bound ${fmt(bound, 2)} s; ` +
        `bound/actual ${fmt(bound / actual, 3)} (target >= 0.97); ${st.total} requests; 429s: sync ${full.throttled}, service ${status(st, 429)} (target 0); ${full.retries} retries`,
    );
    console.log(`sync: full sync requests by route: ${routes(st)}; by status ${JSON.stringify(st.by_status)}`);

    // 2. storyblok-js-client, same resources, against a fresh service (a fresh budget).
    const b = await serve(dir, ['--admin', '--latency', String(LATENCY_MS)]);
    try {
      const r = await finished(script(path.join(ROOT, 'bench', 'storyblok-fetch.ts'), [b.url, TOKEN, ...languages]));
      if (r.code !== 0) throw new Error(`storyblok-fetch failed (${r.code}): ${r.stderr.slice(-500)}`);
      const sb = JSON.parse(r.stdout.trim().split('\n').pop()!) as StoryblokResult;
      const sbStats = await stats(b);
      const same = languages.every((l) => sb.storiesPerLanguage[l] === full.counts.stories);
      const perLang = languages.map((l) => `${l} ${sb.storiesPerLanguage[l]}`).join(', ');
      const entries = Object.entries(sb.entries)
        .map(([d, n]) => `${d} ${n}`)
        .join(', ');
      console.log(
        `sync: storyblok-js-client getAll, same resources: ${seconds(sb.ms)} s (stories ${perLang}: ${same ? 'equal to ours' : `NOT equal to ours (${full.counts.stories})`}; ` +
          `${sb.datasources} datasources, entries ${entries}; ${sb.tags} tags); ${sbStats.total} requests (${routes(sbStats)}); ` +
          `429s ${status(sbStats, 429)}; its time / ours ${fmt(sb.ms / full.duration_ms, 3)} (target > 1)`,
      );
    } finally {
      await b.stop();
    }

    // 3. Incremental syncs.
    await resetStats(a);
    const { summary: none } = await runSync(a.url, snapshot);
    console.log(
      `sync: incremental, no change: ${none.requests} request(s), ${seconds(none.duration_ms)} s (mode ${none.mode})`,
    );

    const candidates = full.changed.stories;
    const id = candidates[Math.floor(candidates.length / 2)]!;
    for (const [n, how] of [
      [1, 'census (no events)'],
      [2, 'webhook event'],
    ] as const) {
      await changeStory(a, id, n);
      const extra: string[] = [];
      if (how === 'webhook event') {
        const space = await json<{ space: { id: number } }>('GET', `${a.url}/__admin/space`);
        const file = path.join(DATA, 'sync-event.json');
        await fs.writeFile(file, JSON.stringify({ action: 'published', space_id: space.space.id, story_id: id }));
        extra.push('--events', file);
      }
      await resetStats(a);
      const { summary } = await runSync(a.url, snapshot, extra);
      const ist = await stats(a);
      const written = summary.changed.stories.join(',') || 'none';
      console.log(
        `sync: incremental, one story changed, ${how}: ${summary.requests} requests, ${seconds(summary.duration_ms)} s ` +
          `(mode ${summary.mode}; stories written: ${written}; ${routes(ist)}; 429s ${status(ist, 429)})`,
      );
    }
  } finally {
    await a.stop();
  }
  console.log(`sync: load average at end ${loadavg()}`);
}

/** Peak memory of a 100,000-story sync. */
export async function benchSyncMemory(): Promise<void> {
  const bigDir = await demoSpace(100_000);
  const bigSnapshot = path.join(DATA, 'sync-100000');
  await fs.rm(bigSnapshot, { recursive: true, force: true });
  const c = await serve(bigDir, ['--admin', '--no-rate-limit']);
  try {
    const meter = await rssMeter();
    const { summary, stderr } = await runSync(c.url, bigSnapshot, [], await meter.options());
    const kb = await meter.read(stderr);
    const st = await stats(c);
    console.log(
      `sync: 100,000-story space (no rate limit, no latency): peak RSS ${fmt(kb / 1024, 0)} MB (target < 512 MB; ${meter.how}); ` +
        `sync ${fmt(summary.duration_ms / 1000, 1)} s, ${summary.counts.stories} stories, ${st.total} requests, 429s ${status(st, 429)}`,
    );
  } finally {
    await c.stop();
    // A scratch snapshot of about a gigabyte: not worth keeping.
    await fs.rm(bigSnapshot, { recursive: true, force: true });
  }
  console.log(`sync: load average at end ${loadavg()}`);
}
