/**
 * Localized assets in a snapshot: the files, content-addressed, and one index
 * that says which asset URL is which file and which stories use which assets.
 *
 *   assets/<sha256>.<ext>   the bytes (stored once however often referenced)
 *   assets/index.json       { files: { <asset path>: AssetFile }, stories: { <id>: [<asset path>] } }
 *
 * Keys are asset paths (`/f/<space>/<WxH>/<hash>/<name>`), the asset's identity
 * whatever host delivered it. File names are a digest and an extension from a
 * fixed list, never taken from content.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { assetExtension } from '../api/assets.js';
import { canonicalJson } from './json.js';

export const ASSETS_DIR = 'assets';
export const ASSET_INDEX = 'assets/index.json';

/** The extensions a file is given (assetFileName); the rest are stored as `bin`. */
const EXTENSIONS: ReadonlySet<string> = new Set([
  'jpg',
  'jpeg',
  'png',
  'webp',
  'avif',
  'gif',
  'svg',
  'pdf',
  'mp4',
  'webm',
  'mp3',
  'json',
  'txt',
  'zip',
]);
/** What an index may name: those, and `bin`. */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set([...EXTENSIONS, 'bin']);

export const AssetFile = z
  .object({
    /** The URL it was downloaded from. */
    url: z.string(),
    /** Path inside the snapshot: `assets/<sha256>.<ext>`. */
    file: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int(),
    type: z.string(),
    /** From the URL (0 for documents). */
    width: z.number().int(),
    height: z.number().int(),
    /** The CDN's ETag for these bytes, when it sent one: a full sync asks with it whether the file changed. */
    etag: z.string().optional(),
  })
  // Paths are joined to the snapshot's and the build's directories: an index edited by hand (or
  // shared through a store) names no file but the one its digest names.
  .refine(
    (f) =>
      f.file.startsWith(`${ASSETS_DIR}/${f.sha256}.`) &&
      FILE_EXTENSIONS.has(f.file.slice(`${ASSETS_DIR}/${f.sha256}.`.length)),
    {
      message: 'file must be assets/<sha256>.<extension>',
      path: ['file'],
    },
  );
export type AssetFile = z.infer<typeof AssetFile>;

export const AssetIndex = z.object({
  files: z.record(z.string(), AssetFile),
  stories: z.record(z.string(), z.array(z.string())),
});
export type AssetIndex = z.infer<typeof AssetIndex>;

/** Where the bytes with this digest live: the extension only from a known list (else `bin`). */
export function assetFileName(sha256: string, name: string): string {
  const ext = assetExtension(name);
  return `${ASSETS_DIR}/${sha256}.${EXTENSIONS.has(ext) ? ext : 'bin'}`;
}

export function assetIndexText(index: AssetIndex): string {
  return canonicalJson(index);
}

/** The snapshot's asset index; undefined when it has none (or it cannot be read). */
export async function readAssetIndex(dir: string): Promise<AssetIndex | undefined> {
  // Read here, not with read.ts's readText: the space directory's reader reads the index too.
  const text = await fs.readFile(path.join(dir, ASSET_INDEX), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = AssetIndex.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
