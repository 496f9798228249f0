/**
 * Events whose sync failed, asked for again by the next sync. A sync with events fetches only what
 * they name, then takes the space's current cache version: the story of an event whose sync failed
 * would be named by no later sync (a census starts from that version too), and stay stale for good.
 * So what a failed sync was asked for joins what the next one is asked for, until one succeeds; a
 * failed sync of everything makes the next one a sync of everything.
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

  /** The sync of `asked` (what `with` gave) failed. */
  failed(asked: WebhookEvent[] | undefined): void {
    this.#left = asked ?? null;
  }

  /** A sync succeeded: it took what was left. */
  succeeded(): void {
    this.#left = [];
  }
}
