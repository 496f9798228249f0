/**
 * Reads a response body's bytes, at most `limit` bytes of it after decompression: an endless body,
 * a compression bomb or a body too large for one string ends with `BodyTooLarge` once the limit is
 * passed, with the memory of `limit` bytes at most.
 */

/** Default cap per response: far above any page of the API, far below what strains a process. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
  constructor(
    readonly limit: number,
    /** The length the response declared, when that alone was too much. */
    readonly declared?: number,
  ) {
    super(
      declared !== undefined
        ? `declares ${declared} bytes, more than the limit of ${limit}`
        : `goes on past the limit of ${limit} bytes (after decompression)`,
    );
  }
}

/** `1.5 MB`-style size for messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** The body's bytes: decoded by who reads them (see parseJsonBody), not here. */
export async function readCapped(res: Response, limit: number): Promise<Buffer> {
  // A declared length is of the bytes on the wire; when they are not compressed it is the body's.
  const declared = Number(res.headers.get('content-length'));
  if (!res.headers.get('content-encoding') && Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(limit, declared);
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** The characters that reorder text (bidi embeddings, overrides, isolates and marks) and the BOM. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]+/g;
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * What an error answer says, for a message: the `error` member of a JSON body if it has one, else
 * the body's text (an XML error too), on one line and at most `max` characters; '' for an empty
 * body or a web page. At most 4 KB are read, for at most `waitMs`: an answer that stalls gives what
 * had arrived, and the failure it explains is not held up by it.
 */
export async function errorText(res: Response, max = 400, waitMs = 1000): Promise<string> {
  // A web page says nothing worth quoting: told by its type, else by how it starts.
  if (/^\s*text\/html\b/i.test(res.headers.get('content-type') ?? '')) {
    await res.body?.cancel().catch(() => undefined);
    return '';
  }
  const text = (await readStart(res, 4096, waitMs).catch(() => Buffer.alloc(0))).toString('utf8');
  if (/^\uFEFF?\s*<(!doctype html|html)\b/i.test(text)) return '';
  let said = text;
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof error === 'string') said = error;
  } catch {
    // Not JSON (or cut short): the text as it is.
  }
  // One line, without what a terminal would interpret or reorder (bidi controls, and a byte-order
  // mark); other format characters (the joiners of emoji and scripts) are text. Cut between
  // what a reader sees as characters (grapheme clusters), so a joiner or an accent is not left alone.
  const line = said
    .replace(BIDI_CONTROLS, '')
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
  if (line.length <= max) return line;
  let cut = '';
  for (const { segment } of GRAPHEMES.segment(line)) {
    if (cut.length + segment.length > max) break;
    cut += segment;
  }
  return `${cut}…`;
}

/** The first `max` bytes of a body (fewer when it ends or stalls for `waitMs`); the rest is cancelled. */
async function readStart(res: Response, max: number, waitMs: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  // Cancelling ends a read that waits (it resolves as done): what had arrived is kept.
  const stall = setTimeout(() => void reader.cancel().catch(() => undefined), waitMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    clearTimeout(stall);
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks, size).subarray(0, max);
}
