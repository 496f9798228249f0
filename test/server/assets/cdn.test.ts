/**
 * The local asset CDN: every asset the demo space references is served as
 * real bytes at the URL the API delivers, with the headers a CDN sends.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetReferences, parseAssetUrl } from '../../../src/api/assets.js';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let urls: string[];

beforeAll(async () => {
  server = await startTestServer({ space: generateDemoSpace({ stories: 60 }), assetUrls: 'self' });
  // Every asset URL the API delivers, across all published stories.
  const all = new Set<string>();
  for (let page = 1; ; page++) {
    const { body } = await server.api('/v2/cdn/stories', { per_page: '100', page: String(page) });
    for (const story of body.stories) for (const ref of assetReferences(story.content)) all.add(ref.url);
    if (body.stories.length < 100) break;
  }
  urls = [...all].sort();
});
afterAll(() => server.close());

describe('asset CDN', () => {
  it('changes nothing in an answer but the origin of its asset URLs, in every language', async () => {
    const stored = await startTestServer({ space: generateDemoSpace({ stories: 60 }) });
    try {
      for (const language of ['default', 'de', 'fr']) {
        const query = { per_page: '100', language };
        const [self, original] = await Promise.all([
          server.api('/v2/cdn/stories', query),
          stored.api('/v2/cdn/stories', query),
        ]);
        const originalText = JSON.stringify(original.body);
        const origin = /"(https?:\/\/[^/"]+)\/f\//.exec(originalText)![1]!;
        // Text beyond ASCII around the URLs (the translations).
        expect(Buffer.byteLength(originalText)).toBeGreaterThan(originalText.length);
        expect(JSON.stringify(self.body).replaceAll(`"${server.url}/f/`, `"${origin}/f/`)).toBe(originalText);
      }
    } finally {
      await stored.close();
    }
  });

  it('delivers asset URLs at its own origin, and serves each of them with its type, length and size', async () => {
    expect(urls.length).toBeGreaterThan(10);
    const kinds = new Set<string>();
    for (const url of urls) {
      expect(url.startsWith(`${server.url}/f/`)).toBe(true);
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
      const type = res.headers.get('content-type')!;
      kinds.add(type);
      const asset = parseAssetUrl(url)!;
      if (type === 'application/pdf') {
        expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
        continue;
      }
      const meta = await sharp(bytes).metadata();
      expect({ w: meta.width, h: meta.height }).toEqual({ w: asset.width, h: asset.height });
      const format = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/svg+xml': 'svg' }[type];
      expect(meta.format, url).toBe(format);
    }
    expect([...kinds].sort()).toEqual(['application/pdf', 'image/jpeg', 'image/png', 'image/svg+xml', 'image/webp']);
  });

  it('answers with a strong ETag, long-lived caching, 304 on a match and the same bytes every time', async () => {
    const url = urls.find((u) => u.endsWith('.jpg'))!;
    const a = await fetch(url);
    const bytes = Buffer.from(await a.arrayBuffer());
    expect(a.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = a.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    // A second service over the same space renders byte-identical files.
    const other = await startTestServer({ space: generateDemoSpace({ stories: 60 }) });
    try {
      const twin = await fetch(other.url + new URL(url).pathname);
      const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      expect(digest(Buffer.from(await twin.arrayBuffer()))).toBe(digest(bytes));
    } finally {
      await other.close();
    }
  });

  it('supports HEAD and byte ranges', async () => {
    const url = urls.find((u) => u.endsWith('.png'))!;
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(whole.length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${whole.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(10, 20));

    const tail = await fetch(url, { headers: { range: 'bytes=-7' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(whole.length - 7));

    const beyond = await fetch(url, { headers: { range: `bytes=${whole.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
  });

  it('answers 404 for files the space does not reference, and 405 for writes', async () => {
    const known = new URL(urls[0]!).pathname;
    const unknownHash = known.replace(/\/[0-9a-f]+\/([^/]+)$/, '/0000000000/$1');
    for (const path of [unknownHash, '/f/1/10x10/abc/x.jpg', '/f/', `${known}x`, '/f/287451/../../etc/passwd']) {
      const res = await server.get(path);
      expect(res.status, path).toBe(404);
    }
    expect((await server.get(known, { method: 'DELETE' })).status).toBe(405);
  });

  it('leaves stored URLs alone by default', async () => {
    const plain = await startTestServer({ space: generateDemoSpace({ stories: 20 }) });
    try {
      const { text } = await plain.api('/v2/cdn/stories', { per_page: '100' });
      expect(text).toContain('https://a.demo-assets.invalid/f/');
      expect(text).not.toContain(`${plain.url}/f/`);
    } finally {
      await plain.close();
    }
  });
});

describe('image service', () => {
  const jpg = () => urls.find((u) => u.endsWith('.jpg') && !u.includes('/0x0/'))!;

  it('resizes, keeping the ratio when one side is 0', async () => {
    const url = jpg();
    const { width, height } = parseAssetUrl(url)!;
    const res = await fetch(`${url}/m/400x0`);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect(meta.width).toBe(400);
    expect(meta.height).toBe(Math.round((height * 400) / width));
    expect(meta.format).toBe('jpeg');
  });

  it('/m/ alone answers WebP to a client that accepts it, the original format otherwise', async () => {
    const url = jpg();
    const webp = await fetch(`${url}/m/`, { headers: { accept: 'image/avif,image/webp,*/*' } });
    expect(webp.headers.get('content-type')).toBe('image/webp');
    expect(webp.headers.get('vary')).toBe('Accept');
    const plain = await fetch(`${url}/m/`, { headers: { accept: '*/*' } });
    expect(plain.headers.get('content-type')).toBe('image/jpeg');
  });

  it('crops to the box, fits inside with a fill, and applies format and quality filters', async () => {
    const url = jpg();
    const crop = await sharp(Buffer.from(await (await fetch(`${url}/m/300x300/smart`)).arrayBuffer())).metadata();
    expect([crop.width, crop.height]).toEqual([300, 300]);

    const fit = await fetch(`${url}/m/fit-in/300x300/filters:fill(ff0000):format(png)`);
    expect(fit.headers.get('content-type')).toBe('image/png');
    const fitted = sharp(Buffer.from(await fit.arrayBuffer()));
    expect((await fitted.metadata()).width).toBe(300);
    // The image is wider than tall: the top row is the fill colour.
    const { data } = await fitted
      .clone()
      .extract({ left: 150, top: 0, width: 1, height: 1 })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data]).toEqual([255, 0, 0]);

    const low = Buffer.from(await (await fetch(`${url}/m/600x0/filters:format(webp):quality(10)`)).arrayBuffer());
    const high = Buffer.from(await (await fetch(`${url}/m/600x0/filters:format(webp):quality(95)`)).arrayBuffer());
    expect((await sharp(low).metadata()).format).toBe('webp');
    expect(low.length).toBeLessThan(high.length);

    const avif = await fetch(`${url}/m/200x0/filters:format(avif)`);
    expect(avif.headers.get('content-type')).toBe('image/avif');
  });

  it('crops around the focus point', async () => {
    // A 200x100 image: left half black, right half white. Focus on the right.
    const raw = Buffer.alloc(200 * 100 * 3);
    for (let y = 0; y < 100; y++)
      for (let x = 100; x < 200; x++) raw.fill(255, (y * 200 + x) * 3, (y * 200 + x) * 3 + 3);
    const png = await sharp(raw, { raw: { width: 200, height: 100, channels: 3 } })
      .png()
      .toBuffer();
    const admin = await startTestServer({ space: generateDemoSpace({ stories: 20 }), admin: true });
    try {
      const created = await fetch(`${admin.url}/__admin/assets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'halves.png', data: png.toString('base64') }),
      });
      const { asset } = (await created.json()) as { asset: { filename: string } };
      const path = new URL(asset.filename).pathname;
      const pixel = async (query: string) => {
        const bytes = Buffer.from(await (await fetch(`${admin.url}${path}/m/${query}`)).arrayBuffer());
        const { data } = await sharp(bytes)
          .extract({ left: 25, top: 25, width: 1, height: 1 })
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        return data[0]!;
      };
      expect(await pixel('50x50/filters:focal(150x40:160x60):format(png)')).toBeGreaterThan(200);
      expect(await pixel('50x50/filters:focal(20x40:30x60):format(png)')).toBeLessThan(50);
    } finally {
      await admin.close();
    }
  });

  it('bounds what a URL or an original asks for: a strip under focal, quality(0), stand-ins named huge, an original that is no image', async () => {
    const admin = await startTestServer({ space: generateDemoSpace({ stories: 20 }), admin: true });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${admin.url}/__admin${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const size = async (url: string) => {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const { width, height } = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      return [width, height];
    };
    try {
      const strip = await sharp({ create: { width: 100, height: 1, channels: 3, background: '#0a0' } })
        .png()
        .toBuffer();
      const { body } = await call('POST', '/assets', { name: 'strip.png', data: strip.toString('base64') });
      const original = `${admin.url}${new URL(body.asset.filename).pathname}`;
      // The window of the strip that covers the box, scaled: not the whole strip scaled to 200000x2000 first.
      expect(await size(`${original}/m/2000x2000/filters:focal(0x0:1x1)`)).toEqual([2000, 2000]);
      expect(await size(`${original}/m/50x50/filters:quality(0):format(jpeg)`)).toEqual([50, 50]);
      // An original whose header reads but whose pixels do not (a JPEG cut short): a 422 that says so.
      const whole = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#a50' } })
        .jpeg()
        .toBuffer();
      const cut = await call('POST', '/assets', {
        name: 'cut.jpg',
        data: whole.subarray(0, whole.length / 2).toString('base64'),
      });
      const broken = await fetch(`${admin.url}${new URL(cut.body.asset.filename).pathname}/m/10x10`);
      expect(broken.status).toBe(422);
      expect(((await broken.json()) as { error: string }).error).toMatch(/cannot be transformed/);
      // Stand-ins for files the service does not hold, named larger than any is drawn: drawn smaller, in proportion.
      const space = admin.service.store.space.id;
      const named = (size: string, name: string) => `${admin.url}/f/${space}/${size}/abcdef1234/${name}`;
      const story = await call('POST', '/stories', {
        name: 'Huge',
        slug: 'huge',
        content: {
          component: 'page',
          body: [
            { component: 'hero', image: { fieldtype: 'asset', filename: named('30000x30000', 'square.png') } },
            { component: 'hero', image: { fieldtype: 'asset', filename: named('99999x10', 'strip.jpg') } },
          ],
        },
      });
      await call('POST', `/stories/${story.body.story.id}/publish`);
      expect(await size(named('30000x30000', 'square.png'))).toEqual([4000, 4000]);
      expect(await size(named('99999x10', 'strip.jpg'))).toEqual([8192, 1]);
    } finally {
      await admin.close();
    }
  });

  it('refuses absurd sizes and malformed operations with 422, and renders each rendition once', async () => {
    const url = jpg();
    for (const op of [
      '100000x100000',
      '5000x0',
      'fit-in/',
      '300x300/filters:quality(500)',
      '300x300/filters:format(bmp)',
      '300x300/filters:nope(1)',
      'banana',
    ]) {
      const res = await fetch(`${url}/m/${op}`);
      expect(res.status, op).toBe(422);
      expect(((await res.json()) as { error: string }).error.length).toBeGreaterThan(10);
    }
    const before = server.service.assets.renders;
    await Promise.all([1, 2, 3].map(() => fetch(`${url}/m/123x0`).then((r) => r.arrayBuffer())));
    await fetch(`${url}/m/123x0`).then((r) => r.arrayBuffer());
    expect(server.service.assets.renders - before).toBe(1);
  });

  it('serves SVGs and documents as they are under /m/', async () => {
    const svg = urls.find((u) => u.endsWith('.svg'))!;
    const original = await (await fetch(svg)).text();
    const res = await fetch(`${svg}/m/100x100`);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toBe(original);
  });
});
