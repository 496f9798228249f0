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
