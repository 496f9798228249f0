/**
 * The local Content Delivery Service: the request pipeline in front of the
 * endpoint handlers, composed of stages (stages.ts), read top to bottom in
 * the constructor. Every answer is JSON, carries CORS headers and waits
 * `latencyMs` first.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SpaceData } from '../snapshot/index.js';
import { Stats } from './admin.js';
import { AssetService } from './assets/index.js';
import { assetAdmin, assetCdn, forAssets, selfAssetUrls } from './assets/stages.js';
import { CdnCache } from './cdn-cache.js';
import { FaultInjector, type FaultPlan } from './faults.js';
import { compose, type Exchange, type Stage } from './pipeline.js';
import { RateLimiter } from './rate-limiter.js';
import { CORS_HEADERS, encode, errorReply, send } from './respond.js';
import * as stage from './stages.js';
import { SpaceStore, type ChangeEvent } from './store.js';
import { postWebhook, webhookPayload, type WebhookPayload } from './webhooks.js';

export interface ServiceOptions {
  /** The space: loaded data, or a store to share. */
  space: SpaceData | SpaceStore;
  publicToken?: string;
  previewToken?: string;
  /** Fixed delay before every answer, in milliseconds. */
  latencyMs?: number;
  /** Enforce the contract's rate tiers (default true). */
  rateLimit?: boolean;
  faults?: FaultPlan;
  /** Serve the control plane under /__admin/ (to a browser only from its own origin, at a name of this machine). */
  admin?: boolean;
  /** The host it listens on (startServer's): a browser may address the control plane by it. */
  host?: string;
  webhook?: { url: string; secret: string };
  log?: (line: string) => void;
  clock?: () => Date;
  /** Largest control-plane body accepted, in bytes (default 10 MiB). */
  maxBodyBytes?: number;
  /**
   * `self`: delivered asset URLs of the space point at this service's own origin (from the
   * request's Host), whose asset CDN serves them; `stored` (default): delivered as stored.
   */
  assetUrls?: 'self' | 'stored';
  /**
   * The module images are made with (default `sharp`, an optional peer dependency). Without it,
   * the image service and stand-in raster images answer 501 saying how to install it.
   */
  imageLibrary?: string;
}

export const DEFAULT_PUBLIC_TOKEN = 'local-public-token';
export const DEFAULT_PREVIEW_TOKEN = 'local-preview-token';
/** Largest request line plus headers accepted (long `by_uuids` lists and search terms fit). */
export const MAX_REQUEST_HEAD_BYTES = 256 * 1024;

export class ContentService {
  readonly store: SpaceStore;
  readonly stats = new Stats();
  readonly publicToken: string;
  readonly previewToken: string;
  /** The asset CDN and image service. */
  readonly assets: AssetService;
  #webhook: WebhookTarget | undefined;
  #draftListener: ((storyId: number) => void) | undefined;
  readonly #log: (line: string) => void;
  /** Webhook deliveries under way, so that tests and shutdown can wait for them. */
  readonly #deliveries = new Set<Promise<unknown>>();
  readonly #parts: stage.ServiceParts;
  readonly #pipeline: Stage<Exchange>;

  /** Whether delivered asset URLs point at this service (ServiceOptions.assetUrls). */
  readonly #selfAssetUrls: boolean;

