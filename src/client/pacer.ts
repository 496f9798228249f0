import { MAX_TIMER_MS, sleepLong } from './retry-after.js';

/**
 * Where a client's request budget comes from: the one piece that decides when a request may
 * start. `Pacer` keeps the budget in this process; a budget shared by several processes
 * implements the same three methods.
 */
export interface RateBudget {
  /** Resolves when a request costing `cost` (seconds of budget at the full rate) may start. */
  acquire(cost: number, signal?: AbortSignal): Promise<void>;
  /** The service refused a request (429): start nothing for `retryAfterSeconds`, and slow down. */
  throttled(retryAfterSeconds: number): void;
  /** The service accepted a request. */
  succeeded(): void;
}

/**
 * Paces requests to the contract's rate tiers, smoothly.
 *
 * Every request spends its cost (the share of a second its tier allows, see
 * `requestCost`) of one budget shared by everything a client fetches. Start
 * times are spaced evenly at `target` of the allowed rate, never in bursts.
 * Slots that pass unused because no request was ready (all in flight, or the
 * process busy) are made up by starting the next requests sooner, never more
 * than `catchUpMs` of budget behind the schedule: without that, every stall
 * would be budget lost for good. (This is a token bucket seen from its
 * schedule: `catchUpMs` is its size, `initialCreditMs` what it starts with.)
 * After a 429 (another consumer of the same token) the rate halves and the
 * pacer waits what `Retry-After` asks; each success then wins the rate back
 * a little at a time (additive increase, multiplicative decrease), and the
 * catch-up shrinks with the rate, so no burst follows a refusal.
 */
export interface PacerOptions {
  /** Share of the allowed rate to aim at (default 0.96). */
  target?: number;
  /** Lowest share after repeated 429s (default 0.1). */
  floor?: number;
  /** Share regained per successful request (default 0.01). */
  step?: number;
  /** How far behind its schedule the pacer may catch up, in ms (default 250; 0: never). */
  catchUpMs?: number;
  /**
   * Budget (in ms at the full rate) the first requests may spend at once: the service's bucket
   * starts full (default 0: the first request starts alone and the rest are spaced).
   */
  initialCreditMs?: number;
  now?: () => number;
  /** Waits `ms`, or less when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class Pacer implements RateBudget {
  #share: number;
  readonly #target: number;
  readonly #floor: number;
  readonly #step: number;
  readonly #catchUpMs: number;
  readonly #initialCreditMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** When the next request is due (ms); unset until the first, which starts at once. */
  #next: number | undefined;

  constructor(options: PacerOptions = {}) {
    this.#target = options.target ?? 0.96;
    this.#share = this.#target;
    this.#floor = options.floor ?? 0.1;
    this.#step = options.step ?? 0.01;
    this.#catchUpMs = options.catchUpMs ?? 250;
    this.#initialCreditMs = options.initialCreditMs ?? 0;
    this.#now = options.now ?? (() => performance.now());
    this.#sleep = options.sleep ?? sleepLong;
  }

  /** The share of the allowed rate currently aimed at. */
  get share(): number {
    return this.#share;
  }

  /** Waits for this request's slot; `cost` is in seconds of budget at the full rate. */
  async acquire(cost: number, signal?: AbortSignal): Promise<void> {
    const now = this.#now();
    // Behind the schedule (slots went unused): start now, and keep the lag so the
    // following requests make up those slots, up to `catchUpMs` of them.
    const floor =
      this.#next === undefined ? now - this.#initialCreditMs : now - (this.#catchUpMs * this.#share) / this.#target;
    const due = Math.max(this.#next ?? floor, floor);
    this.#next = due + (cost * 1000) / this.#share;
    const wait = due - now;
    if (wait > 0) await this.#sleep(wait, signal);
    signal?.throwIfAborted();
  }

  /** A 429: slow down, and wait at least `retryAfterSeconds` before the next start. */
  throttled(retryAfterSeconds = 1): void {
    this.#share = Math.max(this.#floor, this.#share / 2);
    // The wait comes from the network: never more than a timer can hold (a longer one fires at once).
    const resume = this.#now() + Math.min(retryAfterSeconds * 1000, MAX_TIMER_MS);
    this.#next = Math.max(this.#next ?? resume, resume);
  }

  /** A success: regain a little of the rate. */
  succeeded(): void {
    this.#share = Math.min(this.#target, this.#share + this.#step);
  }
}

/**
 * No pacing, for a service without a rate limit that answers in this process (the plugin's
 * embedded one): pacing it to the contract's tiers only made a 10,000-story sync take as long as
 * one from the real service.
 */
export const UNPACED: RateBudget = {
  acquire: () => Promise.resolve(),
  throttled: () => undefined,
  succeeded: () => undefined,
};

/** What the contract's bucket holds: one second of requests at the full rate, full at the start. */
export const SERVICE_BUCKET_MS = 1000;

/**
 * The default budget: the service's bucket mirrored. It is spent at once at the start (the
 * service's starts full), then requests start at the full rate, and slots missed are made up to
 * the bucket's size. `reserveMs` of it stay unspent: requests of the first burst that reach the
 * service later than they started (a service or machine still warming up) find its bucket full,
 * and the refill of that delay is lost to its cap while this side counts it. 150 ms, measured: a
 * 10,000-story sync at 40 ms latency took 23.0 s with no 429; with 50 ms one 429 came in each
 * run, halving the rate, 24.2 s.
 */
export function serviceBudget(reserveMs = 150): Pacer {
  const burst = SERVICE_BUCKET_MS - reserveMs;
  return new Pacer({ target: 1, initialCreditMs: burst, catchUpMs: burst });
}
