/**
 * One syncer per fleet: a lease in Redis (`SET key owner NX PX ms`), renewed while its holder
 * works. A holder that dies stops renewing, and the lease expires: another builder takes it.
 * Renewal and release act only on the holder's own lease (compare and set, in one script).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Redis } from './redis.js';

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export class Lease {
  /** Who holds it, as others see it: host, pid and a nonce. */
  readonly owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly redis: Redis,
    readonly key: string,
    readonly ms: number,
    readonly onLost: (message: string) => void,
  ) {}

  /** Takes the lease if nobody holds it; renewed from then on until release(). */
  async take(): Promise<boolean> {
    let answer: string | null;
    try {
      answer = await this.redis.set(this.key, this.owner, 'PX', this.ms, 'NX');
    } catch (err) {
      // A SET that timed out here is still on its way and may land when Redis answers again, holding
      // the lease for no one: the release, sent after it on the same connection, takes it back.
      void this.release();
      throw err;
    }
    if (answer !== 'OK') return false;
    this.#timer = setInterval(() => void this.#renew(), Math.max(50, Math.floor(this.ms / 3)));
    this.#timer.unref();
    return true;
  }

  async #renew(): Promise<void> {
    const kept = await this.redis.eval(RENEW, 1, this.key, this.owner, this.ms).catch(() => 0);
    if (kept === 1 || !this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.onLost(
      `content-sync: lost the sync lease ${this.key} (Redis unreachable or the lease expired); another builder may sync too`,
    );
  }

  /** The current holder, if any. */
  holder(): Promise<string | null> {
    return this.redis.get(this.key);
  }

  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.redis.eval(RELEASE, 1, this.key, this.owner).catch(() => undefined);
  }
}
