import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../../src/server/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SECRET = 'webhook-secret-for-tests';
const SPACE_ID = 4242;

interface Delivery {
  method: string;
  contentType: string | undefined;
  signature: string | undefined;
  raw: Buffer;
  body: Record<string, unknown>;
}

/** A tiny receiver that answers 202 at once and keeps what it got. */
async function startReceiver(): Promise<{ url: string; deliveries: Delivery[]; close(): Promise<void> }> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = req.headers['webhook-signature'];
      deliveries.push({
        method: req.method ?? '',
        contentType: req.headers['content-type'],
        signature: Array.isArray(header) ? header[0] : header,
        raw,
        body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
      });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('webhooks of content changes', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: TestServer;

  beforeEach(async () => {
    receiver = await startReceiver();
    server = await startTestServer({ admin: true, webhook: { url: receiver.url, secret: SECRET } });
  });
  afterEach(async () => {
    await server.close();
    await receiver.close();
  });

  async function admin(method: string, path: string, body?: unknown): Promise<void> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const answer = await server.get(`/__admin${path}`, init);
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
  }

  /** The deliveries so far, after every webhook sent has arrived. */
  async function delivered(): Promise<Delivery[]> {
    await server.service.settled();
    return receiver.deliveries;
  }

  function expectSigned(d: Delivery): void {
    expect(d.method).toBe('POST');
    expect(d.contentType).toMatch(/application\/json/);
    expect(d.signature).toMatch(/^[0-9a-f]{40}$/);
    expect(verifyWebhook(d.raw, SECRET, d.signature)).toBe(true);
    expect(d.signature).toBe(createHmac('sha1', SECRET).update(d.raw).digest('hex'));
  }

  it('publish, unpublish and delete each post a signed story webhook', async () => {
    await admin('POST', '/stories/13/publish');
    await admin('POST', '/stories/13/unpublish');
    await admin('DELETE', '/stories/14');
    const got = await delivered();
    expect(got).toHaveLength(3);
    got.forEach(expectSigned);
    expect(got[0]!.body).toEqual({
      text: expect.any(String),
      action: 'published',
      space_id: SPACE_ID,
      story_id: 13,
      full_slug: 'blog/second-post',
    });
    expect(got[1]!.body).toMatchObject({
      text: expect.any(String),
      action: 'unpublished',
      space_id: SPACE_ID,
      story_id: 13,
    });
    expect(got[2]!.body).toMatchObject({
      text: expect.any(String),
      action: 'deleted',
      space_id: SPACE_ID,
      story_id: 14,
    });
    for (const d of got.slice(1)) {
      expect(Object.keys(d.body).sort()).toEqual(expect.arrayContaining(['action', 'space_id', 'story_id', 'text']));
      expect(
        Object.keys(d.body).every((k) => ['text', 'action', 'space_id', 'story_id', 'full_slug'].includes(k)),
      ).toBe(true);
    }
  });

  it('a move of a story or a folder posts moved with the new full slug', async () => {
    await admin('PUT', '/stories/12', { slug: 'premier' });
    await admin('PUT', '/stories/2', { slug: 'people' });
    const got = await delivered();
    expect(got).toHaveLength(2);
    got.forEach(expectSigned);
    expect(got[0]!.body).toEqual({
      text: expect.any(String),
      action: 'moved',
      space_id: SPACE_ID,
      story_id: 12,
      full_slug: 'blog/premier',
    });
    expect(got[1]!.body).toEqual({
      text: expect.any(String),
      action: 'moved',
      space_id: SPACE_ID,
      story_id: 2,
      full_slug: 'people',
    });
  });

  it('replacing datasource entries posts entries_updated with the datasource slug', async () => {
    await admin('PUT', '/datasources/colors/entries', { entries: [{ name: 'red', value: 'Red' }] });
    const got = await delivered();
    expect(got).toHaveLength(1);
    expectSigned(got[0]!);
    expect(got[0]!.body).toEqual({
      text: expect.any(String),
      action: 'entries_updated',
      space_id: SPACE_ID,
      datasource_slug: 'colors',
    });
  });

  it('changes that leave published content alone post nothing', async () => {
    await admin('PUT', '/stories/12', { content: { title: 'Only the draft' } });
    await admin('POST', '/stories', { name: 'Draft', parent_id: 1 });
    expect(await delivered()).toHaveLength(0);
  });

  it('an unreachable receiver does not break the service', async () => {
    await receiver.close();
    await admin('POST', '/stories/13/publish');
    await server.service.settled();
    expect((await server.api('/v2/cdn/stories/blog/second-post')).status).toBe(200);
  });
});

describe('verifyWebhook', () => {
  const body = JSON.stringify({ text: 'x', action: 'published', space_id: 1, story_id: 2 });
  const good = createHmac('sha1', SECRET).update(body).digest('hex');

  it('accepts the right signature over a string or the raw bytes', () => {
    expect(signWebhook(body, SECRET)).toBe(good);
    expect(verifyWebhook(body, SECRET, good)).toBe(true);
    expect(verifyWebhook(Buffer.from(body), SECRET, good)).toBe(true);
  });

  it('rejects wrong, missing and different-length signatures', () => {
    const flipped = (good[0] === 'a' ? 'b' : 'a') + good.slice(1);
    expect(verifyWebhook(body, SECRET, flipped)).toBe(false);
    expect(verifyWebhook(body, 'another-secret', good)).toBe(false);
    expect(verifyWebhook(`${body} `, SECRET, good)).toBe(false);
    expect(verifyWebhook(body, SECRET, undefined)).toBe(false);
    expect(verifyWebhook(body, SECRET, null)).toBe(false);
    expect(verifyWebhook(body, SECRET, '')).toBe(false);
    expect(verifyWebhook(body, SECRET, good.slice(0, -1))).toBe(false);
    expect(verifyWebhook(body, SECRET, `${good}00`)).toBe(false);
    expect(verifyWebhook(body, SECRET, createHmac('sha256', SECRET).update(body).digest('hex'))).toBe(false);
  });
});
