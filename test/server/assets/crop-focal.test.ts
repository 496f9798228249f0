/**
 * A focal box is in the original's coordinates (the asset's focus field), also when the URL crops
 * first: the image service keeps that spot in frame within the crop.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let original: string;

beforeAll(async () => {
  server = await startTestServer({ space: generateDemoSpace({ stories: 10 }), admin: true, assetUrls: 'self' });
  // 400x200: black left of x = 250, white from there on.
  const raw = Buffer.alloc(400 * 200 * 3);
  for (let y = 0; y < 200; y++) raw.fill(255, (y * 400 + 250) * 3, (y * 400 + 400) * 3);
  const png = await sharp(raw, { raw: { width: 400, height: 200, channels: 3 } })
    .png()
    .toBuffer();
  const res = await fetch(`${server.url}/__admin/assets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'edge.png', data: png.toString('base64') }),
  });
  const { asset } = (await res.json()) as { asset: { filename: string } };
  original = `${server.url}${new URL(asset.filename).pathname}`;
});
afterAll(() => server.close());

/** The red channel of the rendition's pixel at x, y. */
async function pixel(ops: string, x: number, y: number): Promise<number> {
  const res = await fetch(`${original}/m/${ops}`);
  expect(res.status).toBe(200);
  const { data } = await sharp(Buffer.from(await res.arrayBuffer()))
    .extract({ left: x, top: y, width: 1, height: 1 })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return data[0]!;
}

describe('a crop with a focal box', () => {
  it('keeps the focal box, given in the original, in frame within the crop', async () => {
    // The crop is x 200 to 400 (black up to its x 50); the focus at the original's x 210-220 is
    // near the crop's left edge, so the 50x100 cut shows that black edge on its left.
    expect(await pixel('200x0:400x200/50x100/filters:focal(210x90:220x110):format(png)', 5, 50)).toBeLessThan(50);
    // Focused on the crop's right end: all white.
    expect(await pixel('200x0:400x200/50x100/filters:focal(380x90:390x110):format(png)', 5, 50)).toBeGreaterThan(200);
  });
});
