/**
 * Whether a file's bytes are a whole image of its format, by its structure alone (no decoding, no
 * image library): a file cut short (a disk that filled, a cache restored in part) keeps its header
 * but loses its end. JPEG ends with its EOI marker, PNG with its IEND chunk; a WebP's RIFF header
 * and an AVIF's top-level boxes give their lengths. Only those few bytes are read: a warm build
 * checks every cached rendition, and a large site has tens of thousands.
 */
import fs from 'node:fs/promises';

export type WholeImageFormat = 'jpeg' | 'png' | 'webp' | 'avif';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_END = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
/** Top-level boxes an AVIF is read through before it is taken as not one (a real file has a few). */
const MAX_BOXES = 256;

/** A file's length and a way to read bytes of it (fewer at its end). */
interface Bytes {
  size: number;
  read(at: number, length: number): Promise<Buffer>;
}

/** Whether `file` is a whole image of `format`; false when it cannot be read. */
export async function isWholeImageFile(file: string, format: WholeImageFormat): Promise<boolean> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const { size } = await handle.stat();
    const read = async (at: number, length: number) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - at)));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      return buffer.subarray(0, bytesRead);
    };
    return await isWhole({ size, read }, format);
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

async function isWhole(bytes: Bytes, format: WholeImageFormat): Promise<boolean> {
  const { size, read } = bytes;
  switch (format) {
    case 'jpeg': {
      if (size <= 4) return false;
      const [head, tail] = await Promise.all([read(0, 2), read(size - 2, 2)]);
      return head[0] === 0xff && head[1] === 0xd8 && tail[0] === 0xff && tail[1] === 0xd9;
    }
    case 'png': {
      if (size < PNG_SIGNATURE.length + PNG_END.length) return false;
      const [head, tail] = await Promise.all([read(0, 8), read(size - 12, 12)]);
      return head.equals(PNG_SIGNATURE) && tail.equals(PNG_END);
    }
    case 'webp': {
      if (size < 12) return false;
      const head = await read(0, 12);
      return (
        head.toString('latin1', 0, 4) === 'RIFF' &&
        head.toString('latin1', 8, 12) === 'WEBP' &&
        head.readUInt32LE(4) + 8 === size
      );
    }
    case 'avif':
      return boxesFill(bytes);
  }
}

/** Whether an ISO media file's top-level boxes, from an ftyp, add up to exactly its length. */
async function boxesFill({ size, read }: Bytes): Promise<boolean> {
  let at = 0;
  for (let boxes = 0; at < size; boxes++) {
    if (boxes === MAX_BOXES) return false;
    const header = await read(at, 16);
    if (header.length < 8) return false;
    if (boxes === 0 && header.toString('latin1', 4, 8) !== 'ftyp') return false;
    let length = header.readUInt32BE(0);
    if (length === 1) {
      if (header.length < 16) return false;
      length = Number(header.readBigUInt64BE(8));
    } else if (length === 0) length = size - at;
    if (length < 8) return false;
    at += length;
  }
  return at === size && size > 0;
}
