/**
 * The image service: what follows `<asset>/m` in a URL, parsed into plain
 * operations (pure), then applied to the original's bytes with sharp.
 *
 *   /m/                      optimised (WebP when the client accepts it)
 *   /m/[x1xy1:x2xy2/][fit-in/]WxH[/smart][/filters:f(v):g(v)...]
 *
 * `WxH`: 0 for one side keeps the ratio, a negative side flips. `fit-in` fits
 * inside the box (pair with `fill`); otherwise the box is covered and cropped
 * around the focus point (`focal` filter), the centre, or by `smart`
 * (attention). Filters: format(webp|avif|png|jpeg), quality(0-100),
 * fill(<hex>|transparent), focal(x1xy1:x2xy2), blur(0..150[,sigma]), brightness(-100..100),
 * grayscale(), rotate(0|90|180|270), round_corner(A|B,R,G,B,T).
 */
import type { Sharp } from 'sharp';
import type { SharpFactory } from './sharp.js';

/** Largest output side in pixels; beyond it a request is refused (422), not rendered. */
export const MAX_OUTPUT_SIDE = 4000;

export type OutputFormat = 'webp' | 'avif' | 'png' | 'jpeg';

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface ImageOperations {
  crop?: Box;
  fitIn: boolean;
  width: number;
  height: number;
  flipX: boolean;
  flipY: boolean;
  smart: boolean;
  format?: OutputFormat;
  quality?: number;
  fill?: string;
  focal?: Box;
  blur?: number;
  /** The Gaussian's sigma when the request gives one (else it follows the radius). */
  blurSigma?: number;
  brightness?: number;
  grayscale: boolean;
  rotate?: 90 | 180 | 270;
  roundCorner?: RoundCorner;
}

/** `round_corner(A|B,R,G,B,T)`: corner radii, the colour outside them, or transparent there. */
export interface RoundCorner {
  rx: number;
  ry: number;
  background: { r: number; g: number; b: number };
  transparent: boolean;
}

export class ImageRequestError extends Error {
  readonly status = 422;
}

const fail = (message: string): never => {
  throw new ImageRequestError(message);
};

const BOX = /^(\d{1,5})x(\d{1,5}):(\d{1,5})x(\d{1,5})$/;

function box(text: string, what: string): Box {
  const m = BOX.exec(text) ?? fail(`${what} must be x1xy1:x2xy2 (got ${text})`);
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  if (x2 <= x1 || y2 <= y1) fail(`${what} ${text} is empty: the second corner must lie right of and below the first`);
  return { x1, y1, x2, y2 };
}

