/**
 * Small helpers shared by the conformance tests: they read answers of the
 * real service, they never stand in for it.
 */
import http from 'node:http';
import { uuidOf } from '../../helpers/fixture-space.js';

export { uuidOf };

/** Ids of the stories of a list answer, in order. */
export const ids = (body: { stories: Array<{ id: number }> }): number[] => body.stories.map((s) => s.id);

/** Ids of every published story of the fixture space, in space order. */
export const PUBLISHED_IDS = [10, 11, 12, 13, 14, 16, 17, 18, 19, 20];

export const NOT_FOUND = ['This record could not be found'];
export const UNAUTHORIZED = { error: 'Unauthorized' };

/** The query of a Location header as a plain object (every key once). */
export function queryOf(location: string): Record<string, string> {
  const url = new URL(location, 'http://localhost');
  return Object.fromEntries(url.searchParams);
}

/** A raw request with any method, headers and body (fetch refuses a GET body). */
export function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = http.request(base + path, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
