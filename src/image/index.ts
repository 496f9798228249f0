/**
 * Responsive images for asset fields, in the browser or on the server (no
 * Node APIs): `src`, `srcset`, `sizes`, `width` and `height` for an `<img>`.
 *
 * A remote asset URL (`.../f/<space>/<W>x<H>/<hash>/<name>`) gets a srcset
 * through the image service (`/m/<w>x0`); a localized asset (a bundled file,
 * its size in a `#WxH` fragment) gets one from the renditions the build made
 * (listed in the fragment as `&<width>=<url>`), else it is its own src. Width
 * and height always come from the URL, so a page reserves the image's space
 * before it loads.
 */

export interface ImageSize {
  width: number;
  height: number;
}

export interface ImageAttributes {
  src: string;
  width?: number;
  height?: number;
  srcset?: string;
  sizes?: string;
}

/** The srcset's candidate widths when none are given, and the widths a build resizes localized images to. */
export const DEFAULT_WIDTHS: readonly number[] = [480, 960, 1440, 1920];

export interface ResponsiveOptions {
  /**
   * Candidate widths for the srcset of a remote asset (default 480, 960, 1440, 1920); none wider than
   * the original. A localized asset's candidates are the widths the build made (the plugin's `images.widths`).
   */
  widths?: readonly number[];
  /** The `sizes` attribute (default `100vw`). */
  sizes?: string;
  /** Width of `src`, for browsers without srcset (default: the largest candidate below the original). */
  fallbackWidth?: number;
  /** Image service filters, e.g. `format(webp):quality(75)` (remote assets only). */
  filters?: string;
}

/** The largest side the image service renders (a request for more is refused with 422). */
const MAX_SIDE = 4000;

const REMOTE = /^(https?:\/\/[^/]+\/f\/\d+\/(\d+)x(\d+)\/[A-Za-z0-9_-]+\/[^/?#]+)$/;
/** A localized file's fragment: its size, then the build's renditions (`&<width>=<encoded url>`). */
const FRAGMENT = /#(\d+)x(\d+)((?:&\d+=[^&#]*)*)$/;

/** The original's width and height, from the URL; undefined when the URL does not say (documents: 0x0). */
export function imageSize(url: string): ImageSize | undefined {
  const m = REMOTE.exec(url) ?? FRAGMENT.exec(url);
  if (!m) return undefined;
  const [w, h] = REMOTE.test(url) ? [m[2], m[3]] : [m[1], m[2]];
  const width = Number(w);
  const height = Number(h);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

interface Candidate {
  width: number;
  src: string;
}

/** The candidates' srcset, with the one nearest below `fallback` (else the narrowest) as src. */
function pick(candidates: Candidate[], fallback: number, size: ImageSize, sizes: string): ImageAttributes {
  const src = candidates.filter((c) => c.width <= fallback).at(-1) ?? candidates[0]!;
  return {
    src: src.src,
    width: size.width,
    height: size.height,
    srcset: candidates.map((c) => `${inSrcset(c.src)} ${c.width}w`).join(', '),
    sizes,
  };
}

/** A rendition's URL from the fragment; undefined for one that is not a valid encoding (content is anyone's to write). */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A URL as a srcset candidate: whitespace ends a candidate's URL and trailing commas are dropped, so those are encoded. */
const inSrcset = (url: string): string =>
  url.replace(/\s/g, (c) => encodeURIComponent(c)).replace(/,+$/, (commas) => '%2C'.repeat(commas.length));

/** Attributes for an `<img>` of an asset URL (an asset field's `filename`). */
export function responsiveImage(url: string, options: ResponsiveOptions = {}): ImageAttributes {
  const size = imageSize(url);
  const sizes = options.sizes ?? '100vw';
  const local = FRAGMENT.exec(url);
  if (local) {
    const src = url.slice(0, local.index);
    const made = [...local[3]!.matchAll(/&(\d+)=([^&#]*)/g)]
      .map((m) => ({ width: Number(m[1]), src: decoded(m[2]!) }))
      .filter((c): c is Candidate => c.src !== undefined && c.width > 0 && c.width < (size?.width ?? 0))
      .sort((a, b) => a.width - b.width);
    if (!size || !made.length) return { src, ...size };
    return pick([...made, { width: size.width, src }], options.fallbackWidth ?? made.at(-1)!.width, size, sizes);
  }
  if (!REMOTE.test(url) || !size) return { src: url, ...size };
  // The image service renders at most MAX_SIDE pixels a side, the height following the ratio
  // included (a 422 beyond): no rendition is asked for wider than that allows.
  const widest = Math.max(1, Math.min(MAX_SIDE, Math.floor((MAX_SIDE * size.width) / size.height)));
  const candidates = [
    ...new Set(
      (options.widths ?? DEFAULT_WIDTHS).filter((w) => w > 0 && w < size.width && w <= widest).map(Math.round),
    ),
  ].sort((a, b) => a - b);
  const filters = options.filters ? `/filters:${options.filters}` : '';
  const at = (w: number) => (w >= size.width && !filters ? url : `${url}/m/${w}x0${filters}`);
  // The widest candidate: the original itself, or (through the service, with filters) as wide as it renders.
  const last = filters ? Math.min(size.width, widest) : size.width;
  const wanted = Math.min(options.fallbackWidth ?? candidates.at(-1) ?? last, size.width);
  const fallback = wanted >= size.width && !filters ? wanted : Math.min(wanted, widest);
  return {
    src: at(fallback),
    width: size.width,
    height: size.height,
    srcset: [...new Set([...candidates, last])].map((w) => `${inSrcset(at(w))} ${w}w`).join(', '),
    sizes,
  };
}
