/**
 * Benchmarks of the Vite plugin against the local service in its own process
 * (10,000-story demo space, rate limits on, 40 ms emulated latency):
 * - webhook to updated module in a dev server: from the signed POST until the
 *   story's generated module holds the new content and the dev server has
 *   reloaded it; total and beyond the time spent waiting on the network
 *   (target < 300 ms beyond);
 * - bundle bytes of a page importing one story against that story's JSON
 *   (target <= 1.2x plus the fixed runtime, an entry importing no content);
 * - a warm `vite build` with unchanged content: requests spent on sync (target 1).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, createServer, type Logger, type ViteDevServer } from 'vite';
import { contentSync, type ContentSyncOptions } from '../src/index.js';
import { signWebhook } from '../src/server/index.js';
import { demoSpace, fmt, json, loadavg, percentile, serve, type ServedSpace } from './lib.js';

const TOKEN = 'bench-public';
const SECRET = 'bench-webhook-secret';
const LATENCY_MS = 40;
const RUNS = 10;

interface RequestStats {
  total: number;
  by_route: Record<string, number>;
}

/** A Vite logger that keeps messages and prints only errors. */
function quietLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const warned = new Set<string>();
  return {
    lines,
    info: (m) => void lines.push(m),
    warn: (m) => void lines.push(m),
    warnOnce: (m) => {
      if (!warned.has(m)) lines.push(m);
      warned.add(m);
    },
    error: (m) => {
      lines.push(m);
      console.error(m);
    },
    clearScreen: () => {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
}

/**
 * Records when requests to `origin` are in flight, through the global fetch
 * the client uses; `busyMs(from, to)` is the time within [from, to] during
 * which at least one was.
 */
function networkMeter(origin: string): { busyMs(from: number, to: number): number; restore(): void } {
  const original = globalThis.fetch;
  const intervals: Array<[number, number]> = [];
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(origin)) return original(input, init);
    const start = performance.now();
    try {
      return await original(input, init);
    } finally {
      intervals.push([start, performance.now()]);
    }
  };
  return {
    busyMs(from, to) {
      const clipped = intervals
        .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as [number, number])
        .filter(([a, b]) => b > a)
        .sort((x, y) => x[0] - y[0]);
      let busy = 0;
      let end = -Infinity;
      for (const [a, b] of clipped) {
        if (a >= end) {
          busy += b - a;
          end = b;
        } else if (b > end) {
          busy += b - end;
          end = b;
        }
      }
      return busy;
    },
    restore: () => {
      globalThis.fetch = original;
    },
  };
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function articleIds(s: ServedSpace, n: number): Promise<number[]> {
  const space = await json<{ space: { version: number } }>('GET', `${s.url}/v2/cdn/spaces/me?token=${TOKEN}`);
  const list = await json<{ stories: Array<{ id: number }> }>(
    'GET',
    `${s.url}/v2/cdn/stories?token=${TOKEN}&cv=${space.space.version}&filter_query[component][in]=article&per_page=${n}`,
  );
  return list.stories.map((st) => st.id);
}

async function webhookLatency(s: ServedSpace, root: string, ids: number[]): Promise<void> {
  const logger = quietLogger();
  const options: ContentSyncOptions = { baseUrl: s.url, token: TOKEN, webhook: { secret: SECRET } };
  const meter = networkMeter(s.url);
  let server: ViteDevServer | undefined;
  try {
    const setupStarted = performance.now();
    server = await createServer({
      root,
      configFile: false,
      customLogger: logger,
      server: { port: 0, host: '127.0.0.1', ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync(options)],
    });
    await server.listen();
    const hook = new URL('/__content-sync/webhook', server.resolvedUrls!.local[0]!).toString();
    const ssr = server.environments.ssr;
    for (const id of ids) await server.ssrLoadModule(`content:stories/${id}`);
    console.log(
      `plugin: dev server ready with a full sync and compile of the 10,000-story space in ${fmt((performance.now() - setupStarted) / 1000, 1)} s ` +
        `(${logger.lines.filter((l) => /content-sync: (full|incremental|unchanged) sync/.test(l)).join('; ')})`,
    );

    const totals: number[] = [];
    const beyond: number[] = [];
    const network: number[] = [];
    const syncMs: number[] = [];
    const refreshMs: number[] = [];
    for (const [i, id] of ids.entries()) {
      const logged = logger.lines.length;
      // The edited title lands in the story's raw module, which its story module imports.
      const file = path.join(root, '.content', 'modules', 'raw', `${id}.js`);
      const node = () => [...(ssr.moduleGraph.getModulesByFile(file) ?? [])][0];
      const stamp = node()?.lastHMRTimestamp ?? 0;
      const title = `Benchmark title ${i} ${Date.now()}`;
      await json('PUT', `${s.url}/__admin/stories/${id}`, { content: { title } });
      const published = await json<{ story: { full_slug: string } }>('POST', `${s.url}/__admin/stories/${id}/publish`);
      const body = JSON.stringify({
        text: 'published',
        action: 'published',
        space_id: 0,
        story_id: id,
        full_slug: published.story.full_slug,
      });

      const started = performance.now();
      const res = await fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-signature': signWebhook(body, SECRET) },
        body,
      });
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
      await waitUntil(
        async () => (node()?.lastHMRTimestamp ?? 0) > stamp && (await fs.readFile(file, 'utf8')).includes(title),
        `story ${id} to reload`,
      );
      const ended = performance.now();
      const total = ended - started;
      const busy = meter.busyMs(started, ended);
      totals.push(total);
      network.push(busy);
      beyond.push(total - busy);
      // Where the time went, as the plugin logs it: the sync, then sync + compile + reload.
      await waitUntil(
        () => logger.lines.slice(logged).some((l) => /modules? reloaded in \d+ ms/.test(l)),
        'the update to be logged',
      );
      const lines = logger.lines.slice(logged).join('\n');
      syncMs.push(Number(/sync \(cv \d+\): .* requests? in ([\d.]+)s/.exec(lines)?.[1] ?? NaN) * 1000);
      refreshMs.push(Number(/modules? reloaded in (\d+) ms/.exec(lines)?.[1] ?? NaN));
      const mod = (await server.ssrLoadModule(`content:stories/${id}`)) as { default: { content: { title?: string } } };
      if (mod.default.content.title !== title)
        throw new Error(`story ${id}: the reloaded module holds "${mod.default.content.title}"`);
    }
    const runs = totals.map((t, k) => `${fmt(t, 0)}/${fmt(beyond[k]!, 0)}`).join(' ');
    console.log(
      `plugin: webhook to updated module (${RUNS} runs, --latency ${LATENCY_MS}, rate limits on): p50 ${fmt(percentile(totals, 50), 0)} ms total, ` +
        `p50 ${fmt(percentile(beyond, 50), 0)} ms beyond the time on the network (p50 ${fmt(percentile(network, 50), 0)} ms with a request in flight; ` +
        `max beyond ${fmt(Math.max(...beyond), 0)} ms; target < 300 ms beyond); total/beyond per run: ${runs}`,
    );
    console.log(
      `plugin: where it goes, as the plugin logs it: p50 sync ${fmt(percentile(syncMs, 50), 0)} ms (0.1 s resolution), ` +
        `p50 sync + compile + module reload ${fmt(percentile(refreshMs, 50), 0)} ms, the rest is the coalescing window (${options.webhook?.coalesceMs ?? 0} ms) and this benchmark's polling`,
    );
  } finally {
    meter.restore();
    await server?.close();
  }
}

