/**
 * The Redis connection of a fleet (ioredis, loaded here and only when Redis is configured), and
 * the names of a fleet's keys. Builders belong to one fleet when they sync the same service with
 * the same token, API version and views into the same store; the token itself is never written.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadOptional } from './optional.js';

export type { Redis };

/**
 * A Redis URL as a message may show it: without its user and password (managed Redis hands out
 * `redis://default:PASSWORD@host:port`), since messages go to terminals and CI logs.
 */
export function shownRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    // Not a URL: what comes before the last @ may still be a password.
    return url.replace(/^([a-z]+:\/\/)?.*@/i, '$1');
  }
}

export async function connectRedis(url: string): Promise<Redis> {
  const { Redis } = await loadOptional(
    'ioredis',
    `the coordination through ${shownRedisUrl(url)}`,
    () => import('ioredis'),
  );
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 5_000,
    // A server that stops answering (paused, a network that drops packets) fails the command, as one that is gone.
    commandTimeout: 5_000,
    maxRetriesPerRequest: 2,
    // A few reconnections, then the commands fail (and the builder goes on without Redis).
    retryStrategy: (times) => (times > 3 ? null : 200 * times),
  });
  // Failures reach the caller through the commands that fail; the event would only print them again.
  // The last one is kept: a connect that gives up says only 'Connection is closed.', not why.
  let cause: Error | undefined;
  client.on('error', (err: Error) => {
    cause = err;
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw cause ?? err;
  }
  return client;
}

/** The prefix of a fleet's keys. */
export function fleetKey(parts: {
  baseUrl: string;
  token: string;
  api: string;
  views: readonly string[];
  store?: string;
  /** Whether the builders download assets into the snapshot: one that does takes no snapshot of one that does not. */
  assets?: boolean;
}): string {
  const id = createHash('sha256')
    .update(
      [
        new URL(parts.baseUrl).origin,
        parts.token,
        parts.api,
        [...parts.views].sort().join('+'),
        parts.store ?? '',
        // Appended only when on: the keys of fleets without assets stay as they were.
        ...(parts.assets ? ['assets'] : []),
      ].join('\n'),
    )
    .digest('hex')
    .slice(0, 24);
  return `content-sync:${id}`;
}

/** The prefix of a token's shared rate budget: one per service and token, whatever is synced with it. */
export function budgetKey(baseUrl: string, token: string): string {
  const id = createHash('sha256')
    .update(`${new URL(baseUrl).origin}\n${token}`)
    .digest('hex')
    .slice(0, 24);
  return `content-sync:budget:${id}`;
}
