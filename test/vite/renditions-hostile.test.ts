/**
 * Build-time renditions of hostile originals: an EXIF-rotated photo's renditions are shown the way
 * the original is (not sideways in the same srcset), and an original the image library cannot read
 * (cut short, empty) costs its renditions, not the build.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetFile } from '../../src/snapshot/index.js';
import { Renditions } from '../../src/vite/renditions.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-renditions-hostile-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function snapshotFile(name: string, bytes: Buffer, width: number, height: number) {
  const sha256 = (name.replace(/\W/g, '') + '0'.repeat(64)).slice(0, 64).replace(/[^0-9a-f]/g, 'a');
  const file = path.join(dir, `${sha256}.jpg`);
  await fs.writeFile(file, bytes);
  const asset: AssetFile = {
    url: `https://a.example/f/1/${width}x${height}/abcdef1234/${name}`,
    file: `assets/${sha256}.jpg`,
    sha256,
    bytes: bytes.length,
    type: 'image/jpeg',
    width,
    height,
  };
  return { file, asset };
}

describe('renditions of hostile originals', () => {
  it('an EXIF-rotated photo gets renditions shown in its orientation', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="600"><rect width="600" height="600" fill="red"/><rect x="600" width="600" height="600" fill="blue"/></svg>',
    );
    // Stored 1200x600, orientation 6: shown 600x1200 (portrait), as its URL names it.
    const bytes = await sharp(svg).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const { file, asset } = await snapshotFile('rotated.jpg', bytes, 600, 1200);
    const renditions = new Renditions(path.join(dir, 'cache-exif'), { widths: [300], quality: 70 });
    const made = await renditions.of(file, asset);
    expect(made.map((r) => r.width)).toEqual([300]);
    const shown = (await sharp(made[0]!.file).metadata()).autoOrient;
    expect(shown).toEqual({ width: 300, height: 600 });
  });

  it('an original cut short or empty gets no renditions instead of failing the build', async () => {
    const whole = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#a50' } })
      .jpeg()
      .toBuffer();
    const cut = await snapshotFile('cut.jpg', whole.subarray(0, whole.length / 2), 800, 600);
    const empty = await snapshotFile('empty.jpg', Buffer.alloc(0), 800, 600);
    const renditions = new Renditions(path.join(dir, 'cache-broken'), { widths: [400], quality: 70 });
    await expect(renditions.of(cut.file, cut.asset)).resolves.toEqual([]);
    await expect(renditions.of(empty.file, empty.asset)).resolves.toEqual([]);
  });
});
