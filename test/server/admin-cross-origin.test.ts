/**
 * The control plane changes the space without a token: a page of another site open in the
 * developer's browser (a simple request needs no preflight: a text/plain POST, a form post) or
 * one reached through DNS rebinding (its own name resolving to 127.0.0.1) must not use it.
 * Clients that are no browser (curl, Node, another container) send neither Origin nor
 * Sec-Fetch-Site and are served as before.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../e2e/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { rawRequest } from './conformance/support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ admin: true });
});
afterAll(() => server.close());

/** A published story, as the control plane lists them (to a client that is no browser). */
const storyId = async (): Promise<number> =>
  (
    (await server.get('/__admin/stories')).body as { stories: { id: number; is_folder: boolean; published: boolean }[] }
  ).stories.find((s) => !s.is_folder && s.published)!.id;
/** The stored record of a story, every view. */
const stored = async (id: number): Promise<string> => (await server.get(`/__admin/stories/${id}`)).text;

describe('control plane: requests of a browser page of another origin', () => {
  it('a text/plain POST from another site (no preflight) is refused, and publishes nothing', async () => {
    const version = server.service.store.space.version;
    const r = await rawRequest(server.url, `/__admin/stories/${await storyId()}/publish`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(r.status).toBe(403);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(server.service.store.space.version).toBe(version);
  });

  it('a text/plain PUT of JSON from another site changes no story', async () => {
    const id = await storyId();
    const before = await stored(id);
    const r = await rawRequest(server.url, `/__admin/stories/${id}`, {
      method: 'PUT',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
      body: JSON.stringify({ content: { component: 'page', title: 'owned' } }),
    });
    expect(r.status).toBe(403);
    expect(await stored(id)).toBe(before);
  });

  it('a form post whose Origin is opaque (null: a sandboxed frame, a data: URL) is refused', async () => {
    const r = await rawRequest(server.url, '/__admin/stats/reset', {
      method: 'POST',
      headers: { origin: 'null', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(r.status).toBe(403);
  });

  it('a preflight from another site grants no write, and a read of the drafts is refused', async () => {
    const pre = await rawRequest(server.url, `/__admin/stories/${await storyId()}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' },
    });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.headers['access-control-allow-methods'] ?? '').not.toMatch(/DELETE/);
    const read = await rawRequest(server.url, '/__admin/stories', {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
    });
    expect(read.status).toBe(403);
    expect(read.text).not.toContain('full_slug');
  });

  it('a page of a rebound name (evil.example resolving to 127.0.0.1) is refused, same-origin as it is', async () => {
    const port = new URL(server.url).port;
    const host = `evil.example:${port}`;
    const write = await rawRequest(server.url, '/__admin/stats/reset', {
      method: 'POST',
      headers: { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(write.status).toBe(403);
    const read = await rawRequest(server.url, '/__admin/stories', {
      headers: { host, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' },
    });
    expect(read.status).toBe(403);
  });

  it("the service's own origin, a URL typed in the address bar, and clients that are no browser are served", async () => {
    const own = new URL(server.url);
    const sameOrigin = await rawRequest(server.url, '/__admin/stats/reset', {
      method: 'POST',
      headers: { origin: own.origin, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
    const typed = await rawRequest(server.url, '/__admin/stories', { headers: { 'sec-fetch-site': 'none' } });
    expect(typed.status).toBe(200);
    const localhost = await rawRequest(server.url, '/__admin/stories', {
      headers: { host: `localhost:${own.port}`, 'sec-fetch-site': 'none' },
    });
    expect(localhost.status).toBe(200);
    // curl, Node's fetch, a container that names the service by its compose name: no browser markers.
    expect((await server.get('/__admin/stories')).status).toBe(200);
    const named = await rawRequest(server.url, '/__admin/stories', { headers: { host: `content:${own.port}` } });
    expect(named.status).toBe(200);
  });

  it('the delivery API stays open to every origin, as the contract has it', async () => {
    const r = await rawRequest(server.url, '/v2/cdn/spaces/me?token=test-public', {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('control plane: a page of another site in a real browser', () => {
  it('reads no story, resets nothing with a no-cors POST, deletes nothing', async () => {
    // The other site: a page at another loopback address, as any site's page would be.
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.2', resolve));
    const browser = await launchBrowser();
    try {
      const since = (await server.get('/__admin/stats')).body.since as string;
      const id = await storyId();
      const before = await stored(id);
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.2:${(site.address() as AddressInfo).port}/`);
      const seen = await page.evaluate(
        async ({ base, id }) => {
          const attempt = (f: () => Promise<string>) => f().catch(() => 'failed');
          return {
            reset: await attempt(
              async () =>
                (await fetch(`${base}/__admin/stats/reset`, { method: 'POST', mode: 'no-cors', body: '{}' })).type,
            ),
            read: await attempt(async () => (await (await fetch(`${base}/__admin/stories`)).text()).slice(0, 40)),
            remove: await attempt(async () =>
              String((await fetch(`${base}/__admin/stories/${id}`, { method: 'DELETE' })).status),
            ),
          };
        },
        { base: server.url, id },
      );
      expect(seen).toEqual({ reset: 'opaque', read: 'failed', remove: 'failed' });
      expect((await server.get('/__admin/stats')).body.since).toBe(since);
      expect(await stored(id)).toBe(before);
    } finally {
      await browser.close();
      site.close();
    }
  });
});
