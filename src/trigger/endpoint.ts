/**
 * The webhook endpoint of the dev server and of `content-sync watch`: reads the
 * body (bounded), checks its signature, answers (202 at once, or 400, 401, 413),
 * then hands the events over. Nothing a sender does reaches the host as an
 * error: a body cut short (the sender went away) is logged and dropped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { receiveWebhook, type WebhookEvent } from '../sync/index.js';

export interface EndpointOptions {
  secret: string;
  maxBytes: number;
  /** The events of an accepted webhook (possibly none), after the 202 went out. */
  accept(events: WebhookEvent[]): void;
  /** Refusals and failures, one line each. */
  log(line: string): void;
}

export function answer(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

/** A handler for `POST` requests (route the other methods before it). */
export function webhookEndpoint(options: EndpointOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const intake = await receiveWebhook(req, options.secret, options.maxBytes);
    if (intake.status !== 202) {
      options.log(`webhook refused: ${intake.error} (${intake.status})`);
      // An oversized body is not read to its end: close the connection after the answer.
      answer(res, intake.status, { error: intake.error }, intake.status === 413);
      return;
    }
    answer(res, 202, { accepted: intake.events.length });
    options.accept(intake.events);
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.log(`webhook dropped: ${(err as Error).message}`);
      if (!res.headersSent && !res.destroyed) answer(res, 400, { error: (err as Error).message }, true);
    });
  };
}
