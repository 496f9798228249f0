/**
 * Localized assets in the build: asset URLs inside the generated content
 * modules become imports of the snapshot's files, so Vite treats them as
 * assets of the build (hashed names in dist, emitted only when a page's
 * modules use them). The original's size stays on the URL as a `#WxH`
 * fragment, so pages still know width and height. In a build, raster images
 * also get resized renditions (renditions.ts), imported the same way and
 * listed in the fragment as `&<width>=<url>` for the responsive helper:
 * `/assets/<digest>-<hash>.jpg#2400x1600&480=%2Fassets%2F<digest>-480w-<hash>.jpg`.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { parseAssetUrl } from '../api/assets.js';
import { ASSET_INDEX, type AssetFile, type AssetIndex, readAssetIndex } from '../snapshot/index.js';
import type { Rendition, Renditions } from './renditions.js';

/** A double-quoted string literal holding an asset URL, as the module emitter writes it. */
const ASSET_LITERAL = /"(https?:\/\/[^"\\\s/]+\/f\/\d+\/\d+x\d+\/[A-Za-z0-9_-]+\/[^"\\/\s]+)"/g;

/** ASSET_LITERAL without the global flag: `test` with a global one leaves its lastIndex past the match, where `matchAll` would start. */
const ANY_ASSET_LITERAL = new RegExp(ASSET_LITERAL.source);

/** Whether a module has a string literal holding an asset URL (that AssetImports may rewrite). */
export function hasAssetUrl(code: string): boolean {
  return ANY_ASSET_LITERAL.test(code);
}

export class AssetImports {
  readonly #snapshotDir: string;
  readonly #renditions: Renditions | undefined;
  #cached: { stamp: number; index: Promise<AssetIndex | undefined> } | undefined;

  constructor(snapshotDir: string, renditions?: Renditions) {
    this.#snapshotDir = snapshotDir;
    this.#renditions = renditions;
  }

  /** What decides the renditions a rewritten module names (their widths and quality), as text. */
  get renditionKey(): string {
    return JSON.stringify(this.#renditions?.options ?? null);
  }

  /** The index as it stands on disk (read again after a sync rewrote it). */
  #index(): Promise<AssetIndex | undefined> {
    let stamp = -1;
    try {
      stamp = statSync(path.join(this.#snapshotDir, ASSET_INDEX)).mtimeMs;
    } catch {
      return Promise.resolve(undefined);
    }
    if (this.#cached?.stamp !== stamp) this.#cached = { stamp, index: readAssetIndex(this.#snapshotDir) };
    return this.#cached.index;
  }

  /** The module with its asset URLs replaced by imports of the local files; undefined when it has none. */
  async rewrite(code: string): Promise<string | undefined> {
    const used = await this.#used(code);
    if (!used) return undefined;
    // Import names in the order of the code, so the same module always compiles to the same output.
    const imports = new Map<string, string>();
    const importOf = (file: string) => {
      const specifier = `${file.split(path.sep).join('/')}?url&no-inline`;
      let name = imports.get(specifier);
      if (!name) imports.set(specifier, (name = `__contentAsset${imports.size}`));
      return name;
    };
    const rewritten = code.replace(ASSET_LITERAL, (literal, url: string) => {
      const asset = used.get(url);
      if (!asset) return literal;
      const { file, renditions } = asset;
      const original = importOf(this.#path(file));
      if (!file.width || !file.height) return original;
      const sized = renditions.map((r) => `"&${r.width}=" + encodeURIComponent(${importOf(r.file)})`);
      return `(${[original, `"#${file.width}x${file.height}"`, ...sized].join(' + ')})`;
    });
    const head = [...imports]
      .map(([specifier, name]) => `import ${name} from ${JSON.stringify(specifier)};`)
      .join('\n');
    return `${head}\n${rewritten}`;
  }

  /**
   * The module with its asset URLs replaced by string literals: the URL `urlOf` gives each local file
   * (the snapshot's file or a rendition, by absolute path), in the same shape as `rewrite` gives
   * once bundled. Undefined when it has none.
   */
  async localize(code: string, urlOf: (file: string) => string): Promise<string | undefined> {
    const used = await this.#used(code);
    if (!used) return undefined;
    return code.replace(ASSET_LITERAL, (literal, url: string) => {
      const asset = used.get(url);
      if (!asset) return literal;
      const { file, renditions } = asset;
      const original = urlOf(this.#path(file));
      if (!file.width || !file.height) return JSON.stringify(original);
      const sized = renditions.map((r) => `&${r.width}=${encodeURIComponent(urlOf(r.file))}`).join('');
      return JSON.stringify(`${original}#${file.width}x${file.height}${sized}`);
    });
  }

  /** The asset URLs of a module whose files the snapshot has, each with its renditions (in a build). */
  async #used(code: string): Promise<Map<string, { file: AssetFile; renditions: Rendition[] }> | undefined> {
    if (!code.includes('/f/')) return undefined;
    const index = await this.#index();
    if (!index) return undefined;
    const used = new Map<string, { file: AssetFile; renditions: Rendition[] }>();
    for (const [, url] of code.matchAll(ASSET_LITERAL)) {
      const asset = parseAssetUrl(url!);
      const file = asset && index.files[asset.path];
      if (file) used.set(url!, { file, renditions: [] });
    }
    if (!used.size) return undefined;
    const resizer = this.#renditions;
    if (resizer)
      await Promise.all(
        [...used.values()].map(async (u) => (u.renditions = await resizer.of(this.#path(u.file), u.file))),
      );
    return used;
  }

  #path(file: AssetFile): string {
    return path.join(this.#snapshotDir, file.file);
  }
}
