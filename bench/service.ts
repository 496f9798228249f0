/**
 * Benchmarks of the local Content Delivery Service:
 * - cached answers per second on loopback (target >= 10,000/s);
 * - p50 latency of an uncached filtered listing over 10,000 stories (target < 5 ms);
 * - load time and p50 query time of a 100,000-story space (targets < 10 s, < 50 ms).
 */
import { execFileSync } from 'node:child_process';
import { demoSpace, fmt, get, load, percentile, serve, timed } from './lib.js';

/** Requests per second with wrk when the machine has it (a C load generator leaves the
 * server the CPU), else with a Node keep-alive loop (which competes for it). */
async function hammer(url: string, seconds: number): Promise<{ rate: number; tool: string; detail: string }> {
  try {
    const out = execFileSync('wrk', ['-t1', '-c32', `-d${seconds}s`, url], { encoding: 'utf8' });
    const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? '0';
    return { rate, tool: 'wrk -t1 -c32', detail: `non-2xx ${non2xx}` };
  } catch {
    const r = await load(() => url, 32, seconds * 1000);
    return {
      rate: r.requests / r.seconds,
      tool: 'node keep-alive loop, 32 connections',
      detail: `statuses ${JSON.stringify(Object.fromEntries(r.statuses))}`,
    };
  }
}

async function cachedThroughput(): Promise<void> {
  const dir = await demoSpace(1_000);
  const s = await serve(dir, ['--no-rate-limit']);
  try {
    const space = JSON.parse((await get(`${s.url}/v2/cdn/spaces/me?token=bench-public`)).body.toString());
    const cv = space.space.version;
    const list = JSON.parse(
      (
        await get(`${s.url}/v2/cdn/stories?token=bench-public&cv=${cv}&per_page=1&starts_with=articles/`)
      ).body.toString(),
    );
    const single = `${s.url}/v2/cdn/stories/${list.stories[0].full_slug}?token=bench-public&cv=${cv}`;
    const page = `${s.url}/v2/cdn/stories?token=bench-public&cv=${cv}&per_page=25&starts_with=articles`;
    for (const [label, url] of [
      ['single story', single],
      ['25-story page', page],
    ] as const) {
      const { body } = await get(url); // fill the CDN cache
      await hammer(url, 1); // warm up
      const r = await hammer(url, 4);
      console.log(
        `service: cached answers, ${label} (${(body.length / 1024).toFixed(1)} KiB): ${fmt(r.rate, 0)}/s on loopback (${r.tool}; ${r.detail}; target >= 10000/s)`,
      );
    }
  } finally {
    await s.stop();
  }
}

async function uncachedListing(stories: number, target: number, label: string, loadTarget?: number): Promise<void> {
  const dir = await demoSpace(stories);
  const [s, startMs] = await timed(() => serve(dir, ['--no-rate-limit']));
  try {
    const loaded = s.log.find((l) => l.startsWith('loaded')) ?? '';
    if (loadTarget !== undefined) {
      console.log(
        `service: ${label} space ready in ${fmt(startMs / 1000, 2)} s from process start (${loaded}; target < ${loadTarget / 1000} s)`,
      );
    }
    // The draft view is never cached: every request reaches the query engine.
    const base = `${s.url}/v2/cdn/stories?token=bench-preview&version=draft`;
    const queries = [
      (i: number) => `${base}&filter_query[component][in]=article&sort_by=content.title:asc&page=${(i % 4) + 1}`,
      (i: number) => `${base}&starts_with=articles&filter_query[reading_time][gt_int]=${i % 10}&per_page=25`,
      (i: number) => `${base}&with_tag=news,tech&sort_by=first_published_at:desc&page=${(i % 3) + 1}`,
      (i: number) => `${base}&search_term=${['lorem', 'shoe', 'guide', 'design'][i % 4]}&per_page=25`,
    ];
    for (let i = 0; i < 20; i++) await get(queries[i % queries.length]!(i)); // warm up
    const samples: number[] = [];
    const byShape: number[][] = queries.map(() => []);
    for (let i = 0; i < 200; i++) {
      const [res, ms] = await timed(() => get(queries[i % queries.length]!(i)));
      if (res.status !== 200) throw new Error(`status ${res.status}: ${res.body.toString().slice(0, 200)}`);
      samples.push(ms);
      byShape[i % queries.length]!.push(ms);
    }
    const shapes = ['component+text sort', 'starts_with+gt_int', 'with_tag+date sort', 'search_term'];
    const perShape = byShape.map((xs, k) => `${shapes[k]} ${fmt(percentile(xs, 50), 1)}`).join(', ');
    console.log(
      `service: ${label} uncached filtered listing p50 ${fmt(percentile(samples, 50), 2)} ms, p90 ${fmt(percentile(samples, 90), 2)} ms (200 requests, 4 query shapes; target < ${target} ms); p50 by shape: ${perShape} ms`,
    );
  } finally {
    await s.stop();
  }
}

export async function benchService(): Promise<void> {
  await cachedThroughput();
  await uncachedListing(10_000, 5, '10,000-story');
  await uncachedListing(100_000, 50, '100,000-story', 10_000);
}
