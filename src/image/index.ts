/**
 * Responsive images for asset fields, in the browser or on the server (no
 * Node APIs): `src`, `srcset`, `sizes`, `width` and `height` for an `<img>`.
 *
 * A remote asset URL (`.../f/<space>/<W>x<H>/<hash>/<name>`) gets a srcset
 * through the image service (`/m/<w>x0`); a localized asset (a bundled file,
 * its size in a `#WxH` fragment) is its own src. Width and height always come
 * from the URL, so a page reserves the image's space before it loads.
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

export interface ResponsiveOptions {
  /** Candidate widths for the srcset (default 480, 960, 1440, 1920); none wider than the original. */
  widths?: readonly number[];
  /** The `sizes` attribute (default `100vw`). */
  sizes?: string;
  /** Width of `src`, for browsers without srcset (default: the largest candidate). */
  fallbackWidth?: number;
  /** Image service filters, e.g. `format(webp):quality(75)` (remote assets only). */
  filters?: string;
}

const REMOTE = /^(https?:\/\/[^/]+\/f\/\d+\/(\d+)x(\d+)\/[A-Za-z0-9_-]+\/[^/?#]+)$/;
const FRAGMENT = /#(\d+)x(\d+)$/;

/** The original's width and height, from the URL; undefined when the URL does not say (documents: 0x0). */
export function imageSize(url: string): ImageSize | undefined {
  const m = REMOTE.exec(url) ?? FRAGMENT.exec(url);
  if (!m) return undefined;
  const [w, h] = REMOTE.test(url) ? [m[2], m[3]] : [m[1], m[2]];
  const width = Number(w);
  const height = Number(h);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** Attributes for an `<img>` of an asset URL (an asset field's `filename`). */
export function responsiveImage(url: string, options: ResponsiveOptions = {}): ImageAttributes {
  const size = imageSize(url);
  const sizeAttrs = size ? { width: size.width, height: size.height } : {};
  if (!REMOTE.test(url) || !size) return { src: url.replace(FRAGMENT, ''), ...sizeAttrs };
  const candidates = [
    ...new Set((options.widths ?? [480, 960, 1440, 1920]).filter((w) => w > 0 && w < size.width).map(Math.round)),
  ].sort((a, b) => a - b);
  const filters = options.filters ? `/filters:${options.filters}` : '';
  const at = (w: number) => (w >= size.width && !filters ? url : `${url}/m/${w}x0${filters}`);
  const widths = [...candidates, size.width];
  const fallback = Math.min(options.fallbackWidth ?? candidates.at(-1) ?? size.width, size.width);
  return {
    src: at(fallback),
    ...sizeAttrs,
    srcset: widths.map((w) => `${at(w)} ${w}w`).join(', '),
    sizes: options.sizes ?? '100vw',
  };
}
