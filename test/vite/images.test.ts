/**
 * Build-time resizing of localized images: a build resizes each raster image
 * the content uses to the configured widths (real files, emitted by Vite with
 * hashed names, listed in the responsive helper's srcset); a warm build finds
 * every one in the cache and resizes nothing; other parameters resize again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { build, type InlineConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageAttributes } from '../../src/image/index.js';
import { type ContentSyncOptions, contentSync } from '../../src/index.js';
import { Renditions } from '../../src/vite/renditions.js';
import { type CapturingLogger, capturingLogger, clearContentEnv, project, removeDir } from './support.js';

const HELPER = path.resolve(import.meta.dirname, '../../src/image/index.ts');

/** A server entry that returns the helper's attributes for every localized image URL of every story. */
const ENTRY = `
import { entries, load } from 'content:index';
import { responsiveImage } from ${JSON.stringify(HELPER)};
const strings = (v, out) => {
  if (typeof v === 'string') out.push(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
};
export async function images() {
  const urls = new Set();
  for (const entry of entries) for (const s of strings(await load(entry), [])) if (/#\\d+x\\d+/.test(s)) urls.add(s);
  return [...urls].sort().map((url) => responsiveImage(url));
}
`;

let builds = 0;

async function buildSite(root: string, logger: CapturingLogger, images?: ContentSyncOptions['images']) {
  const plugin = contentSync({ embedded: { data: 'space', demo: { stories: 20 } }, assets: 'download', images });
  const config: InlineConfig = {
    root,
    configFile: false,
    customLogger: logger,
    logLevel: 'info',
    plugins: [plugin],
    // An output directory per build: each build's bundle is imported afresh.
    build: {
      ssr: 'entry.js',
      ssrEmitAssets: true,
      outDir: `dist-${++builds}`,
      emptyOutDir: true,
      rolldownOptions: { output: { entryFileNames: 'entry.js' } },
    },
  };
  await build(config);
  const dist = path.join(root, `dist-${builds}`);
  const bundle = (await import(pathToFileURL(path.join(dist, 'entry.js')).href)) as {
    images(): Promise<ImageAttributes[]>;
  };
  return { dist, counts: plugin.api.images, images: await bundle.images() };
}

