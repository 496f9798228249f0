import { afterEach, describe, expect, it } from 'vitest';
import { FaultSpecError, parseFaultSpec, type FaultKind, type FaultPlan } from '../../src/server/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

describe('parseFaultSpec', () => {
  it('reads every kind, slowms and seed', () => {
    expect(parseFaultSpec('429=0.1,503=0.05,reset=0.01,truncate=0.01,slow=0.01,slowms=50,seed=3')).toEqual({
      rates: { '429': 0.1, '503': 0.05, reset: 0.01, truncate: 0.01, slow: 0.01 },
      seed: 3,
      slowMs: 50,
    });
  });

  it('has defaults and tolerates spaces and empty items', () => {
    const plan = parseFaultSpec(' 500 = 0.2 ,, 502=0.1 ');
    expect(plan.rates).toEqual({ '500': 0.2, '502': 0.1 });
    expect(plan.seed).toBe(1);
    expect(plan.slowMs).toBeGreaterThan(0);
    expect(parseFaultSpec('')).toEqual({ rates: {}, seed: 1, slowMs: plan.slowMs });
  });

  it.each([
    ['503', /cannot read "503".*kind=rate/],
    ['503=', /cannot read/],
    ['503=abc', /cannot read/],
    ['418=0.1', /unknown kind "418".*429, 500, 502, 503, 504, reset, truncate, slow/],
    ['explode=0.1', /unknown kind "explode"/],
    ['503=1.5', /rate of 503 must be between 0 and 1/],
    ['503=-0.1', /cannot read|between 0 and 1/],
    ['503=0.6,500=0.6', /add up to more than 1/],
    ['503=1..2', /has no number|cannot read/],
    ['seed=x', /cannot read/],
  ])('rejects %s with a clear message', (spec, message) => {
    let error: unknown;
    try {
      parseFaultSpec(spec);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FaultSpecError);
    expect((error as Error).message).toMatch(/^--faults: /);
    expect((error as Error).message).toMatch(message);
  });
});

/** Sends the URLs in order, one at a time, and records what happened to each. */
async function outcomes(server: TestServer, urls: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const url of urls) {
    try {
      const res = await fetch(server.url + url, { redirect: 'manual' });
      const text = await res.text();
      try {
        JSON.parse(text);
        out.push(String(res.status));
      } catch {
        out.push(`${res.status} cut`);
      }
    } catch {
      out.push('failed');
    }
  }
  return out;
}

describe('fault injection over HTTP', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  async function start(plan: FaultPlan): Promise<TestServer> {
    const s = await startTestServer({ faults: plan });
    servers.push(s);
    return s;
  }
  const only = (kind: FaultKind, slowMs = 50): FaultPlan => ({ rates: { [kind]: 1 }, seed: 1, slowMs });
  const storyUrl = (cv: number) => `/v2/cdn/stories/blog/first-post?token=${PUBLIC}&cv=${cv}`;

  it('is deterministic: two services with the same seed decide the same for the same URLs', async () => {
    const plan = parseFaultSpec('429=0.15,500=0.1,503=0.1,truncate=0.1,reset=0.1,seed=11');
    const a = await start(plan);
    const b = await start(plan);
    const cv = a.service.store.space.version;
    const paths = ['blog/first-post', 'blog/second-post', 'authors/jane', 'home'];
    // Repeats of a URL count: decision n of a URL depends on n.
    const urls = Array.from(
      { length: 80 },
      (_, i) => `/v2/cdn/stories/${paths[i % paths.length]}?token=${PUBLIC}&cv=${cv}`,
    );
    const first = await outcomes(a, urls);
    const second = await outcomes(b, urls);
    expect(second).toEqual(first);
    // The plan's rates are high enough that both faults and successes occur.
    expect(first).toContain('200');
    expect(first.some((o) => o !== '200')).toBe(true);
    // A different seed decides differently.
    const c = await start({ ...plan, seed: 12 });
    expect(await outcomes(c, urls)).not.toEqual(first);
  });

  it.each(['429', '500', '502', '503', '504'] as const)('status %s with a JSON error body', async (kind) => {
    const s = await start(only(kind));
    const answer = await s.get(storyUrl(s.service.store.space.version));
    expect(answer.status).toBe(Number(kind));
    expect(answer.headers.get('content-type')).toMatch(/application\/json/);
    expect(answer.body).toEqual({ error: expect.any(String) });
    if (kind === '429') expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('reset: the connection is dropped without an answer', async () => {
    const s = await start(only('reset'));
    await expect(fetch(s.url + storyUrl(s.service.store.space.version))).rejects.toThrow();
  });

  it('truncate: the body is cut short', async () => {
    const s = await start(only('truncate'));
    let complete: unknown;
    try {
      const res = await fetch(s.url + storyUrl(s.service.store.space.version));
      expect(res.status).toBe(200);
      complete = JSON.parse(await res.text());
    } catch (err) {
      expect(err).toBeInstanceOf(Error);
      return;
    }
    expect.unreachable(`a truncated body parsed as ${JSON.stringify(complete).slice(0, 80)}`);
  });

  it('slow: the answer is delayed by slowms, then complete', async () => {
    const s = await start(only('slow', 300));
    const started = performance.now();
    const answer = await s.get(storyUrl(s.service.store.space.version));
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(200);
    expect(answer.body.story.id).toBe(12);
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });
});
