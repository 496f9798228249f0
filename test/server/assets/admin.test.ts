/**
 * Assets through the control plane (add, replace, delete, each announced by a
 * signed asset webhook) and v2 `resolve_assets=1` pointing at servable files.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { verifyWebhook } from '../../../src/server/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const SECRET = 'asset-webhook-secret';
let server: TestServer;
let receiver: http.Server;
const deliveries: { body: Record<string, unknown>; valid: boolean }[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      deliveries.push({
        body: JSON.parse(raw.toString()),
        valid: verifyWebhook(raw, SECRET, String(req.headers['webhook-signature'])),
      });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startTestServer({
    space: generateDemoSpace({ stories: 30 }),
    admin: true,
    assetUrls: 'self',
    webhook: { url: hook, secret: SECRET },
  });
});
afterAll(async () => {
  await server.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${server.url}/__admin/assets${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

const png = (w: number, h: number, colour: string) =>
  sharp({ create: { width: w, height: h, channels: 3, background: colour } })
    .png()
    .toBuffer();

describe('assets through the control plane', () => {
  it('adds, replaces and deletes an asset, posting a signed asset webhook for each', async () => {
    const original = await png(320, 200, '#ff0000');
    const created = await admin('POST', '', { name: 'banner.png', data: original.toString('base64'), alt: 'A banner' });
    expect(created.status).toBe(201);
    const asset = created.body.asset;
    expect(asset).toMatchObject({ alt: 'A banner', title: null });
    expect(asset.filename).toMatch(/\/f\/287451\/320x200\/[0-9a-f]{10}\/banner\.png$/);
    const path = new URL(asset.filename).pathname;
    const first = Buffer.from(await (await fetch(server.url + path)).arrayBuffer());
    expect(first).toEqual(original);

    const rendition = `${server.url}${path}/m/10x10/filters:format(png)`;
    expect((await fetch(rendition)).status).toBe(200);
    const replacement = await png(320, 200, '#0000ff');
    expect((await admin('PUT', `/${asset.id}`, { data: replacement.toString('base64') })).status).toBe(200);
    const second = Buffer.from(await (await fetch(server.url + path)).arrayBuffer());
    expect(second).toEqual(replacement);
    // A rendition made before the replacement is not served after it.
    const { data } = await sharp(Buffer.from(await (await fetch(rendition)).arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0, 0, 255]);

    expect((await admin('DELETE', `/${asset.id}`)).status).toBe(200);
    expect((await fetch(server.url + path)).status).toBe(404);

    await server.service.settled();
    const assetHooks = deliveries.filter((d) => 'asset_id' in d.body);
    expect(assetHooks.map((d) => [d.body.action, d.body.asset_id, d.valid])).toEqual([
      ['created', asset.id, true],
      ['replaced', asset.id, true],
      ['deleted', asset.id, true],
    ]);
    expect(assetHooks[0]!.body.space_id).toBe(287451);
  });

  it('makes the same file uploaded twice two assets, each at its own URL and answering by its own id', async () => {
    const file = (await png(40, 30, '#00ff00')).toString('base64');
    const first = (await admin('POST', '', { name: 'twice.png', data: file, alt: 'first' })).body.asset;
    const second = (await admin('POST', '', { name: 'twice.png', data: file, alt: 'second' })).body.asset;
    expect(second.id).not.toBe(first.id);
    expect(second.filename).not.toBe(first.filename);
    // Each id still names its asset: replacing and deleting the first leaves the second alone.
    expect((await admin('PUT', `/${first.id}`, { data: file })).status).toBe(200);
    expect((await admin('DELETE', `/${first.id}`)).status).toBe(200);
    expect((await fetch(server.url + new URL(first.filename).pathname)).status).toBe(404);
    expect((await fetch(server.url + new URL(second.filename).pathname)).status).toBe(200);
  });

  it('deletes an asset that content references: its URL answers 404 from then on', async () => {
    const { body } = await server.api('/v2/cdn/stories', { resolve_assets: '1', per_page: '100' });
    const target = body.assets.find((a: { filename: string }) => a.filename.endsWith('.jpg'));
    expect((await fetch(target.filename)).status).toBe(200);
    expect((await admin('DELETE', `/${target.id}`)).status).toBe(200);
    expect((await fetch(target.filename)).status).toBe(404);
  });

  it('refuses bad input with 422 and unknown assets with 404', async () => {
    expect((await admin('POST', '', { name: '../evil.png', data: 'AAAA' })).status).toBe(422);
    expect((await admin('POST', '', { name: 'x.png' })).status).toBe(422);
    expect(
      (await admin('POST', '', { name: 'x.png', data: Buffer.from('not an image').toString('base64') })).status,
    ).toBe(422);
    expect((await admin('PUT', '/999999999', { data: 'AAAA' })).status).toBe(404);
    // Bytes that are no image put over an image: refused as an upload is.
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const added = await admin('POST', '', { name: 'kept.png', data: png.toString('base64') });
    const over = await admin('PUT', `/${added.body.asset.id}`, { data: Buffer.from('<p>no</p>').toString('base64') });
    expect(over.status).toBe(422);
    expect(over.body.error).toMatch(/kept\.png is not a readable image/);
    expect((await admin('DELETE', '/999999999')).status).toBe(404);
  });
});

describe('assets that content references', () => {
  it('serves an asset once a published change references it, and no longer once no content does', async () => {
    const story = (await server.api('/v2/cdn/stories', { per_page: '1' })).body.stories[0] as { id: number };
    const url = (hash: string) => `https://a.demo-assets.invalid/f/287451/40x30/${hash}/pasted.png`;
    const pathOf = (hash: string) => new URL(url(hash)).pathname;
    const reference = async (hash: string) => {
      const put = await fetch(`${server.url}/__admin/stories/${story.id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: { pasted: { fieldtype: 'asset', id: null, filename: url(hash) } } }),
      });
      expect(put.status).toBe(200);
      expect((await fetch(`${server.url}/__admin/stories/${story.id}/publish`, { method: 'POST' })).status).toBe(200);
    };
    expect((await server.get(pathOf('aaaaaaaaaa'))).status).toBe(404);
    await reference('aaaaaaaaaa');
    expect((await server.get(pathOf('aaaaaaaaaa'))).status).toBe(200);
    // The story's content is replaced again: the first file is referenced by nothing now.
    await reference('bbbbbbbbbb');
    expect((await server.get(pathOf('bbbbbbbbbb'))).status).toBe(200);
    expect((await server.get(pathOf('aaaaaaaaaa'))).status).toBe(404);
  });
});

describe('v2 resolve_assets=1', () => {
  it('lists the metadata of every referenced asset, each at a URL the service serves', async () => {
    const { body } = await server.api('/v2/cdn/stories', { resolve_assets: '1', per_page: '100' });
    expect(body.assets.length).toBeGreaterThan(5);
    for (const asset of body.assets) {
      expect(asset.filename.startsWith(`${server.url}/f/`)).toBe(true);
      expect(typeof asset.id).toBe('number');
      const res = await fetch(asset.filename, { method: 'HEAD' });
      expect([200, 404]).toContain(res.status); // 404 only for the asset deleted above
    }
  });
});
