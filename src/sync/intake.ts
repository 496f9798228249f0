/**
 * Receiving a webhook: the body (bounded), its signature, its payloads. The
 * dev server's endpoint and `content-sync watch` answer with what this says.
 */
import type { IncomingMessage } from 'node:http';
import { verifyWebhook } from '../api/index.js';
import { parseWebhookEvent, type WebhookEvent } from './events.js';

export type Intake = { status: 202; events: WebhookEvent[] } | { status: 400 | 401 | 413; error: string };

/** Reads a request body up to `limit` bytes; undefined when it is larger. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads, verifies and parses one webhook request. */
export async function receiveWebhook(req: IncomingMessage, secret: string, maxBytes: number): Promise<Intake> {
  const body = await readBody(req, maxBytes);
  if (!body) return { status: 413, error: `the body is larger than ${maxBytes} bytes` };
  const signature = req.headers['webhook-signature'] as string | undefined;
  if (signature === undefined) return { status: 401, error: 'no webhook-signature header: webhooks are signed' };
  if (!verifyWebhook(body, secret, signature)) {
    return { status: 401, error: 'the webhook-signature does not match the body' };
  }
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    const events = (Array.isArray(value) ? value : [value])
      .map(parseWebhookEvent)
      .filter((e): e is WebhookEvent => e !== undefined);
    return { status: 202, events };
  } catch (err) {
    return { status: 400, error: `the body is not a webhook payload: ${(err as Error).message}` };
  }
}
