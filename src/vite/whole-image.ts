/**
 * Whether a file's bytes are a whole image of its format, by its structure alone (no decoding, no
 * image library): a file cut short (a disk that filled, a cache restored in part) keeps its header
 * but loses its end. JPEG ends with its EOI marker, PNG with its IEND chunk; a WebP's RIFF header
 * and an AVIF's top-level boxes give their lengths.
 */
export type WholeImageFormat = 'jpeg' | 'png' | 'webp' | 'avif';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_END = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

export function isWholeImage(bytes: Buffer, format: WholeImageFormat): boolean {
  switch (format) {
    case 'jpeg':
      return (
        bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes.at(-2) === 0xff && bytes.at(-1) === 0xd9
      );
    case 'png':
      return bytes.subarray(0, 8).equals(PNG_SIGNATURE) && bytes.subarray(-12).equals(PNG_END);
    case 'webp':
      return (
        bytes.length >= 12 &&
        bytes.toString('latin1', 0, 4) === 'RIFF' &&
        bytes.toString('latin1', 8, 12) === 'WEBP' &&
        bytes.readUInt32LE(4) + 8 === bytes.length
      );
    case 'avif':
      return boxesFill(bytes);
  }
}

/** Whether an ISO media file's top-level boxes, from an ftyp, add up to exactly its length. */
function boxesFill(bytes: Buffer): boolean {
  if (bytes.length < 8 || bytes.toString('latin1', 4, 8) !== 'ftyp') return false;
  let at = 0;
  while (at < bytes.length) {
    if (at + 8 > bytes.length) return false;
    let size = bytes.readUInt32BE(at);
    if (size === 1) {
      if (at + 16 > bytes.length) return false;
      size = Number(bytes.readBigUInt64BE(at + 8));
    } else if (size === 0) size = bytes.length - at;
    if (size < 8) return false;
    at += size;
  }
  return at === bytes.length;
}