/** Bytes of the JavaScript a production build emits for an entry with `source`. */
async function bundleBytes(root: string, source: string, options: ContentSyncOptions): Promise<number> {
  const entry = path.join(root, 'bench-entry.js');
  await fs.writeFile(entry, source);
  const outDir = path.join(root, 'bench-dist');
  await build({
    root,
    configFile: false,
    customLogger: quietLogger(),
    logLevel: 'warn',
    plugins: [contentSync(options)],
    build: { outDir, emptyOutDir: true, modulePreload: false, rolldownOptions: { input: entry } },
  });
  let bytes = 0;
  for (const f of await fs.readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (f.isFile() && f.name.endsWith('.js')) bytes += (await fs.stat(path.join(f.parentPath, f.name))).size;
  }
  return bytes;
}

async function bundleSize(root: string, id: number): Promise<void> {
  // The snapshot is current: build from it without the API.
  const options: ContentSyncOptions = { offline: true };
  const fixed = await bundleBytes(root, "console.log('no content');\n", options);
  const page = await bundleBytes(
    root,
    `import story from 'content:stories/${id}';\nconsole.log(story.content.title);\n`,
    options,
  );
  const mod = (await import(pathToFileURL(path.join(root, '.content', 'modules', 'stories', `${id}.js`)).href)) as {
    default: unknown;
  };
  const jsonBytes = Buffer.byteLength(JSON.stringify(mod.default));
  const ratio = (page - fixed) / jsonBytes;
  console.log(
    `plugin: bundle of a page importing story ${id}: ${page} B vs the story's JSON ${jsonBytes} B; beyond the fixed runtime (${fixed} B, an entry importing no content) ` +
      `${page - fixed} B = ${fmt(ratio, 2)}x the JSON (target <= 1.2x)`,
  );
}

async function warmBuild(s: ServedSpace, root: string, id: number): Promise<void> {
  await json('POST', `${s.url}/__admin/stats/reset`);
  const started = performance.now();
  await bundleBytes(root, `import story from 'content:stories/${id}';\nconsole.log(story.content.title);\n`, {
    baseUrl: s.url,
    token: TOKEN,
  });
  const ms = performance.now() - started;
  const st = await json<RequestStats>('GET', `${s.url}/__admin/stats`);
  const routes = Object.entries(st.by_route)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  console.log(
    `plugin: warm vite build, content unchanged: ${st.total} request(s) on sync (${routes}; target 1), build ${fmt(ms / 1000, 2)} s`,
  );
}

export async function benchPlugin(): Promise<void> {
  const dir = await demoSpace(10_000);
  console.log(`plugin: load average at start ${loadavg()} (${os.cpus().length} cores)`);
  const s = await serve(dir, ['--latency', String(LATENCY_MS), '--admin']);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-bench-plugin-'));
  try {
    await fs.writeFile(path.join(root, 'index.html'), '<!doctype html><html><body></body></html>\n');
    const ids = await articleIds(s, RUNS);
    await webhookLatency(s, root, ids);
    await bundleSize(root, ids[0]!);
    await warmBuild(s, root, ids[0]!);
    console.log(`plugin: load average at end ${loadavg()}`);
  } finally {
    await s.stop();
    await fs.rm(root, { recursive: true, force: true });
  }
}
