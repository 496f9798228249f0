/**
 * The local Content Delivery Service: the request pipeline in front of the
 * endpoint handlers.
 *
 *   faults -> route -> token -> CDN cache -> parameters (422) -> view (401)
 *   -> cache version (v2: 301) -> rate limit (429) -> handler -> CDN cache
 *
 * Every answer is JSON, carries CORS headers and waits `latencyMs` first.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UNAUTHORIZED_MESSAGE, notAllowedMessage } from '../api/index.js';
import type { SpaceData } from '../snapshot/index.js';
import { handleAdmin, Stats } from './admin.js';
import { CdnCache } from './cdn-cache.js';
import { carriesCv, disallowedParams, handleCdn, requestedView, route, type CdnRequest } from './cdn.js';
import { FaultInjector, type FaultPlan } from './faults.js';
import { RateLimiter, requestCost } from './rate-limiter.js';
import { CORS_HEADERS, encode, errorReply, notFound, send, type Encoded, type Reply } from './respond.js';
import { SpaceStore, type ChangeEvent } from './store.js';
import { postWebhook, webhookPayload } from './webhooks.js';

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
  /** Serve the control plane under /__admin/. */
  admin?: boolean;
  webhook?: { url: string; secret: string };
  log?: (line: string) => void;
  clock?: () => Date;
  /** Largest control-plane body accepted, in bytes (default 10 MiB). */
  maxBodyBytes?: number;
}

