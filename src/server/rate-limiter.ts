/**
 * The contract's rate tiers as one shared budget per token.
 *
 * Each token owns a bucket holding at most one second's allowance (1.0),
 * refilled continuously at 1.0 per second. A request costs the fraction of a
 * second its tier allows: 1/50 for single items, datasources and listings of
 * up to 25 per page; 1/15 up to 50; 1/10 up to 75; 1/5 up to 100. So a
 * listing at 100 per page costs ten times one at 25.
 */

export { requestCost, tierRate } from '../api/limits.js';

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  level: number;
  at: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  /** Spends `cost` of `key`'s budget, or says how long to wait. */
  take(key: string, cost: number): RateDecision {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { level: 1, at: now };
      this.#buckets.set(key, bucket);
    }
    bucket.level = Math.min(1, bucket.level + (now - bucket.at) / 1000);
    bucket.at = now;
    // A small tolerance absorbs floating-point dust (50 x 1/50 must fit in 1).
    if (bucket.level + 1e-9 >= cost) {
      bucket.level -= cost;
      return { ok: true };
    }
    const waitMs = (cost - bucket.level) * 1000;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}
