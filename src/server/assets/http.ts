/**
 * Answering a file the way a CDN does: strong ETag, long-lived immutable
 * caching, conditional requests (304), single byte ranges (206/416) and HEAD.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORS_HEADERS } from '../respond.js';

/** Asset URLs change when their bytes do (the hash is in the path), so caches may keep them for a year. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function etagOf(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/** A single `bytes=` range of a file of `size` bytes: the span, 'unsatisfiable', or undefined to send it whole. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined; // several ranges or another unit: the whole file
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

export function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  bytes: Buffer,
  type: string,
  extra: Record<string, string> = {},
): void {
  const etag = etagOf(bytes);
  const headers: Record<string, string> = {
    ...CORS_HEADERS,
    'content-type': type,
    etag,
    'cache-control': ASSET_CACHE_CONTROL,
    'accept-ranges': 'bytes',
    ...extra,
  };
  const head = req.method === 'HEAD';
  const match = req.headers['if-none-match'];
  if (match?.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const ifRange = req.headers['if-range'];
  const range = ifRange && ifRange !== etag ? undefined : parseRange(req.headers.range, bytes.length);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${bytes.length}`, 'content-length': '0' });
    res.end();
    return;
  }
  const body = range ? bytes.subarray(range.start, range.end + 1) : bytes;
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${bytes.length}`;
  res.writeHead(range ? 206 : 200, { ...headers, 'content-length': String(body.length) });
  res.end(head ? undefined : body);
}
