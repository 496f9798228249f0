/**
 * `content-sync sync` when things go wrong, run as a user runs it (a child
 * process): a clear message, a non-zero exit, and the previous snapshot left
 * exactly as it was (bytes and modification times). And its output when
 * things go right: one summary line, or JSON with `--json`.
 */
import { existsSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import { sync } from '../../../src/sync/index.js';
import { reply, startHostile } from '../../client/hostile.js';
import { collect, runCli, spawnCli } from '../../helpers/cli.js';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { mtimes, readTree, removeTempDirs, tempDir } from '../support.js';

const DEMO_TOKEN = 'demo-public';

let fixture: TestServer;
let demo: RunningServer;
let root: string;
/** A complete snapshot of the fixture space (space 4242), copied by each test that needs one. */
let fixtureSnapshot: string;
let dirs = 0;

interface Picture {
  tree: Map<string, string>;
  mtimes: Map<string, number>;
  manifest: string;
}

async function picture(dir: string): Promise<Picture> {
  return {
    tree: await readTree(dir),
    mtimes: await mtimes(dir),
    manifest: await readFile(path.join(dir, 'manifest.json'), 'utf8'),
  };
}

/** A fresh copy of the fixture snapshot, and what it looks like. */
async function previousSnapshot(): Promise<{ dir: string; before: Picture }> {
  const dir = path.join(root, `dir-${++dirs}`);
  await cp(fixtureSnapshot, dir, { recursive: true, preserveTimestamps: true });
  return { dir, before: await picture(dir) };
}

async function expectUntouched(dir: string, before: Picture): Promise<void> {
  const after = await picture(dir);
  expect([...after.tree.keys()]).toEqual([...before.tree.keys()]);
  expect(after.tree).toEqual(before.tree);
  expect(after.manifest).toBe(before.manifest);
  expect(after.mtimes).toEqual(before.mtimes);
  expect(existsSync(path.join(dir, '.txn'))).toBe(false);
}

/** A plain HTTP server (not the service) answering every request with `handler`. */
async function startPlainServer(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A loopback port on which nothing listens (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const s = await startPlainServer(() => undefined);
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}

beforeAll(async () => {
  root = await tempDir('errors');
  fixture = await startTestServer();
  demo = await startServer({ space: generateDemoSpace({ stories: 10 }), publicToken: DEMO_TOKEN, rateLimit: false });
  fixtureSnapshot = path.join(root, 'fixture');
  await sync({ baseUrl: fixture.url, token: PUBLIC, out: fixtureSnapshot });
});
afterAll(async () => {
  await fixture?.close();
  await demo?.close();
  await removeTempDirs();
});

describe.concurrent('content-sync sync fails clearly and loses nothing', { timeout: 60_000 }, () => {
  it('nothing listening at the address: names it, exits non-zero', async ({ expect }) => {
    const { dir, before } = await previousSnapshot();
    const port = await closedPort();
    const r = await runCli(['sync', '--base-url', `http://127.0.0.1:${port}`, '--token', PUBLIC, '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(r.stderr).toMatch(/connection refused/);
    expect(r.stdout).toBe('');
    await expectUntouched(dir, before);
  });

  it('a base URL whose path is not the API (404): says to check the base URL and names it', async ({ expect }) => {
    const { dir, before } = await previousSnapshot();
    const r = await runCli(['sync', '--base-url', `${fixture.url}/api`, '--token', PUBLIC, '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('404 from /v2/cdn/spaces/me');
    expect(r.stderr).toContain(`${fixture.url}/api`);
    expect(r.stderr).toContain('CONTENT_BASE_URL');
    await expectUntouched(dir, before);
  });

  it('a web server that is not the API (HTML): says so at once instead of retrying', async ({ expect }) => {
    const web = await startPlainServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body><h1>Welcome</h1></body></html>');
    });
    try {
      const { dir, before } = await previousSnapshot();
      const r = await runCli(['sync', '--base-url', web.url, '--token', PUBLIC, '--out', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('/v2/cdn/spaces/me');
      expect(r.stderr).toContain('text/html');
      expect(r.stderr).toContain(web.url);
      expect(r.stderr).toContain('CONTENT_BASE_URL');
      await expectUntouched(dir, before);
    } finally {
      await web.close();
    }
  });

  it('a 404 page in HTML from a web server: no markup in the message', async ({ expect }) => {
    const web = await startPlainServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
    });
    try {
      const { dir, before } = await previousSnapshot();
      const r = await runCli(['sync', '--base-url', web.url, '--token', PUBLIC, '--out', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('404 from /v2/cdn/spaces/me');
      expect(r.stderr).toContain('an HTML page');
      expect(r.stderr).not.toContain('<html>');
      await expectUntouched(dir, before);
    } finally {
      await web.close();
    }
  });

  it('the token of another space: names both spaces, leaves the snapshot alone', async ({ expect }) => {
    const { dir, before } = await previousSnapshot();
    for (const full of [false, true]) {
      const r = await runCli([
        'sync',
        '--base-url',
        demo.url,
        '--token',
        DEMO_TOKEN,
        '--out',
        dir,
        ...(full ? ['--full'] : []),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('space 287451');
      expect(r.stderr).toContain('space 4242');
      expect(r.stderr).toContain(dir);
      await expectUntouched(dir, before);
    }
  });

  it('a wrong token (401): mentions CONTENT_TOKEN', async ({ expect }) => {
    const { dir, before } = await previousSnapshot();
    const r = await runCli(['sync', '--base-url', fixture.url, '--token', 'not-a-token', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('401 from /v2/cdn/spaces/me');
    expect(r.stderr).toContain('CONTENT_TOKEN');
    await expectUntouched(dir, before);
  });

  it('an answer that violates the schema: names the endpoint and the path inside the body', async ({ expect }) => {
    // The one failure the real service cannot produce: a tiny stand-in that breaks the contract.
    const space = {
      id: 4242,
      name: 'Fixture space',
      domain: 'https://fixture.example.com/',
      version: 1_700_000_000,
      language_codes: ['de'],
    };
    const fake = await startPlainServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('content-type', 'application/json');
      if (url.pathname === '/v2/cdn/spaces/me') {
        res.end(JSON.stringify({ space }));
        return;
      }
      res.setHeader('total', '1');
      res.setHeader('per-page', '25');
      res.end(JSON.stringify({ stories: [{ id: 'x' }] }));
    });
    try {
      const { dir, before } = await previousSnapshot();
      const r = await runCli(['sync', '--base-url', fake.url, '--token', PUBLIC, '--out', dir, '--full']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('/v2/cdn/stories');
      expect(r.stderr).toContain('stories[0].id');
      await expectUntouched(dir, before);
    } finally {
      await fake.close();
    }
  });

  it('--json on failure: {"ok":false,"error":...} on standard output', async ({ expect }) => {
    const { dir, before } = await previousSnapshot();
    const r = await runCli(['sync', '--base-url', fixture.url, '--token', 'not-a-token', '--out', dir, '--json']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!) as { ok: boolean; error: string };
    expect(out.ok).toBe(false);
    expect(out.error).toContain('401');
    expect(out.error).toContain('CONTENT_TOKEN');
    await expectUntouched(dir, before);
  });
});

describe('content-sync sync stopped while the service asks it to wait', () => {
  it('SIGINT during a Retry-After of minutes: exits 130 at once, the previous snapshot as it was', {
    timeout: 60_000,
  }, async () => {
    let throttled = false;
    const proxy = await startPlainServer(async (req, res) => {
      if (new URL(req.url ?? '/', 'http://x').pathname.endsWith('/cdn/stories')) {
        throttled = true;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '300' });
        res.end('{"error":"Too Many Requests"}');
        return;
      }
      const answer = await fetch(fixture.url + req.url, { redirect: 'manual' });
      const location = answer.headers.get('location');
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        ...(location ? { location } : {}),
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    try {
      const { dir, before } = await previousSnapshot();
      const child = spawnCli(['sync', '--base-url', proxy.url, '--token', PUBLIC, '--out', dir, '--full']);
      const done = collect(child);
      while (!throttled && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(130);
      expect(r.stderr).toMatch(/SIGINT: stopped; the previous snapshot in .* is untouched/);
      await expectUntouched(dir, before);
    } finally {
      await proxy.close();
    }
  });
});

describe('content-sync sync when the service goes away mid-sync', () => {
  it('exits non-zero and leaves the previous snapshot exactly as it was', { timeout: 60_000 }, async () => {
    const server = await startServer({ space: generateDemoSpace({ stories: 200 }), rateLimit: false, latencyMs: 20 });
    let closed = false;
    try {
      const dir = path.join(root, 'midway');
      await sync({ baseUrl: server.url, token: 'local-public-token', out: dir });
      const before = await picture(dir);
      const child = spawnCli([
        'sync',
        '--base-url',
        server.url,
        '--token',
        'local-public-token',
        '--out',
        dir,
        '--full',
      ]);
      const done = collect(child);
      // Close the service once the sync has opened its transaction and is reading.
      while (!existsSync(path.join(dir, '.txn')) && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
      expect(child.exitCode).toBeNull();
      await server.close();
      closed = true;
      const r = await done;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(server.url);
      await expectUntouched(dir, before);
    } finally {
      if (!closed) await server.close();
    }
  });
});

describe.concurrent('content-sync sync output on success', { timeout: 60_000 }, () => {
  it('off a terminal: exactly one summary line', async ({ expect }) => {
    const dir = path.join(root, 'summary');
    const r = await runCli(['sync', '--base-url', fixture.url, '--token', PUBLIC, '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^synced space 4242 \(cv \d+\) into .+: full: \d+ stories written/);
  });

  it('a service that fails before it answers: each retry is said on standard error as it happens', async ({
    expect,
  }) => {
    let failures = 2;
    const flaky = await startHostile(fixture.url, async (_req, res, forward) => {
      if (failures-- > 0) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":"unavailable"}');
        return;
      }
      reply(res, await forward());
    });
    try {
      const dir = path.join(root, 'retried');
      const r = await runCli(['sync', '--base-url', flaky.url, '--token', PUBLIC, '--out', dir]);
      expect(r.code).toBe(0);
      const said = r.stderr.split('\n').filter((l) => l !== '');
      expect(said).toHaveLength(2);
      expect(said[0]).toMatch(/^content-sync sync: 503 .*spaces\/me.*; trying again \(8 attempts left\)$/);
      expect(said[1]).toMatch(/; trying again \(7 attempts left\)$/);
    } finally {
      await flaky.close();
    }
  });

  it('--json: the summary as one JSON object', async ({ expect }) => {
    const dir = path.join(root, 'json');
    const r = await runCli(['sync', '--base-url', fixture.url, '--token', PUBLIC, '--out', dir, '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(out).toMatchObject({ ok: true, mode: 'full', space: 4242, retries: 0, throttled: 0 });
    expect(out.counts).toMatchObject({ stories: expect.any(Number), datasources: expect.any(Number) });
    expect(out.requests).toEqual(expect.any(Number));
    expect(out.bytes).toEqual(expect.any(Number));
    expect(out.duration_ms).toEqual(expect.any(Number));
  });
});
