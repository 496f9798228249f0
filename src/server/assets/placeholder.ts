/**
 * Deterministic stand-in bytes for assets the service holds no file for (the
 * demo space's assets, a synced snapshot served without its files): an image
 * of the size and format the URL names, a one-page PDF for a PDF, and a short
 * text naming the asset for any other file (a video, an archive, a document).
 * The same URL always gives the same bytes, and they are small (flat shapes).
 */
import { createHash } from 'node:crypto';
import { type AssetPath, assetExtension, isRasterImage } from '../../api/assets.js';
import type { SharpFactory } from './sharp.js';

/** Renders the stand-in for an asset (loading sharp only for raster images); undefined for a kind it cannot make. */
export async function renderPlaceholder(
  asset: AssetPath,
  loadSharp: () => Promise<SharpFactory>,
): Promise<Buffer | undefined> {
  const ext = assetExtension(asset.name);
  if (ext === 'pdf') return placeholderPdf(asset.name);
  // Any other file a space holds (a video, an archive, a Word file) is served too, as the CDN serves
  // it: a sync downloading the space's assets from this service failed on its 404.
  if (ext !== 'svg' && !isRasterImage(asset.name)) return placeholderFile(asset);
  const [width, height] = drawnSize(asset.width || 800, asset.height || 600);
  const svg = placeholderSvg(width, height, asset.hash + asset.name);
  if (ext === 'svg') return Buffer.from(svg);
  const sharp = await loadSharp();
  // Rasterized small and scaled up: flat shapes lose nothing, and a 2400 px stand-in costs little.
  const scale = Math.min(1, 480 / Math.max(width, height));
  // A strip rasterized that small would have no pixel on its short side: rasterized at one pixel
  // there instead (every other size as before, so the same URL keeps the same bytes).
  const short = Math.min(width, height);
  const density = short * scale >= 0.5 ? 72 * scale : 72 / short;
  const image = sharp(Buffer.from(svg), { density }).resize(width, height, {
    fit: 'fill',
    kernel: 'linear',
  });
  switch (ext) {
    case 'jpg':
    case 'jpeg':
      return image.jpeg({ quality: 70 }).toBuffer();
    case 'png':
      return image.png({ palette: true, compressionLevel: 9 }).toBuffer();
    case 'webp':
      return image.webp({ quality: 70 }).toBuffer();
    case 'avif':
      return image.avif({ quality: 50 }).toBuffer();
    case 'gif':
      return image.gif().toBuffer();
    default:
      return undefined;
  }
}

/** The largest stand-in drawn: 16 megapixels, and 8,192 px a side (WebP's limit is 16,383). */
const MAX_PIXELS = 16_000_000;
const MAX_SIDE = 8192;

/**
 * The size a stand-in is drawn at: the one the URL names, or, beyond the bounds, smaller in
 * proportion (a URL naming 30000x30000 took 70 s and 6 GB to draw as named).
 */
function drawnSize(width: number, height: number): [number, number] {
  const f = Math.min(1, MAX_SIDE / Math.max(width, height), Math.sqrt(MAX_PIXELS / (width * height)));
  return [Math.max(1, Math.round(width * f)), Math.max(1, Math.round(height * f))];
}

/** Hues and positions drawn from the seed, so each asset looks different. */
function palette(seed: string): number[] {
  const digest = createHash('sha256').update(seed).digest();
  return [...digest];
}

/** A landscape of flat shapes (sky, sun, two hills) filling width x height. */
export function placeholderSvg(width: number, height: number, seed: string): string {
  const p = palette(seed);
  const hue = (p[0]! * 360) / 256;
  const sky = `hsl(${hue.toFixed(0)},55%,78%)`;
  const sun = `hsl(${((hue + 40) % 360).toFixed(0)},80%,60%)`;
  const far = `hsl(${((hue + 150) % 360).toFixed(0)},35%,45%)`;
  const near = `hsl(${((hue + 180) % 360).toFixed(0)},40%,30%)`;
  const r = Math.round(Math.min(width, height) * (0.08 + p[1]! / 2560));
  const sx = Math.round(width * (0.2 + (p[2]! / 256) * 0.6));
  const sy = Math.round(height * (0.2 + (p[3]! / 256) * 0.2));
  const peak1 = Math.round(width * (0.2 + (p[4]! / 256) * 0.3));
  const peak2 = Math.round(width * (0.5 + (p[5]! / 256) * 0.3));
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="${width}" height="${height}" fill="${sky}"/>` +
    `<circle cx="${sx}" cy="${sy}" r="${r}" fill="${sun}"/>` +
    `<polygon points="0,${height} ${peak1},${Math.round(height * 0.45)} ${Math.round(width * 0.75)},${height}" fill="${far}"/>` +
    `<polygon points="${Math.round(width * 0.3)},${height} ${peak2},${Math.round(height * 0.55)} ${width},${Math.round(height * 0.8)} ${width},${height}" fill="${near}"/>` +
    `</svg>\n`
  );
}

/** A short text naming the asset (JSON for a .json file), for a file the service cannot draw. */
export function placeholderFile(asset: AssetPath): Buffer {
  const text = `stand-in for ${asset.path}`;
  return Buffer.from(
    assetExtension(asset.name) === 'json' ? `${JSON.stringify({ standIn: asset.path })}\n` : `${text}\n`,
  );
}

/** A valid one-page PDF (A4) with the file's name as its title; byte offsets computed, not guessed. */
export function placeholderPdf(name: string): Buffer {
  const title = name.replace(/[()\\]/g, '');
  const stream = `BT /F1 24 Tf 72 760 Td (${title}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${title}) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
