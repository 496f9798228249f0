/**
 * Filter arguments the CMS's image service documents are taken as it takes them: blur's radius
 * runs from 0 to 150 with an optional sigma (`blur(10,5)`), and rotate takes 0 (no turn) besides
 * 90, 180 and 270; round_corner(A|B,R,G,B,T) rounds the corners. A URL built for the real service
 * must not be refused by its local double.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let photo: string;

beforeAll(async () => {
  server = await startTestServer({ space: generateDemoSpace({ stories: 10 }), admin: true, assetUrls: 'self' });
  const bytes = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const res = await fetch(`${server.url}/__admin/assets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'photo.png', data: bytes.toString('base64') }),
  });
  const { asset } = (await res.json()) as { asset: { filename: string } };
  photo = `${server.url}${new URL(asset.filename).pathname}`;
});
afterAll(() => server.close());

const render = async (ops: string) => {
  const res = await fetch(`${photo}/m/${ops}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { status: res.status, text: bytes.toString() };
  const meta = await sharp(bytes).metadata();
  return { status: res.status, size: `${meta.width}x${meta.height}`, bytes };
};

describe('filter arguments as the image service documents them', () => {
  it('blurs with a radius up to 150 and with an explicit sigma; refuses a radius beyond', async () => {
    expect(await render('200x0/filters:blur(150)')).toMatchObject({ status: 200, size: '200x133' });
    expect(await render('200x0/filters:blur(10,5)')).toMatchObject({ status: 200, size: '200x133' });
    expect(await render('200x0/filters:blur(151)')).toMatchObject({ status: 422 });
    expect(await render('200x0/filters:blur(10,)')).toMatchObject({ status: 422 });
  });

  it('takes rotate(0) as no turn at all', async () => {
    const turned = await render('200x100/filters:rotate(0)');
    const plain = await render('200x100');
    expect(turned).toMatchObject({ status: 200, size: '200x100' });
    expect(turned.bytes).toEqual(plain.bytes);
    expect(await render('200x100/filters:rotate(45)')).toMatchObject({ status: 422 });
  });

  it('rounds the corners: the colour given outside them, or transparent there; refuses a colour beyond 255', async () => {
    const rgba = async (ops: string, x: number, y: number) => {
      const res = await fetch(`${photo}/m/${ops}`);
      expect(res.status).toBe(200);
      const { data } = await sharp(Buffer.from(await res.arrayBuffer()))
        .ensureAlpha()
        .extract({ left: x, top: y, width: 1, height: 1 })
        .raw()
        .toBuffer({ resolveWithObject: true });
      return [...data];
    };
    const red = '100x100/filters:round_corner(30,255,0,0):format(png)';
    expect(await rgba(red, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(await rgba(red, 50, 50)).toEqual([0x33, 0x66, 0xcc, 255]);
    expect((await rgba('100x100/filters:round_corner(30|15,0,0,0,1):format(png)', 0, 0))[3]).toBe(0);
    // The | as a client may encode it.
    expect((await rgba('100x100/filters:round_corner(30%7C15,0,0,0,1):format(png)', 0, 0))[3]).toBe(0);
    expect(await render('100x100/filters:round_corner(30,256,0,0)')).toMatchObject({ status: 422 });
  });
});
