/**
 * Hostile originals and rendition parameters at the image service: a side the request leaves at 0
 * is bounded like one it names, an EXIF-rotated photo keeps the orientation it is shown in, an
 * upload whose size cannot be written in an asset URL is refused, and an SVG cannot run script in
 * the service's origin (where its control plane answers).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ space: generateDemoSpace({ stories: 10 }), admin: true, assetUrls: 'self' });
});
afterAll(() => server.close());

const upload = (name: string, bytes: Buffer) =>
  fetch(`${server.url}/__admin/assets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, data: bytes.toString('base64') }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

const local = (filename: string) => `${server.url}${new URL(filename).pathname}`;

/** A PNG whose header declares `width` x `height` (one row of pixel data: the header is what is read). */
function declaredPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const byte of b) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth; colour type 0 (grey)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('hostile images at the image service', () => {
  it('refuses a rendition whose side left at 0 would be more than 4000 pixels, as it refuses one named so', async () => {
    const strip = await sharp({ create: { width: 1, height: 400, channels: 3, background: '#0a0' } })
      .png()
      .toBuffer();
    const { body } = await upload('tall-strip.png', strip);
    // 40 wide keeps the ratio: 40 x 16000, four times the largest side the service renders.
    const res = await fetch(`${local(body.asset.filename)}/m/40x0`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const size = res.status === 200 ? await sharp(bytes).metadata() : undefined;
    expect({ status: res.status, height: size?.height }).toEqual({ status: 422, height: undefined });
  });

  it('renders an EXIF-rotated photo the way it is shown (portrait), not sideways', async () => {
    // Stored 400x200 (red left half, blue right), with orientation 6: shown 200x400, red on top.
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="200" height="200" fill="red"/><rect x="200" width="200" height="200" fill="blue"/></svg>',
    );
    const photo = await sharp(svg).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const { body } = await upload('rotated.jpg', photo);
    const res = await fetch(`${local(body.asset.filename)}/m/100x0`);
    expect(res.status).toBe(200);
    const shown = (await sharp(Buffer.from(await res.arrayBuffer())).metadata()).autoOrient;
    expect(shown.height).toBeGreaterThan(shown.width);
  });

  it('does not accept an upload whose width cannot be written in an asset URL, leaving an asset that 404s', async () => {
    const { status, body } = await upload('wide.png', declaredPng(200_000, 1));
    if (status === 201) {
      // Accepted: then its URL must be one the CDN serves.
      const res = await fetch(local(body.asset.filename));
      expect(res.status, body.asset.filename).toBe(200);
    } else expect(status).toBe(422);
  });

  it('serves an SVG so that its script cannot run in the service origin (where /__admin/ answers)', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>fetch("/__admin/stories/1",{method:"DELETE"})</script></svg>',
    );
    const { body } = await upload('script.svg', svg);
    const res = await fetch(local(body.asset.filename));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy') ?? '').toMatch(/sandbox|script-src 'none'|default-src 'none'/);
  });
});
