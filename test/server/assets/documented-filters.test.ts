/**
 * Filter arguments the CMS's image service documents are taken as it takes them: blur's radius
 * runs from 0 to 150 with an optional sigma (`blur(10,5)`), and rotate takes 0 (no turn) besides
 * 90, 180 and 270. A URL built for the real service must not be refused by its local double.
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
});
