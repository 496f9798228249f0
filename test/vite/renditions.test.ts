/**
 * The rendition cache on its own, with real files and the real sharp: a warm run takes every
 * rendition from the cache whatever its format (an AVIF reads back as HEIF), and a file narrower
 * than its URL says (a replaced asset keeps its URL) gets no rendition wider than itself.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetFile } from '../../src/snapshot/index.js';
import { Renditions } from '../../src/vite/renditions.js';
import { isWholeImageFile } from '../../src/vite/whole-image.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-renditions-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** An original of `width` x `height` in `format`, described as its URL names it (`named` wide). */
async function original(format: 'avif' | 'webp' | 'png', width: number, height: number, named = width) {
  const sha256 = `${format}${'0'.repeat(60)}${String(width).padStart(4, '0')}`.slice(-64);
  const file = path.join(dir, `${sha256}.${format}`);
  await sharp({ create: { width, height, channels: 3, background: '#3a6' } })
    .toFormat(format)
    .toFile(file);
  const asset: AssetFile = {
    url: `https://a.example/f/1/${named}x${height}/abcdef1234/picture.${format}`,
    file: `assets/${sha256}.${format}`,
    sha256,
    bytes: (await fs.stat(file)).size,
    type: `image/${format}`,
    width: named,
    height,
  };
  return { file, asset };
}

describe('renditions', () => {
  it('a warm run takes every rendition from the cache, AVIF included', async () => {
    const cache = path.join(dir, 'cache-warm');
    for (const format of ['avif', 'webp', 'png'] as const) {
      const { file, asset } = await original(format, 1200, 800);
      const cold = new Renditions(cache, { widths: [480, 960], quality: 60 });
      const made = await cold.of(file, asset);
      expect(
        made.map((r) => r.width),
        format,
      ).toEqual([480, 960]);
      expect(cold.counts, format).toEqual({ resized: 2, cached: 0 });
      const warm = new Renditions(cache, { widths: [480, 960], quality: 60 });
      expect(await warm.of(file, asset), format).toEqual(made);
      expect(warm.counts, format).toEqual({ resized: 0, cached: 2 });
    }
  });

  it('a file narrower than its URL says gets no rendition as wide as itself, nor an enlarged one', async () => {
    const { file, asset } = await original('png', 600, 400, 3000);
    const renditions = new Renditions(path.join(dir, 'cache-narrow'), { widths: [480, 960, 1440], quality: 60 });
    const made = await renditions.of(file, asset);
    expect(made.map((r) => r.width)).toEqual([480]);
    expect((await sharp(made[0]!.file).metadata()).width).toBe(480);
  });

  it('tells a whole image of each format from one cut short, without decoding it', async () => {
    const whole = async (bytes: Buffer, format: 'jpeg' | 'png' | 'webp' | 'avif') => {
      const file = path.join(dir, `whole-${format}`);
      await fs.writeFile(file, bytes);
      return isWholeImageFile(file, format);
    };
    for (const format of ['jpeg', 'png', 'webp', 'avif'] as const) {
      const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a3c' } })
        .toFormat(format)
        .toBuffer();
      expect(await whole(bytes, format), format).toBe(true);
      expect(await whole(bytes.subarray(0, bytes.length - 1), format), format).toBe(false);
      expect(await whole(bytes.subarray(0, bytes.length / 2), format), format).toBe(false);
      expect(await whole(Buffer.concat([bytes, Buffer.from([0])]), format), format).toBe(false);
      expect(await whole(Buffer.from('garbage'), format), format).toBe(false);
      expect(await whole(Buffer.alloc(0), format), format).toBe(false);
      expect(await isWholeImageFile(path.join(dir, 'no-such-file'), format), format).toBe(false);
    }
  });
});