describe('build-time resizing of localized images', () => {
  let root: string;
  beforeAll(async () => {
    clearContentEnv();
    root = await project('');
    await fs.writeFile(path.join(root, 'entry.js'), ENTRY);
  });
  afterAll(() => removeDir(root));

  it('resizes each image to the widths below its own, emits the files, and a warm build resizes nothing', async () => {
    const coldLog = capturingLogger();
    const cold = await buildSite(root, coldLog);
    expect(cold.counts.resized).toBeGreaterThan(5);
    expect(cold.counts.cached).toBe(0);
    expect(coldLog.text('info')).toContain(
      `content-sync: images: ${cold.counts.resized} resized, 0 from the cache (.content/image-cache)`,
    );
    // The first sync says what it downloaded.
    expect(coldLog.text('info')).toMatch(/content-sync: full sync \(cv \d+\): .*; [1-9]\d* assets? downloaded/);

    // Every candidate of every srcset is a file of the build, exactly as wide as its descriptor says.
    const withSrcset = cold.images.filter((img) => img.srcset);
    expect(withSrcset.length).toBeGreaterThan(2);
    let renditions = 0;
    for (const img of withSrcset) {
      const candidates = img.srcset!.split(', ').map((c) => c.split(' ') as [string, string]);
      expect(candidates.at(-1)![1]).toBe(`${img.width}w`);
      for (const [url, descriptor] of candidates) {
        expect(url).toMatch(/^\/assets\/[0-9a-f]{64}(-\d+w)?-[A-Za-z0-9_-]{8}\.(jpg|jpeg|png|webp|avif)$/);
        const meta = await sharp(path.join(cold.dist, url)).metadata();
        expect(`${meta.width}w`, url).toBe(descriptor);
        if (url.includes(`-${meta.width}w-`)) renditions++;
      }
      // The fallback src is the widest rendition, the original's size is kept for layout.
      expect(img.src).toBe(candidates.at(-2)![0]);
      expect(img.width! * img.height!).toBeGreaterThan(0);
    }
    expect(renditions).toBeGreaterThan(0);
    // Exactly the default widths below each original's own.
    const widths = new Set(
      withSrcset.flatMap((img) =>
        img
          .srcset!.split(', ')
          .slice(0, -1)
          .map((c) => c.split(' ')[1]),
      ),
    );
    expect([...widths].sort()).toEqual(expect.arrayContaining(['480w', '960w']));
    for (const w of widths) expect(['480w', '960w', '1440w', '1920w']).toContain(w);

    // A file of an asset the snapshot no longer holds is pruned by the next build.
    const cache = path.join(root, '.content/image-cache/oriented-q80');
    const stale = path.join(cache, `${'0'.repeat(64)}-480w.jpg`);
    await fs.writeFile(stale, 'stale');
    // So are renditions made before they were turned as their original is shown (EXIF orientation).
    const [made] = await fs.readdir(cache);
    const unoriented = path.join(cache, '..', 'q80', made!);
    await fs.mkdir(path.dirname(unoriented));
    await fs.writeFile(unoriented, 'perhaps sideways');

    const warmLog = capturingLogger();
    const warm = await buildSite(root, warmLog);
    await expect(fs.access(stale)).rejects.toThrow();
    await expect(fs.access(unoriented)).rejects.toThrow();
    expect((await fs.readdir(cache)).length).toBe(cold.counts.resized);
    expect(warm.counts).toEqual({ resized: 0, cached: cold.counts.resized });
    expect(warmLog.text('info')).toContain(`images: 0 resized, ${cold.counts.resized} from the cache`);
    expect(warm.images).toEqual(cold.images);

    // A cache file torn (cut short: its header intact), foreign or empty (a disk that filled, a cache
    // restored in part) is made again.
    const [torn, foreign, empty] = (await fs.readdir(cache)).sort();
    const whole = await fs.readFile(path.join(cache, torn!));
    await fs.writeFile(path.join(cache, torn!), whole.subarray(0, whole.length / 2));
    await fs.writeFile(path.join(cache, foreign!), 'garbage');
    await fs.writeFile(path.join(cache, empty!), '');
    const mended = await buildSite(root, capturingLogger());
    expect(mended.counts).toEqual({ resized: 3, cached: cold.counts.resized - 3 });
    expect(mended.images).toEqual(cold.images);
  }, 120_000);

  it('resizes again for other parameters, and not at all with no widths', async () => {
    const other = await buildSite(root, capturingLogger(), { quality: 50, widths: [480] });
    expect(other.counts.resized).toBeGreaterThan(0);
    expect(other.counts.cached).toBe(0);
    for (const img of other.images.filter((i) => i.srcset)) expect(img.srcset).toMatch(/^\S+-480w-\S+ 480w, \S+ \d+w$/);

    const none = await buildSite(root, capturingLogger(), { widths: [] });
    expect(none.counts).toEqual({ resized: 0, cached: 0 });
    for (const img of none.images) expect(img.srcset).toBeUndefined();
  }, 120_000);

  it('without sharp, says which feature needs it, how to install it, and how to do without', async () => {
    const [original] = (await fs.readdir(path.join(root, '.content/snapshot/assets'))).filter((f) =>
      f.endsWith('.jpg'),
    );
    const asset = { url: '', file: `assets/${original}`, sha256: 'f'.repeat(64), bytes: 1, type: 'image/jpeg' };
    const missing = new Renditions(path.join(root, 'no-cache'), { widths: [100], quality: 80, library: 'not-sharp' });
    await expect(
      missing.of(path.join(root, '.content/snapshot', asset.file), { ...asset, width: 800, height: 600 }),
    ).rejects.toThrow(
      'resizing localized images at build time needs the image library sharp, an optional peer dependency, and it is not installed: npm i -D sharp (or turn resizing off: images: { widths: [] })',
    );
    expect(missing.counts).toEqual({ resized: 0, cached: 0 });
  });
});
