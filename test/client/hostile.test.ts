/**
 * The client against a hostile server on loopback (a proxy in front of the real local service, or
 * a server of its own): answers without end, compression bombs, declared sizes beyond reason,
 * `Retry-After` past what a timer holds, and redirects that would carry the token elsewhere.
 * Each ends in a clear error, quickly, having sent nothing where it should not.
 */
import type http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpaceEnvelope, StoriesEnvelopeV2 } from '../../src/api/index.js';
import { ContentClient, Pacer } from '../../src/client/index.js';
import { retryAfterSeconds } from '../../src/client/retry-after.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { queryOf, reply, startHostile, type Hostile } from './hostile.js';

let service: TestServer;
const started: Hostile[] = [];

async function hostile(...args: Parameters<typeof startHostile>): Promise<Hostile> {
  const h = await startHostile(...args);
  started.push(h);
  return h;
}

/** A client of `url`, unpaced (the service's rate limits are off), with a short retry budget. */
const client = (url: string, options: Partial<ConstructorParameters<typeof ContentClient>[0]> = {}) =>
  new ContentClient({
    baseUrl: url,
    token: PUBLIC,
    pacer: new Pacer({ target: 50 }),
    minBackoffMs: 10,
    maxRetryTimeMs: 20_000,
    ...options,
  });

const stories = (c: ContentClient) =>
  c.request({
    path: 'stories',
    params: { version: 'published', per_page: 25 },
    schema: StoriesEnvelopeV2,
    kind: 'list',
    withCv: true,
  });

const isStories = (req: http.IncomingMessage) => new URL(req.url ?? '/', 'http://x').pathname.endsWith('/cdn/stories');

beforeAll(async () => {
  service = await startTestServer();
});
afterAll(async () => {
  await Promise.all(started.map((h) => h.close()));
  await service?.close();
});

describe('response size', { timeout: 30_000 }, () => {
  it('an endless body ends with an error at the byte cap, and the connection is closed', async () => {
    let closed = false;
    const server = await hostile(undefined, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"space":{"name":"');
      const chunk = 'x'.repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => (closed = true));
      pump();
    });
    const c = client(server.url, { maxResponseBytes: 1024 * 1024 });
    await expect(c.request({ path: 'spaces/me', schema: SpaceEnvelope })).rejects.toThrow(
      /the answer of \/v2\/cdn\/spaces\/me goes on past the limit of 1048576 bytes \(after decompression\) \(1 MB\).*raise maxResponseBytes/,
    );
    await expect.poll(() => closed).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('a gzip bomb is stopped at the cap after decompression, not after the bytes on the wire', async () => {
    // 200 members of 1 MB of zeros each: about 200 KB on the wire, 200 MB decoded.
    const member = gzipSync(Buffer.alloc(1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: 200 }, () => member));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const server = await hostile(undefined, (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(bomb.length),
      });
      res.end(bomb);
    });
    const c = client(server.url, { maxResponseBytes: 4 * 1024 * 1024 });
    await expect(c.request({ path: 'spaces/me', schema: SpaceEnvelope })).rejects.toThrow(
      /goes on past the limit of 4194304 bytes \(after decompression\)/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a declared length beyond the cap is refused before the body is read', async () => {
    const server = await hostile(undefined, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 31) });
      res.write('{"space":');
    });
    const c = client(server.url);
    await expect(c.request({ path: 'spaces/me', schema: SpaceEnvelope })).rejects.toThrow(
      /declares 2147483648 bytes, more than the limit of 67108864 \(64 MB\)/,
    );
  });

  it('a body that trickles past the timeout ends with an error that says so, attempt after attempt', async () => {
    const server = await hostile(undefined, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      res.write('{"space":{"name":"');
      const trickle = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(trickle));
    });
    const c = client(server.url, { timeoutMs: 500, maxRetryTimeMs: 3_000 });
    await expect(c.request({ path: 'spaces/me', schema: SpaceEnvelope })).rejects.toThrow(/no answer from .* in time/);
    expect(server.requests.length).toBeGreaterThan(1);
  });

  it('answers within the cap are read as before', async () => {
    const c = client(service.url, { maxResponseBytes: 64 * 1024 });
    await c.space();
    expect((await stories(c)).body.stories.length).toBeGreaterThan(0);
  });
});