export const DEFAULT_PUBLIC_TOKEN = 'local-public-token';
export const DEFAULT_PREVIEW_TOKEN = 'local-preview-token';
/** Largest request line plus headers accepted (long `by_uuids` lists and search terms fit). */
export const MAX_REQUEST_HEAD_BYTES = 256 * 1024;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ContentService {
  readonly store: SpaceStore;
  readonly stats = new Stats();
  readonly publicToken: string;
  readonly previewToken: string;
  readonly #cache = new CdnCache();
  readonly #limiter: RateLimiter | undefined;
  readonly #faults: FaultInjector | undefined;
  #options: ServiceOptions;
  readonly #log: (line: string) => void;
  /** Webhook deliveries under way, so that tests and shutdown can wait for them. */
  readonly #deliveries = new Set<Promise<unknown>>();

  constructor(options: ServiceOptions) {
    this.#options = { ...options };
    this.store = options.space instanceof SpaceStore ? options.space : new SpaceStore(options.space, { clock: options.clock });
    this.publicToken = options.publicToken ?? DEFAULT_PUBLIC_TOKEN;
    this.previewToken = options.previewToken ?? DEFAULT_PREVIEW_TOKEN;
    this.#limiter = options.rateLimit === false ? undefined : new RateLimiter();
    this.#faults = options.faults ? new FaultInjector(options.faults) : undefined;
    this.#log = options.log ?? (() => undefined);
  }

  /** Where (and with which secret) changes are announced from now on; undefined stops it. */
  setWebhook(webhook: { url: string; secret: string } | undefined): void {
    this.#options.webhook = webhook;
  }

  /** Resolves when every webhook sent so far has been delivered (or failed). */
  async settled(): Promise<void> {
    while (this.#deliveries.size) await Promise.all([...this.#deliveries]);
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#handle(req, res).catch((err: unknown) => {
      this.#log(`internal error on ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent) send(res, encode(errorReply(500, 'Internal error')));
      else res.destroy();
    });
  };

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      await this.#finish(res, encode(errorReply(400, 'the request URL cannot be parsed')), 'invalid', false);
      return;
    }
    if (method === 'OPTIONS') {
      res.writeHead(204, { ...CORS_HEADERS, 'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS' });
      res.end();
      return;
    }
    if (url.pathname.startsWith('/__admin/') || url.pathname === '/__admin') {
      await this.#admin(req, res, method, url);
      return;
    }
    const matched = route(url.pathname);
    const label = matched ? `${matched.api} ${matched.endpoint}` : 'unknown';

    if (matched && this.#faults) {
      const fault = this.#faults.decide(`${method} ${url.pathname}${url.search}`);
      if (fault === 'reset') {
        req.socket.destroy();
        this.stats.count(label, 0, false);
        return;
      }
      if (fault === 'slow') await sleep(this.#faults.plan.slowMs);
      if (fault && /^\d+$/.test(fault)) {
        const status = Number(fault);
        const r = status === 429 ? errorReply(429, 'Too Many Requests', { 'retry-after': '1' }) : errorReply(status, 'Injected server error');
        await this.#finish(res, encode(r), label, false);
        return;
      }
      if (fault === 'truncate') {
        const full = await this.#answer(req, method, url, matched, label);
        if (full) {
          await this.#latency();
          this.stats.count(label, full.status, false);
          res.writeHead(full.status, { ...CORS_HEADERS, ...full.headers, 'content-length': String(full.body.length) });
          res.write(full.body.subarray(0, Math.floor(full.body.length / 2)));
          res.destroy();
        }
        return;
      }
    }
    if (!matched) {
      await this.#finish(res, encode(notFound()), label, false);
      return;
    }
    const cached = this.#bodyProblem(req) ? undefined : this.#cachedAnswer(method, url, matched.endpoint);
    if (cached) {
      await this.#finish(res, cached, label, true);
      return;
    }
    const answer = await this.#answer(req, method, url, matched, label);
    if (answer) await this.#finish(res, answer, label, false);
  }

  async #latency(): Promise<void> {
    if (this.#options.latencyMs) await sleep(this.#options.latencyMs);
  }

  async #finish(res: ServerResponse, e: Encoded, label: string, cached: boolean): Promise<void> {
    await this.#latency();
    this.stats.count(label, e.status, cached);
    if (res.req?.method === 'HEAD') {
      res.writeHead(e.status, { ...CORS_HEADERS, ...e.headers, 'content-length': String(e.body.length) });
      res.end();
      return;
    }
    send(res, e);
  }

  #cacheKey(url: URL): string {
    return url.pathname + url.search;
  }

  /** A CDN hit: a published request at the current cache version, answered before. */
  #cachedAnswer(method: string, url: URL, endpoint: CdnRequest['endpoint']): Encoded | undefined {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    this.#cache.syncVersion(this.store.space.version);
    if (url.searchParams.get('cv') !== String(this.store.space.version)) return undefined;
    if (requestedView({ endpoint, params: url.searchParams }) !== 'published') return undefined;
    return this.#cache.get(this.#cacheKey(url));
  }

  async #answer(
    req: IncomingMessage,
    method: string,
    url: URL,
    matched: NonNullable<ReturnType<typeof route>>,
    _label: string,
  ): Promise<Encoded | undefined> {
    if (method !== 'GET' && method !== 'HEAD') {
      return encode(errorReply(405, `${method} is not supported; the Content Delivery API is read-only (GET)`, { allow: 'GET, HEAD, OPTIONS' }));
    }
    const bodyProblem = this.#bodyProblem(req);
    if (bodyProblem) return encode(errorReply(400, bodyProblem));
    const params = url.searchParams;
    const token = params.get('token');
    const preview = token === this.previewToken;
    if (!token || (!preview && token !== this.publicToken)) return encode(errorReply(401, UNAUTHORIZED_MESSAGE));
    const request: CdnRequest = { ...matched, params, preview };

    const notAllowed = disallowedParams(request);
    if (notAllowed.length) return encode(errorReply(422, notAllowedMessage(notAllowed)));
    const view = requestedView(request);
    const versionParam = params.get('version');
    if (versionParam !== null && versionParam !== 'draft' && versionParam !== 'published' && matched.endpoint !== 'space') {
      return encode(errorReply(422, 'version must be published or draft'));
    }
    if (view === 'draft' && !preview) return encode(errorReply(401, UNAUTHORIZED_MESSAGE));

    const current = String(this.store.space.version);
    if (matched.api === 'v2' && view === 'published' && carriesCv(matched.endpoint) && params.get('cv') !== current) {
      const location = new URL(url.pathname + url.search, 'http://localhost');
      location.searchParams.set('cv', current);
      const target = location.pathname + location.search;
      return encode({ status: 301, body: { location: target }, headers: { location: target } });
    }

    if (this.#limiter) {
      const perPage = Number(params.get('per_page') ?? 25);
      const cost = matched.endpoint === 'stories' ? requestCost('list', Number.isFinite(perPage) ? Math.min(Math.max(perPage, 1), 100) : 25) : requestCost('single');
      const decision = this.#limiter.take(token, cost);
      if (!decision.ok) {
        return encode(
          errorReply(429, 'Too Many Requests: the rate limit of this token is exhausted; slow down and retry later', {
            'retry-after': String(decision.retryAfterSeconds),
          }),
        );
      }
    }

    const answer = encode(handleCdn(this.store, request));
    if (answer.status === 200 && view === 'published' && params.get('cv') === current) {
      this.#cache.syncVersion(this.store.space.version);
      this.#cache.set(this.#cacheKey(url), answer);
    }
    return answer;
  }

  /** Requests carry no body; one that does must at least claim to be JSON. */
  #bodyProblem(req: IncomingMessage): string | undefined {
    const length = Number(req.headers['content-length'] ?? 0);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (length > 0 || chunked) {
      const type = String(req.headers['content-type'] ?? '');
      if (!/json/i.test(type)) return `wrong format: send JSON (content-type ${type || 'missing'} is not accepted)`;
    }
    const accept = req.headers.accept;
    if (accept && !/json|\*\/\*|application\/\*/i.test(accept)) return `wrong format: only JSON is served (Accept: ${accept})`;
    return undefined;
  }

  async #admin(req: IncomingMessage, res: ServerResponse, method: string, url: URL): Promise<void> {
    if (!this.#options.admin) {
      await this.#finish(res, encode(notFound()), 'admin', false);
      return;
    }
    let body: unknown;
    if (method === 'POST' || method === 'PUT') {
      const limit = this.#options.maxBodyBytes ?? 10 * 1024 * 1024;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > limit) {
          send(res, encode(errorReply(413, `the body is larger than ${limit} bytes`)), { connection: 'close' });
          req.destroy();
          return;
        }
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          send(res, encode(errorReply(400, 'the body is not valid JSON')));
          return;
        }
      } else body = {};
    }
    const r: Reply = handleAdmin(this.store, this.stats, method, url.pathname, body, (event) => this.#changed(event));
    send(res, encode(r));
  }

  #changed(event: ChangeEvent): void {
    const hook = this.#options.webhook;
    if (!hook) return;
    const delivery = postWebhook(hook.url, hook.secret, webhookPayload(event, this.store.space.id), this.#log);
    this.#deliveries.add(delivery);
    void delivery.finally(() => this.#deliveries.delete(delivery));
  }
}

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
        ? errorReply(431, `the request line and headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes; shorten the query`)
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? errorReply(408, 'the request was not received in time')
          : errorReply(400, 'the request is malformed; percent-encode the path and query'),
    );
    const head = [`HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status]}`, 'connection: close', `content-length: ${e.body.length}`];
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
