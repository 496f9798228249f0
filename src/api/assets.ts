/**
 * The asset CDN's URL shape, shared by the local service (which serves it),
 * sync (which downloads it) and the build (which sizes images from it):
 *
 *   <origin>/f/<space id>/<W>x<H>/<hash>/<name>.<ext>[/m/<image operations>]
 *
 * The original's width and height are part of the path (0x0 for documents).
 */

export interface AssetPath {
  spaceId: number;
  width: number;
  height: number;
  hash: string;
  /** The file name, last segment of the original's path. */
  name: string;
  /** `/f/<space>/<WxH>/<hash>/<name>`: the asset's identity, whatever host serves it. */
  path: string;
  /** What follows `/m` (an image service request), or undefined for the original. */
  transform?: string;
}

const ASSET_PATH = /^\/f\/(\d{1,12})\/(\d{1,5})x(\d{1,5})\/([A-Za-z0-9_-]{1,64})\/([^/?#]{1,255})(\/m(?:\/.*)?)?$/;

/** Parses the path of an asset URL (`/f/...`); undefined when it is not one. */
export function parseAssetPath(pathname: string): AssetPath | undefined {
  const m = ASSET_PATH.exec(pathname);
  if (!m) return undefined;
  const [, space, w, h, hash, name, m5] = m;
  if (name === '.' || name === '..') return undefined;
  const path = `/f/${space}/${w}x${h}/${hash}/${name}`;
  const parsed: AssetPath = {
    spaceId: Number(space),
    width: Number(w),
    height: Number(h),
    hash: hash!,
    name: name!,
    path,
  };
  if (m5 !== undefined) parsed.transform = m5.slice(2);
  return parsed;
}

/** Parses a whole asset URL (http or https); undefined for anything else. */
export function parseAssetUrl(url: string): (AssetPath & { origin: string }) | undefined {
  if (!url.startsWith('http://') && !url.startsWith('https://')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.search || parsed.hash || parsed.username || parsed.password) return undefined;
  const asset = parseAssetPath(parsed.pathname);
  return asset && !asset.transform ? { ...asset, origin: parsed.origin } : undefined;
}

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
};

/** The file's extension, lower case, without the dot ('' when none). */
export function assetExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The Content-Type of an asset, by its extension. */
export function assetContentType(name: string): string {
  return TYPES[assetExtension(name)] ?? 'application/octet-stream';
}

/** Whether the image service can transform this asset (raster images; SVGs are served as they are). */
export function isRasterImage(name: string): boolean {
  return ['jpg', 'jpeg', 'png', 'webp', 'avif', 'gif'].includes(assetExtension(name));
}

/** Where in a story an asset is referenced: the field path, for error messages. */
export interface AssetReference {
  url: string;
  /** Dotted path of the value inside the content, e.g. `body.2.image.filename`. */
  field: string;
  /** The asset object that holds the URL (asset field, multiasset item), when there is one. */
  holder?: Record<string, unknown>;
}

/**
 * Every asset URL in a content tree: asset and multiasset fields, asset links,
 * rich-text images, any string that is an asset URL. Pure; order of first
 * occurrence in a depth-first walk.
 */
export function assetReferences(content: unknown, prefix = ''): AssetReference[] {
  const out: AssetReference[] = [];
  const walk = (node: unknown, path: string, parent: Record<string, unknown> | undefined): void => {
    if (typeof node === 'string') {
      if (node.includes('/f/') && parseAssetUrl(node))
        out.push(parent ? { url: node, field: path, holder: parent } : { url: node, field: path });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        walk(item, path ? `${path}.${i}` : String(i), undefined);
      });
      return;
    }
    if (node && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const holder = key === 'filename' && typeof obj.id === 'number' ? obj : undefined;
        walk(obj[key], path ? `${path}.${key}` : key, holder);
      }
    }
  };
  walk(content, prefix, undefined);
  return out;
}