describe('answers that are not JSON', { timeout: 30_000 }, () => {
  it('a web page labelled application/json: said at once to be markup, not taken for a cut answer and retried', async () => {
    const server = await hostile(undefined, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('<!doctype html><html><body>Sign in to continue</body></html>');
    });
    const c = client(server.url);
    await expect(c.request({ path: 'spaces/me', schema: SpaceEnvelope })).rejects.toThrow(
      /200 from \/v2\/cdn\/spaces\/me is not JSON but markup \(a web page\), though labelled application\/json: .* check the base URL/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('JSON cut short, or an empty body, is still tried again', async () => {
    let answered = 0;
    const server = await hostile(undefined, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        ['', '{"space":{"id":1,'][answered++] ??
          '{"space":{"id":1,"name":"x","domain":"d","version":5,"language_codes":[]}}',
      );
    });
    const c = client(server.url);
    expect((await c.space()).version).toBe(5);
    expect(server.requests).toHaveLength(3);
  });
});

describe('Retry-After', { timeout: 30_000 }, () => {
  it('999999999 seconds: gives up at once with a clear error instead of retrying without end', async () => {
    const proxy = await hostile(service.url, async (req, res, forward) => {
      if (isStories(req)) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '999999999' });
        res.end('{"error":"Too Many Requests"}');
      } else reply(res, await forward());
    });
    const c = client(proxy.url, { maxRetryTimeMs: 10_000 });
    await c.space();
    await expect(stories(c)).rejects.toThrow(
      /429 from \/v2\/cdn\/stories: the service asks to wait 999999999 s \(Retry-After\), more than is left of the retry budget \(10 s per request, maxRetryTimeMs\)/,
    );
    expect(proxy.requests.filter((r) => r.includes('/cdn/stories'))).toHaveLength(1);
  });

  it('a wait the budget allows is waited, then the request succeeds', async () => {
    let refused = 0;
    const proxy = await hostile(service.url, async (req, res, forward) => {
      if (isStories(req) && refused++ === 0) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end('{"error":"Too Many Requests"}');
      } else reply(res, await forward());
    });
    const c = client(proxy.url);
    await c.space();
    const t0 = performance.now();
    expect((await stories(c)).body.stories.length).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(900);
    expect(c.stats.throttled).toBe(1);
  });

  it('a wait the budget allows ends at once when the request is stopped (SIGINT during a long Retry-After)', async () => {
    const pacer = new Pacer();
    pacer.throttled(300);
    const stop = new AbortController();
    const waiting = pacer.acquire(0.02, stop.signal);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });

  it('reads delta-seconds and HTTP dates; anything else is one second', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(null, now)).toBe(1);
    expect(retryAfterSeconds('soon', now)).toBe(1);
    expect(retryAfterSeconds('-5', now)).toBe(1);
  });

  it('a Retry-After sent twice (joined by ", ") is read, not taken as one second', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('60, 60', now)).toBe(60);
    expect(retryAfterSeconds('30,120', now)).toBe(120);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT, Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT, 90', now)).toBe(90);
  });

  it('the pacer never schedules past what a timer can hold', async () => {
    let t = 0;
    const sleeps: number[] = [];
    const pacer = new Pacer({
      now: () => t,
      sleep: async (ms) => {
        sleeps.push(ms);
        t += ms;
      },
    });
    pacer.throttled(999_999_999);
    await pacer.acquire(0.02);
    expect(sleeps).toEqual([2 ** 31 - 1]);
  });
});

