/**
 * Localized assets in the build: asset URLs inside the generated content
 * modules become imports of the snapshot's files, so Vite treats them as
 * assets of the build (hashed names in dist, emitted only when a page's
 * modules use them). The original's size stays on the URL as a `#WxH`
 * fragment, so pages still know width and height.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { parseAssetUrl } from '../api/assets.js';
import { ASSET_INDEX, readAssetIndex, type AssetIndex } from '../snapshot/index.js';

/** A double-quoted string literal holding an asset URL, as the module emitter writes it. */
const ASSET_LITERAL = /"(https?:\/\/[^"\\\s/]+\/f\/\d+\/\d+x\d+\/[A-Za-z0-9_-]+\/[^"\\/\s]+)"/g;

export class AssetImports {
  readonly #snapshotDir: string;
  #cached: { stamp: number; index: Promise<AssetIndex | undefined> } | undefined;

  constructor(snapshotDir: string) {
    this.#snapshotDir = snapshotDir;
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
    if (!code.includes('/f/')) return undefined;
    const index = await this.#index();
    if (!index) return undefined;
    const imports = new Map<string, string>();
    const rewritten = code.replace(ASSET_LITERAL, (literal, url: string) => {
      const asset = parseAssetUrl(url);
      const file = asset && index.files[asset.path];
      if (!file) return literal;
      const specifier = `${path.join(this.#snapshotDir, file.file).split(path.sep).join('/')}?no-inline`;
      let name = imports.get(specifier);
      if (!name) imports.set(specifier, (name = `__contentAsset${imports.size}`));
      return file.width && file.height ? `(${name} + "#${file.width}x${file.height}")` : name;
    });
    if (!imports.size) return undefined;
    const head = [...imports]
      .map(([specifier, name]) => `import ${name} from ${JSON.stringify(specifier)};`)
      .join('\n');
    return `${head}\n${rewritten}`;
  }
}
