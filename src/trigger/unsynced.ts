/**
 * Events whose sync failed, asked for again by the next sync. A sync with events fetches only what
 * they name, then takes the space's current cache version: the story of an event whose sync failed
 * would be named by no later sync (a census starts from that version too), and stay stale for good.
 * So what a failed sync was asked for joins what the next one is asked for, until one succeeds; a
 * failed sync of everything, or one whose request the service refused, makes the next one a sync
 * of everything.
 */
import type { WebhookEvent } from '../sync/index.js';

export class Unsynced {
  /** What failed syncs were asked for; null: everything. */
  #left: WebhookEvent[] | null = [];

  /** What to sync when asked for `events` (undefined: everything). */
  with(events: WebhookEvent[] | undefined): WebhookEvent[] | undefined {
    if (events === undefined || this.#left === null) return undefined;
    return this.#left.length ? [...this.#left, ...events] : events;
  }

  /**
   * The sync of `asked` (what `with` gave) failed with `error`. When the service refused one of its
   * requests, what the events name may be why (a story id no service takes): asked for again, they
   * would fail every later sync. The next sync is then a sync of everything, which needs none of them.
   */
  failed(asked: WebhookEvent[] | undefined, error?: unknown): void {
    this.#left = asked === undefined || refused(error) ? null : asked;
  }

  /** Whether the next sync is of everything (a failed sync of everything, or a refused request, before it). */
  get everything(): boolean {
    return this.#left === null;
  }

  /** A sync succeeded: it took what was left. */
  succeeded(): void {
    this.#left = [];
  }
}

/**
 * Whether the error, or one it was caused by, is the service refusing a request: a 4xx answer other
 * than a missing or wrong token (401, 403: no event causes those) and a wait (408, 429).
 */
function refused(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    const status = (e as { status?: unknown }).status;
    if (typeof status === 'number') return status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
  }
  return false;
}