  constructor(options: ServiceOptions) {
    this.#selfAssetUrls = options.assetUrls === 'self';
    this.store =
      options.space instanceof SpaceStore ? options.space : new SpaceStore(options.space, { clock: options.clock });
    this.publicToken = options.publicToken ?? DEFAULT_PUBLIC_TOKEN;
    this.previewToken = options.previewToken ?? DEFAULT_PREVIEW_TOKEN;
    this.#webhook = options.webhook;
    this.assets = new AssetService(this.store, options.imageLibrary);
    this.#log = options.log ?? (() => undefined);
    const parts: stage.ServiceParts = (this.#parts = {
      store: this.store,
      stats: this.stats,
      cache: new CdnCache(),
      limiter: options.rateLimit === false ? undefined : new RateLimiter(),
      faults: options.faults ? new FaultInjector(options.faults) : undefined,
      publicToken: this.publicToken,
      previewToken: this.previewToken,
      latencyMs: options.latencyMs ?? 0,
      admin: options.admin ?? false,
      host: options.host,
      maxBodyBytes: options.maxBodyBytes ?? 10 * 1024 * 1024,
      changed: (event) => this.#changed(event),
      draftChanged: (storyId) => this.#draftListener?.(storyId),
    });
    this.#pipeline = compose([
      stage.respond(parts), // sends what the stages inside answered
      ...(this.#selfAssetUrls ? [selfAssetUrls(this.assets)] : []), // asset URLs at this origin
      stage.adminGuard(parts), // /__admin/ from a browser page of another origin or name: 403
      stage.preflight(parts), // OPTIONS: 204
      assetAdmin(parts, this.assets, (payload) => this.#announce(payload)), // /__admin/assets
      stage.admin(parts), // /__admin/: the control plane
      forAssets(compose([stage.faults(parts), assetCdn(parts, this.assets)])), // /f/: files and renditions
      stage.cdnApi([
        // /v1/cdn/, /v2/cdn/ (404 otherwise)
        stage.faults(parts), // injected resets, errors, delays, truncation
        stage.readOnly, // 405
        stage.jsonOnly, // 400
        stage.cdnCache(parts), // a hit answers here, uncounted by the rate limit
        stage.token(parts), // 401
        stage.parameters, // 422
        stage.view(parts), // 401 for drafts without the preview token, 422 for a view the space lacks
        stage.cacheVersion(parts), // v2: 301 to the current cv
        stage.rateLimit(parts), // 429
        stage.endpoint(parts), // the endpoint's handler
      ]),
    ]);
  }

  /** Where (and with which secret) changes are announced; undefined: nowhere. */
  get webhook(): WebhookTarget | undefined {
    return this.#webhook;
  }

  /** Where (and with which secret) changes are announced from now on; undefined stops it. */
  setWebhook(webhook: WebhookTarget | undefined): void {
    this.#webhook = webhook;
  }

  /**
   * Who hears, in this process, of a change the control plane made to a story's draft alone (which
   * posts no webhook, as the real service posts none): a dev server of the draft view. Undefined stops it.
   */
  get draftListener(): ((storyId: number) => void) | undefined {
    return this.#draftListener;
  }

  setDraftListener(listener: ((storyId: number) => void) | undefined): void {
    this.#draftListener = listener;
  }

  /** Resolves when every webhook sent so far has been delivered (or failed). */
  async settled(): Promise<void> {
    while (this.#deliveries.size) await Promise.all([...this.#deliveries]);
  }

  /**
   * Does now what the first requests would otherwise wait for: the default listing, and with
   * asset URLs at this origin the catalog of the assets stories reference (a walk of every story:
   * 0.4 s at 10,000 stories, which the first listing's answer took).
   */
  warm(): void {
    this.store.entries({ view: 'published', lang: 'default' });
    if (this.#selfAssetUrls) this.assets.catalog.origins();
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#handle(req, res).catch((err: unknown) => {
      this.#log(`internal error on ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent) send(res, encode(errorReply(500, 'Internal error')));
      else res.destroy();
    });
  };

  /** A request whose URL cannot be parsed never enters the pipeline. */
  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      await stage.deliver(this.#parts, {
        req,
        res,
        label: 'invalid',
        answer: encode(errorReply(400, 'the request URL cannot be parsed')),
        cached: false,
      });
      return;
    }
    await this.#pipeline(
      { req, res, method: req.method ?? 'GET', url, label: 'unknown', cached: false },
      async () => undefined,
    );
  }

  #changed(event: ChangeEvent): void {
    this.#announce(webhookPayload(event, this.store.space.id));
  }

  #announce(payload: WebhookPayload): void {
    const hook = this.#webhook;
    if (!hook) return;
    if ('deliver' in hook) {
      hook.deliver(payload);
      return;
    }
    const delivery = postWebhook(hook.url, hook.secret, payload, this.#log);
    this.#deliveries.add(delivery);
    void delivery.finally(() => this.#deliveries.delete(delivery));
  }
}

/**
 * Where changes are announced: a webhook URL posted to, signed with the secret, or a receiver in
 * this process (the dev server of an embedded service that has no URL of its own to post to).
 */
export type WebhookTarget = { url: string; secret: string } | { deliver: (payload: WebhookPayload) => void };

export interface RunningServer {
  url: string;
  port: number;
  service: ContentService;
  close(): Promise<void>;
}

/** Starts the service on `host:port` (port 0 picks a free one). */
export async function startServer(options: ServiceOptions & { port?: number; host?: string }): Promise<RunningServer> {
  const service = new ContentService(options);
  const server = http.createServer({ keepAliveTimeout: 5_000, maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, service.handle);
  // Requests Node's parser refuses (head too large, bytes not allowed in a URL) still get a JSON answer.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const e = encode(
      err.code === 'HPE_HEADER_OVERFLOW'
        ? errorReply(
            431,
            `the request line and headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes; shorten the query`,
          )
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? errorReply(408, 'the request was not received in time')
          : errorReply(400, 'the request is malformed; percent-encode the path and query'),
    );
    const head = [
      `HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status]}`,
      'connection: close',
      `content-length: ${e.body.length}`,
    ];
    for (const [k, v] of Object.entries({ ...CORS_HEADERS, ...e.headers })) head.push(`${k}: ${v}`);
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), e.body]));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    service,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