describe('redirects', { timeout: 30_000 }, () => {
  it('to another origin: refused with a clear error; the other origin receives nothing, the token never leaves', async () => {
    const elsewhere = await hostile(undefined, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"stories":[],"cv":1,"rels":[],"links":[]}');
    });
    const proxy = await hostile(service.url, async (req, res, forward) => {
      if (isStories(req)) {
        res.writeHead(301, { location: `${elsewhere.url}${req.url}` });
        res.end();
      } else reply(res, await forward());
    });
    const c = client(proxy.url);
    await c.space();
    await expect(stories(c)).rejects.toThrow(
      new RegExp(
        `301 from /v2/cdn/stories redirects to ${elsewhere.url}, outside ${proxy.url}; redirects are followed only within the configured origin`,
      ),
    );
    expect(elsewhere.requests).toEqual([]);
  });

  it('within the origin (the v2 cache-version redirect, absolute or relative): followed', async () => {
    const proxy = await hostile(service.url, async (req, res, forward) => {
      const answer = await forward();
      // The service's Location is a path; half the time it is made absolute on the same origin.
      if (answer.status === 301 && req.url!.includes('per_page=25'))
        answer.headers.location = `${proxy.url}${answer.headers.location}`;
      reply(res, answer);
    });
    const c = client(proxy.url);
    await c.space();
    const current = c.cv!;
    c.cv = current - 1; // stale: the service redirects to the current version
    const first = await stories(c);
    const second = await c.request({
      path: 'stories',
      params: { version: 'published', per_page: 10 },
      schema: StoriesEnvelopeV2,
      kind: 'list',
      withCv: true,
    });
    expect(first.body.cv).toBe(current);
    expect(second.body.cv).toBe(current);
    expect(c.stats.redirects).toBe(2);
  });

  it('a cache version that moves on every answer: tried again, then an error that says so', async () => {
    let cv = 1000;
    const proxy = await hostile(service.url, async (req, res, forward) => {
      if (!isStories(req)) return reply(res, await forward());
      res.writeHead(301, { location: `/v2/cdn/stories?per_page=25&cv=${++cv}` });
      res.end();
    });
    const c = client(proxy.url, { retries: 2 });
    await c.space();
    await expect(stories(c)).rejects.toThrow(
      /301 from \/v2\/cdn\/stories: redirected a third time \(to \/v2\/cdn\/stories\?per_page=25&cv=\d+\); the service kept moving its cache version/,
    );
    // Three answers an attempt, three attempts.
    expect(proxy.requests.filter((r) => r.startsWith('/v2/cdn/stories')).length).toBe(9);
  });

  it('to the very URL asked (a loop): refused at once as a loop, not asked again and again as a moving cache version', async () => {
    const proxy = await hostile(service.url, async (req, res, forward) => {
      if (!isStories(req)) return reply(res, await forward());
      res.writeHead(301, { location: req.url });
      res.end();
    });
    const c = client(proxy.url);
    await c.space();
    await expect(stories(c)).rejects.toThrow(
      /301 from \/v2\/cdn\/stories redirects to the URL asked for itself \(a redirect loop\)/,
    );
    expect(proxy.requests.filter((r) => r.startsWith('/v2/cdn/stories'))).toHaveLength(1);
  });

  it('a cache version that keeps moving: the error shows where it led without the token the Location carries', async () => {
    let cv = 1000;
    const proxy = await hostile(service.url, async (req, res, forward) => {
      if (!isStories(req)) return reply(res, await forward());
      // As the service redirects: the request's query, token included, with the new cache version.
      const query = queryOf(req);
      query.set('cv', String(++cv));
      res.writeHead(301, { location: `/v2/cdn/stories?${query}` });
      res.end();
    });
    const c = client(proxy.url, { retries: 0 });
    await c.space();
    const failure = await stories(c).catch((err: Error) => err);
    expect((failure as Error).message).toMatch(/redirected a third time \(to \/v2\/cdn\/stories\?.*token=…/);
    expect((failure as Error).message).not.toContain(PUBLIC);
  });
});

describe('an address fetch never connects to', () => {
  it('fails at once, naming the port, instead of retrying a "bad port"', async () => {
    // Port 6000 is on the Fetch standard's list: fetch refuses it before any connection.
    const c = client('http://127.0.0.1:6000');
    await expect(c.space()).rejects.toThrow(/fetch refuses to connect to port 6000/);
    expect(c.stats.retries).toBe(0);
  });
});