function applyFilter(ops: ImageOperations, name: string, arg: string): void {
  switch (name) {
    case 'format':
      if (arg !== 'webp' && arg !== 'avif' && arg !== 'png' && arg !== 'jpeg')
        fail(`format must be webp, avif, png or jpeg (got ${arg})`);
      ops.format = arg as OutputFormat;
      return;
    case 'quality': {
      const q = /^\d{1,3}$/.test(arg) ? Number(arg) : NaN;
      if (!(q >= 0 && q <= 100)) fail(`quality must be an integer from 0 to 100 (got ${arg})`);
      ops.quality = q;
      return;
    }
    case 'fill':
      if (arg !== 'transparent' && !/^[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(arg))
        fail(`fill must be a hex colour such as FFCC99, or transparent (got ${arg})`);
      ops.fill = arg;
      return;
    case 'focal':
      ops.focal = box(arg, 'focal');
      return;
    case 'blur': {
      // blur(RADIUS) or blur(RADIUS,SIGMA), the radius 0 to 150, as the CMS's image service documents it.
      const m = /^(\d{1,3})(?:,(\d{1,3}(?:\.\d{1,3})?))?$/.exec(arg);
      const radius = m ? Number(m[1]) : NaN;
      const sigma = m?.[2] === undefined ? undefined : Number(m[2]);
      if (!(radius <= 150) || (sigma !== undefined && !(sigma <= 150)))
        fail(`blur must be a radius from 0 to 150, optionally with a sigma, e.g. blur(10) or blur(10,5) (got ${arg})`);
      ops.blur = radius;
      if (sigma !== undefined) ops.blurSigma = sigma;
      return;
    }
    case 'brightness': {
      const b = /^-?\d{1,3}$/.test(arg) ? Number(arg) : NaN;
      if (!(b >= -100 && b <= 100)) fail(`brightness must be an integer from -100 to 100 (got ${arg})`);
      ops.brightness = b;
      return;
    }
    case 'grayscale':
      ops.grayscale = true;
      return;
    case 'rotate':
      // 0 is one of the documented angles: it leaves the image as it is.
      if (arg !== '0' && arg !== '90' && arg !== '180' && arg !== '270')
        fail(`rotate must be 0, 90, 180 or 270 (got ${arg})`);
      if (arg !== '0') ops.rotate = Number(arg) as 90 | 180 | 270;
      return;
    case 'round_corner':
      ops.roundCorner = roundCorner(arg);
      return;
    default:
      fail(
        `unknown filter ${name}; known: format, quality, fill, focal, blur, brightness, grayscale, rotate, round_corner`,
      );
  }
}

const ROUND_CORNER = /^(\d{1,5})(?:\|(\d{1,5}))?,(\d{1,3}),(\d{1,3}),(\d{1,3})(?:,([01]))?$/;

/** `A|B,R,G,B,T` (the `|` may come encoded): radius, optional ellipsis, background, optional transparency. */
function roundCorner(arg: string): RoundCorner {
  const m =
    ROUND_CORNER.exec(arg.replace(/%7c/gi, '|')) ??
    fail(`round_corner must be radius[|ellipsis],r,g,b[,transparent], e.g. round_corner(20,255,255,255) (got ${arg})`);
  const [r, g, b] = [m[3], m[4], m[5]].map(Number) as [number, number, number];
  if (r > 255 || g > 255 || b > 255) fail(`round_corner's colour is r,g,b from 0 to 255 (got ${arg})`);
  const rx = Number(m[1]);
  return { rx, ry: m[2] === undefined ? rx : Number(m[2]), background: { r, g, b }, transparent: m[6] === '1' };
}

/** Parses the part after `/m` (e.g. `/800x0/filters:format(webp)`). Throws ImageRequestError (422). */
export function parseImageOperations(transform: string): ImageOperations {
  const ops: ImageOperations = {
    fitIn: false,
    width: 0,
    height: 0,
    flipX: false,
    flipY: false,
    smart: false,
    grayscale: false,
  };
  const segments = transform.split('/').filter((s) => s !== '');
  let i = 0;
  if (segments[i] && BOX.test(segments[i]!)) ops.crop = box(segments[i++]!, 'crop');
  if (segments[i] === 'fit-in') {
    ops.fitIn = true;
    i++;
  }
  const size = segments[i] ? /^(-?\d{1,9})x(-?\d{1,9})$/.exec(segments[i]!) : null;
  if (size) {
    i++;
    const w = Number(size[1]);
    const h = Number(size[2]);
    ops.flipX = size[1]!.startsWith('-');
    ops.flipY = size[2]!.startsWith('-');
    ops.width = Math.abs(w);
    ops.height = Math.abs(h);
    if (ops.width > MAX_OUTPUT_SIDE || ops.height > MAX_OUTPUT_SIDE) {
      fail(
        `${ops.width}x${ops.height} is larger than the image service renders (at most ${MAX_OUTPUT_SIDE} pixels a side)`,
      );
    }
  } else if (ops.fitIn) fail('fit-in needs a size, e.g. fit-in/800x600');
  if (segments[i] === 'smart') {
    ops.smart = true;
    i++;
  }
  if (segments[i]?.startsWith('filters:')) {
    const chain = segments[i++]!.slice('filters:'.length);
    const filter = /([a-z_]+)\(([^()]*)\)(?::|$)/gy;
    let consumed = 0;
    for (let m = filter.exec(chain); m; m = filter.exec(chain)) {
      applyFilter(ops, m[1]!, m[2]!);
      consumed = filter.lastIndex;
    }
    if (consumed !== chain.length) fail(`filters must be chained as name(value):name(value) (got ${chain})`);
  }
  if (i < segments.length)
    fail(
      `unknown image operation ${segments[i]}; see the image service grammar: [crop/][fit-in/]WxH[/smart][/filters:...]`,
    );
  return ops;
}

/** The canonical form of operations plus the negotiated format: the cache key of a rendition. */
export function operationsKey(ops: ImageOperations, format: OutputFormat): string {
  return JSON.stringify({ ...ops, format });
}

/** The output format: the one asked for, else WebP when accepted, else the original's own. */
export function outputFormat(ops: ImageOperations, originalType: string, accept: string | undefined): OutputFormat {
  if (ops.format) return ops.format;
  if (accept && /image\/webp/i.test(accept)) return 'webp';
  if (originalType === 'image/png') return 'png';
  if (originalType === 'image/webp') return 'webp';
  if (originalType === 'image/avif') return 'avif';
  return 'jpeg';
}

function fillColour(fill: string | undefined): { r: number; g: number; b: number; alpha: number } {
  if (fill === undefined || fill === 'transparent') return { r: 0, g: 0, b: 0, alpha: fill === 'transparent' ? 0 : 1 };
  const hex = fill.length === 3 ? [...fill].map((c) => c + c).join('') : fill;
  return {
    r: parseInt(hex.slice(0, 2), 16),
    g: parseInt(hex.slice(2, 4), 16),
    b: parseInt(hex.slice(4, 6), 16),
    alpha: 1,
  };
}

/** Where to cut a `width x height` window of a `sw x sh` image so the focus box stays centred (clamped inside). */
export function focalWindow(
  sw: number,
  sh: number,
  width: number,
  height: number,
  focal: Box,
): { left: number; top: number } {
  const cx = (focal.x1 + focal.x2) / 2;
  const cy = (focal.y1 + focal.y2) / 2;
  const clamp = (v: number, max: number) => Math.max(0, Math.min(Math.round(v), max));
  return { left: clamp(cx - width / 2, sw - width), top: clamp(cy - height / 2, sh - height) };
}

/**
 * The image as rendered so far with its corners rounded: cut by a rounded rectangle of its own size,
 * the colour given behind unless transparent. Rendered first, as its size is only known then.
 */
async function roundCorners(sharp: SharpFactory, image: Sharp, corner: RoundCorner): Promise<Sharp> {
  const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const mask = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect width="${width}" height="${height}" rx="${corner.rx}" ry="${corner.ry}"/></svg>`,
  );
  const rounded = await sharp(data, { raw: { width, height, channels: info.channels } })
    .composite([{ input: mask, blend: 'dest-in' }])
    .png()
    .toBuffer();
  return corner.transparent ? sharp(rounded) : sharp(rounded).flatten({ background: corner.background });
}

/** Applies the operations to an original image. */
export async function renderImage(
  sharp: SharpFactory,
  original: Buffer,
  ops: ImageOperations,
  format: OutputFormat,
): Promise<Buffer> {
  // Turned the way it is shown (EXIF orientation), as browsers show the original: sizes, crops and
  // focus boxes are in those coordinates, and the rendition carries no orientation tag to undo it.
  let image = sharp(original, { limitInputPixels: 100_000_000, autoOrient: true });
  const meta = await image.metadata();
  let sw = meta.autoOrient?.width ?? meta.width ?? 0;
  let sh = meta.autoOrient?.height ?? meta.height ?? 0;
  // The focus box is in the original's coordinates (an asset's focus field), the window cut
  // below in the crop's: moved with the crop, as the image service moves its focal points.
  let focal = ops.focal;
  if (ops.crop) {
    const x2 = Math.min(ops.crop.x2, sw);
    const y2 = Math.min(ops.crop.y2, sh);
    if (ops.crop.x1 >= x2 || ops.crop.y1 >= y2) throw new ImageRequestError(`crop lies outside the ${sw}x${sh} image`);
    image = sharp(
      await image
        .extract({ left: ops.crop.x1, top: ops.crop.y1, width: x2 - ops.crop.x1, height: y2 - ops.crop.y1 })
        .toBuffer(),
    );
    sw = x2 - ops.crop.x1;
    sh = y2 - ops.crop.y1;
    if (focal) {
      const { x1, y1 } = ops.crop;
      focal = { x1: focal.x1 - x1, y1: focal.y1 - y1, x2: focal.x2 - x1, y2: focal.y2 - y1 };
    }
  }
  const width = ops.width || (ops.height ? Math.max(1, Math.round((sw * ops.height) / sh)) : 0);
  const height = ops.height || (ops.width ? Math.max(1, Math.round((sh * ops.width) / sw)) : 0);
  // A side left at 0 follows the original's ratio: bounded as a side the request names is (a 40x0 of a
  // 1x400 strip is 40x16000, a 4000x0 of it four billion pixels).
  if (width > MAX_OUTPUT_SIDE || height > MAX_OUTPUT_SIDE)
    throw new ImageRequestError(
      `${width}x${height} (the ${sw}x${sh} original at that ratio) is larger than the image service renders (at most ${MAX_OUTPUT_SIDE} pixels a side)`,
    );
  if (width && height) {
    if (ops.fitIn) {
      image = image.resize(width, height, { fit: 'contain', background: fillColour(ops.fill) });
    } else if (focal && !ops.smart) {
      // The window of the original that covers the box once scaled, cut where the focus point stays
      // centred, then scaled: never more pixels than the original's or the output's (scaling the
      // whole original first made a 100x1 strip 200000x2000 for a 2000x2000 box).
      const scale = Math.max(width / sw, height / sh);
      const ww = Math.min(sw, Math.max(1, Math.round(width / scale)));
      const wh = Math.min(sh, Math.max(1, Math.round(height / scale)));
      image = image
        .extract({ ...focalWindow(sw, sh, ww, wh, focal), width: ww, height: wh })
        .resize(width, height, { fit: 'fill' });
    } else {
      image = image.resize(width, height, { fit: 'cover', position: ops.smart ? 'attention' : 'centre' });
    }
  }
  if (ops.flipX) image = image.flop();
  if (ops.flipY) image = image.flip();
  if (ops.rotate) image = image.rotate(ops.rotate);
  if (ops.blur) image = image.blur(Math.max(0.3, (ops.blurSigma ?? ops.blur) / 4));
  if (ops.brightness) image = image.modulate({ brightness: 1 + ops.brightness / 100 });
  if (ops.grayscale) image = image.grayscale();
  if (ops.fill && !ops.fitIn && ops.fill !== 'transparent') image = image.flatten({ background: fillColour(ops.fill) });
  if (ops.roundCorner) image = await roundCorners(sharp, image, ops.roundCorner);
  // The filter takes 0 to 100 (as the CMS's does); the encoders 1 to 100.
  const quality = Math.max(1, ops.quality ?? 80);
  switch (format) {
    case 'webp':
      return image.webp({ quality }).toBuffer();
    case 'avif':
      return image.avif({ quality: Math.min(quality, 90) }).toBuffer();
    case 'png':
      return image.png({ compressionLevel: 9 }).toBuffer();
    case 'jpeg':
      return image
        .flatten({ background: fillColour(ops.fill === 'transparent' ? 'ffffff' : (ops.fill ?? 'ffffff')) })
        .jpeg({ quality })
        .toBuffer();
  }
}
