/**
 * The dev servers of one plugin instance that are open: frameworks may start a second before the
 * first closes. The newest one that can take them gets the embedded service's changes; each
 * server's environments tell which server a closeBundle closes.
 */
import type { WebhookTarget } from '../server/index.js';
import type { WebhookEvent } from '../sync/index.js';
import type { ContentPipeline } from './pipeline.js';

/**
 * A dev server of the plugin: its environments (closeBundle tells by them which server closes), what
 * stops its updates, and its webhook URL once it listens.
 */
export interface OpenServer {
  readonly environments: ReadonlySet<object>;
  stop(): void;
  /** Starts watching the embedded space directory `dir` for this server, once (the service has started). */
  watchSpace(dir: string): void;
  readonly webhook?: WebhookTarget;
  /** Takes a change the embedded service made to a story's draft alone (the draft view only). */
  readonly drafts?: (event: WebhookEvent) => void;
}

/** What closing a server's environment left: nothing to do, other servers open, or none. */
export type Closed = 'already closed' | 'others open' | 'none open';

export class OpenServers {
  readonly #open: OpenServer[] = [];
  /** Environments of the servers that closed: each calls closeBundle, the first one closes its server. */
  readonly #closed = new WeakSet<object>();

  /** `pipeline` is the instance's pipeline of the moment (none before it starts). */
  constructor(private readonly pipeline: () => ContentPipeline | undefined) {}

  add(server: OpenServer): void {
    this.#open.push(server);
  }

  /** The embedded service posts its changes to the newest open server that listens (none: to no one). */
  route(): void {
    const service = this.pipeline()?.server?.service;
    if (!service) return;
    service.setWebhook(this.#open.findLast((s) => s.webhook)?.webhook);
    // A draft saved posts no webhook (none is posted for it by the real service either); a dev
    // server of the draft view shows it all the same, told in this process.
    const drafts = this.#open.findLast((s) => s.drafts)?.drafts;
    service.setDraftListener(
      drafts && ((id) => drafts({ action: 'published', space_id: service.store.space.id, story_id: id })),
    );
  }

  /** Every open server watches the embedded space directory `dir`. */
  watchSpace(dir: string): void {
    for (const s of this.#open) s.watchSpace(dir);
  }

  /** Stops the server `environment` belongs to (its first environment to close does). */
  close(environment: object): Closed {
    if (this.#closed.has(environment)) return 'already closed';
    const at = this.#open.findIndex((s) => s.environments.has(environment));
    // An environment no open server had when it was configured (none known to do that): which
    // server closes cannot be told, so every one stops, as when there was one.
    const closed = at >= 0 ? this.#open.splice(at, 1) : this.#open.splice(0);
    for (const s of closed) {
      s.stop();
      for (const e of s.environments) this.#closed.add(e);
    }
    return this.#open.length ? 'others open' : 'none open';
  }
}
