/**
 * Build-time renditions of localized images: each raster image a generated
 * module uses, resized with sharp to every configured width below its own, in
 * its own format. They are kept in a cache directory under the original's
 * digest and the parameters (`q<quality>/<sha256>-<width>w.<ext>`), so a warm
 * build resizes nothing, and CI can keep the directory between builds; files
 * of assets the snapshot no longer holds are pruned after a build.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { assetExtension } from '../api/assets.js';
import { loadSharp } from '../server/assets/sharp.js';
import { type AssetFile, readAssetIndex } from '../snapshot/index.js';
import { isWholeImageFile } from './whole-image.js';

export interface RenditionOptions {
  widths: readonly number[];
  quality: number;
  /** The image library's module (tests point it at a missing one). */
  library?: string;
}

export interface Rendition {
  width: number;
  /** Absolute path of the resized file. */
  file: string;
}

/** How many renditions were made and how many were found in the cache. */
export interface RenditionCounts {
  resized: number;
  cached: number;
}

/** Extensions resized, and the format each is written in (the original's own). */
const FORMATS = { jpg: 'jpeg', jpeg: 'jpeg', png: 'png', webp: 'webp', avif: 'avif' } as const;
type Extension = keyof typeof FORMATS;

/** An original the image library cannot read (cut short, empty, not an image): it keeps its own URL only. */
class UnreadableImage extends Error {}

export class Renditions {
  readonly counts: RenditionCounts = { resized: 0, cached: 0 };
  /** Originals given no renditions because the image library could not read them, each with why. */
  readonly unreadable = new Map<string, string>();
  /** The counts at the end of the previous build (a client and a server build share this object). */
  #settled: RenditionCounts = { resized: 0, cached: 0 };
  /** One promise per rendition for the life of the plugin: a client and a server build share them. */
  readonly #made = new Map<string, Promise<string | undefined>>();
  /** Resizing is CPU-bound and holds decoded images in memory: one per core at a time. */
  readonly #work = new PQueue({ concurrency: availableParallelism() });

  constructor(
    readonly cacheDir: string,
    readonly options: RenditionOptions,
  ) {}

  /**
   * The renditions of a localized asset, narrowest first, each narrower than the file itself (whose
   * URL may name another size: a replaced asset keeps its URL); none for what is not a raster image.
   */
  async of(original: string, asset: AssetFile): Promise<Rendition[]> {
    const ext = assetExtension(asset.file) as Extension;
    if (!(ext in FORMATS) || !asset.width) return [];
    const wanted = [...new Set(this.options.widths)].filter((w) => w < asset.width).sort((a, b) => a - b);
    // The file's own width, read once and only when a rendition is to be made (a warm build reads none).
    let own: Promise<number> | undefined;
    const ownWidth = () => (own ??= this.#widthOf(original, asset));
    const made = await Promise.all(
      wanted.map(async (width) => {
        // One promise per rendition for the life of the plugin (a client and a server build share them).
        const file = path.join(this.cacheDir, `oriented-q${this.options.quality}`, `${asset.sha256}-${width}w.${ext}`);
        let making = this.#made.get(file);
        if (!making) {
          making = this.#make(original, asset, file, width, ext, ownWidth).catch((err: unknown) => {
            // One broken image costs its renditions (the page shows the original), not the build.
            if (!(err instanceof UnreadableImage)) throw err;
            this.unreadable.set(asset.url, err.message);
            return undefined;
          });
          this.#made.set(file, making);
        }
        return (await making) === undefined ? undefined : { width, file };
      }),
    );
    return made.filter((r) => r !== undefined);
  }

  async #make(
    original: string,
    asset: AssetFile,
    file: string,
    width: number,
    ext: Extension,
    ownWidth: () => Promise<number>,
  ): Promise<string | undefined> {
    // A file in the cache is taken when it is whole (a torn one, from a disk that filled or a cache
    // restored in part, is made again). It was made narrower than the file it was made from.
    if (await isWholeImageFile(file, FORMATS[ext])) {
      this.counts.cached++;
      return file;
    }
    if (width >= (await ownWidth())) return undefined;
    await this.#work.add(async () => {
      const sharp = await this.#sharp();
      const bytes = await sharp(original, { autoOrient: true })
        .resize({ width, withoutEnlargement: true })
        .toFormat(FORMATS[ext], { quality: this.options.quality })
        .toBuffer()
        .catch((err: Error) => {
          throw new UnreadableImage(`cannot resize ${asset.url} (${original}) to ${width} px: ${err.message}`, {
            cause: err,
          });
        });
      // Written whole, then renamed: a build killed halfway leaves no torn file in the cache.
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await fs.writeFile(temp, bytes);
      await fs.rename(temp, file);
    });
    this.counts.resized++;
    return file;
  }

  /** The width of the file itself, from its header (its URL's when the library cannot tell). */
  async #widthOf(original: string, asset: AssetFile): Promise<number> {
    const sharp = await this.#sharp();
    const meta = await sharp(original)
      .metadata()
      .catch((err: Error) => {
        throw new UnreadableImage(`cannot resize ${asset.url} (${original}): ${err.message}`, { cause: err });
      });
    // As shown (EXIF orientation), which is how the rendition is made.
    return meta.autoOrient?.width ?? meta.width ?? asset.width;
  }

  #sharp() {
    return loadSharp('resizing localized images at build time', this.options.library).catch((err: Error) => {
      throw new Error(`${err.message} (or turn resizing off: images: { widths: [] })`, { cause: err });
    });
  }

  /**
   * At the end of a build: what it resized and found since the last build, and the cache pruned of
   * files whose original the snapshot no longer holds.
   */
  async settle(snapshotDir: string): Promise<RenditionCounts> {
    const since = {
      resized: this.counts.resized - this.#settled.resized,
      cached: this.counts.cached - this.#settled.cached,
    };
    this.#settled = { ...this.counts };
    const index = await readAssetIndex(snapshotDir);
    if (index) await this.#prune(new Set(Object.values(index.files).map((f) => f.sha256)));
    return since;
  }

  async #prune(digests: ReadonlySet<string>): Promise<void> {
    const dirs = await fs.readdir(this.cacheDir).catch(() => [] as string[]);
    // Renditions made before they were turned as their original is shown (EXIF orientation): a photo's could be sideways.
    for (const dir of dirs.filter((d) => /^q\d+$/.test(d)))
      await fs.rm(path.join(this.cacheDir, dir), { recursive: true, force: true });
    for (const dir of dirs.filter((d) => /^oriented-q\d+$/.test(d))) {
      for (const name of await fs.readdir(path.join(this.cacheDir, dir))) {
        if (digests.has(name.slice(0, 64))) continue;
        await fs.rm(path.join(this.cacheDir, dir, name), { force: true });
      }
    }
  }
}
