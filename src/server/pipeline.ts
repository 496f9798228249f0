/**
 * The request pipeline's shape: stages composed as Hono composes middleware.
 * A stage either answers (sets `answer`, or writes the socket itself) and
 * returns, or calls `next()` to hand the exchange on; code after `await next()`
 * sees what the inner stages answered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CdnRequest } from './cdn.js';
import type { Encoded } from './respond.js';

/** One request on its way through the pipeline, and the answer it is getting. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly url: URL;
  /** Which counter of the request statistics this request goes to. */
  label: string;
  /** The answer to send; left unset by stages that write the socket themselves. */
  answer?: Encoded;
  /** Whether `answer` came from the CDN cache. */
  cached: boolean;
  /** An injected fault that cuts the connection: at once, or halfway through the body. */
  cut?: 'reset' | 'truncate';
}

/** A request to the Content Delivery API, once its route is known. */
export interface ApiExchange extends Exchange {
  readonly route: Pick<CdnRequest, 'api' | 'endpoint' | 'path'>;
  /** Whether the request's token may read drafts (set by the token stage). */
  preview: boolean;
}

export type Next = () => Promise<void>;
export type Stage<X> = (x: X, next: Next) => Promise<void>;

/** One stage that runs `stages` in order, each inside the one before it. */
export function compose<X>(stages: readonly Stage<X>[]): Stage<X> {
  return (x, last) => {
    const run = (i: number): Promise<void> => {
      const stage = stages[i];
      return stage ? stage(x, () => run(i + 1)) : last();
    };
    return run(0);
  };
}
