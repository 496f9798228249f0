/**
 * One rate budget for every process syncing with one token: the contract's bucket (one second of
 * requests at the full rate, refilled continuously) kept in Redis, and spent by an atomic script.
 * Each request reserves its cost (`requestCost`, in ms of budget) and is told when its slot
 * comes: at once while the bucket holds enough, else as many ms later as the bucket is short.
 * Reservations queue in the order they reach Redis, so no process starves and, whatever the
 * number of processes, the requests start no faster than the service refills its bucket.
 */
import { type RateBudget, SERVICE_BUCKET_MS, serviceBudget } from '../client/index.js';
import { sleepLong } from '../client/retry-after.js';
import type { Redis } from './redis.js';

/**
 * KEYS[1]: the bucket; ARGV: cost, capacity (ms), pause (ms, after a 429), refill per ms. Returns the wait in ms.
 * The bucket is kept a minute past its debt: a pause longer than that (Retry-After: 120) still holds
 * for a process that starts during it.
 */
const SPEND = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'level', 'at')
local level = tonumber(held[1]) or cap
local at = tonumber(held[2]) or now
level = math.min(cap, level + (now - at) * tonumber(ARGV[4]))
local pause = tonumber(ARGV[3])
if pause > 0 then level = math.min(level, -pause) end
level = level - tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'level', level, 'at', now)
redis.call('PEXPIRE', KEYS[1], 60000 + math.max(0, math.ceil(-level)))
if level >= 0 then return 0 end
return math.ceil(-level)
`;

/**
 * Requests that reach the service later than they started (a busy process, a slow connection)
 * spend the service's bucket later than this one: part of the bucket stays unspent, and the rate
 * aimed at is a little under the contract's, so the service's bucket holds the difference.
 */
const RESERVE_MS = 200;
const SHARE = 0.9;

export class RedisBudget implements RateBudget {
  #local: RateBudget | undefined;

  constructor(
    readonly redis: Redis,
    readonly key: string,
    readonly log: (message: string) => void,
  ) {}

  async acquire(cost: number, signal?: AbortSignal): Promise<void> {
    if (this.#local) return this.#local.acquire(cost, signal);
    let wait: number;
    try {
      wait = Number(await this.#spend(cost * 1000, 0));
    } catch (err) {
      this.#fallBack(err);
      return this.#local!.acquire(cost, signal);
    }
    if (wait > 0) await sleepLong(wait, signal);
    signal?.throwIfAborted();
  }

  /** A 429 (another consumer of the token): every process sharing the budget pauses for `retryAfterSeconds`. */
  throttled(retryAfterSeconds = 1): void {
    if (this.#local) this.#local.throttled(retryAfterSeconds);
    else this.#spend(0, retryAfterSeconds * 1000).catch((err: unknown) => this.#fallBack(err));
  }

  succeeded(): void {
    this.#local?.succeeded();
  }

  #spend(costMs: number, pauseMs: number): Promise<unknown> {
    return this.redis.eval(SPEND, 1, this.key, costMs, SERVICE_BUCKET_MS - RESERVE_MS, pauseMs, SHARE);
  }

  /** Redis failed: this process paces itself alone from now on. */
  #fallBack(err: unknown): void {
    if (this.#local) return;
    this.#local = serviceBudget();
    this.log(
      `content-sync: the shared rate budget in Redis failed (${(err as Error).message}): pacing this sync alone`,
    );
  }
}
