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

/**
 * What an error answer says, for a message: the `error` member of a JSON body if it has one, else
 * the body's text, on one line and at most `max` characters (at most 4 KB of it read, the rest not
 * waited for); '' for an empty body or a web page.
 */
export async function errorText(res: Response, max = 400): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readStart(res, 4096);
  } catch {
    return '';
  }
  let text = bytes.toString('utf8');
  if (/^\s*</.test(text)) return '';
  try {
    const said = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof said === 'string') text = said;
  } catch {
    // Not JSON (or cut short): the text as it is.
  }
  // One line, without what a terminal would interpret.
  const line = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** The first `max` bytes of a body (fewer when it is shorter); the rest is cancelled. */
async function readStart(res: Response, max: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
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
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks, size).subarray(0, max);
}
