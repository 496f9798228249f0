/**
 * What a handler answers, and how it reaches the socket. Every body is JSON,
 * errors included, and every response carries the CORS headers.
 */
import type { ServerResponse } from 'node:http';
import { NOT_FOUND_MESSAGE } from '../api/index.js';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': 'Total, Per-Page, Retry-After, Location',
  'access-control-max-age': '86400',
};

export const JSON_TYPE = 'application/json; charset=utf-8';

export const reply = (status: number, body: unknown, headers?: Record<string, string>): Reply =>
  headers ? { status, body, headers } : { status, body };
export const errorReply = (status: number, message: string, headers?: Record<string, string>): Reply =>
  reply(status, { error: message }, headers);
export const notFound = (): Reply => reply(404, [NOT_FOUND_MESSAGE]);

export interface Encoded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function encode(r: Reply): Encoded {
  const body = Buffer.from(JSON.stringify(r.body));
  return {
    status: r.status,
    headers: { 'content-type': JSON_TYPE, ...r.headers },
    body,
  };
}

export function send(res: ServerResponse, e: Encoded, extra?: Record<string, string>): void {
  res.writeHead(e.status, {
    ...CORS_HEADERS,
    ...e.headers,
    ...extra,
    'content-length': String(e.body.length),
  });
  res.end(e.body);
}
