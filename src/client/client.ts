/**
 * The Content Delivery API client: fetch-based, every response checked
 * against the `src/api` schemas, paced to the rate tiers (Pacer) with a
 * bounded number of requests in flight (p-queue), failures retried with
 * exponential backoff and jitter (p-retry), cache versions pinned.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import type { z } from 'zod';
import { requestCost, SpaceEnvelope, type ApiVersion, type Space } from '../api/index.js';
import { ContentApiError, SchemaError, isUnreachable, networkMessage, statusMessage } from './errors.js';
import { Pacer } from './pacer.js';

export type Params = Record<string, string | number | boolean | undefined>;

export interface ClientOptions {
  /** Service origin, e.g. `https://api.example.com` (paths `/v1/cdn/...`, `/v2/cdn/...` are added). */
  baseUrl: string;
  token: string;
  api?: ApiVersion;
  /** Requests in flight at most (default 12). */
  concurrency?: number;
  /** Time one attempt may take, in ms (default 30 s). */
  timeoutMs?: number;
  /** Attempts after the first for retryable failures (default 8). */
  retries?: number;
  /** Smallest backoff in ms (default 250). */
  minBackoffMs?: number;
  /** Longest a request may keep retrying, 429s included, in ms (default 10 minutes). */
  maxRetryTimeMs?: number;
  signal?: AbortSignal;
  pacer?: Pacer;
  /** Hint appended to 401 errors. */
  tokenHint?: string;
  /** Called after every attempt, for progress displays. */
  onAttempt?: (event: AttemptEvent) => void;
}

export interface AttemptEvent {
  endpoint: string;
  status: number | undefined;
  bytes: number;
  ms: number;
}

export interface ClientStats {
  requests: number;
  retries: number;
  throttled: number;
  redirects: number;
  bytes: number;
}

export interface RequestSpec<T extends z.ZodType> {
  /** Path below `/v1/cdn/` or `/v2/cdn/`, e.g. `stories` or `stories/123`. */
  path: string;
  params?: Params;
  schema: T;
  /** Listing (cost by per_page) or single request. */
  kind?: 'list' | 'single';
  /** Attach the pinned cache version (published content). */
  withCv?: boolean;
  /** Queue priority: higher runs first (follow-up requests that complete work in memory). */
  priority?: number;
}

export interface Answer<T> {
  body: T;
  headers: Headers;
}

function cvOf(location: string): number | undefined {
  try {
    const cv = new URL(location, 'http://x').searchParams.get('cv');
    return cv !== null && /^\d+$/.test(cv) ? Number(cv) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a zod error points, as `stories[3].content._uid`. */
function issuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

export class ContentClient {
  readonly api: ApiVersion;
  readonly stats: ClientStats = { requests: 0, retries: 0, throttled: 0, redirects: 0, bytes: 0 };
  /** The pinned cache version; set by `space()`. */
  cv: number | undefined;
  /** The newest cache version seen in answers, when it differs from the pinned one. */
  movedTo: number | undefined;
  readonly pacer: Pacer;
  readonly #options: ClientOptions;
  readonly #queue: PQueue;
  readonly #base: string;

  constructor(options: ClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new ContentApiError(`the base URL "${options.baseUrl}" is not a URL; set CONTENT_BASE_URL to e.g. https://api.example.com`, undefined, '', false);
    }
    if (!options.token) throw new ContentApiError('no access token; set CONTENT_TOKEN (or pass --token)', undefined, '', false);
    this.#options = options;
    this.api = options.api ?? 'v2';
    this.#base = base.toString().replace(/\/+$/, '');
    this.#queue = new PQueue({ concurrency: options.concurrency ?? 12 });
    // Every request in flight listens to the caller's signal.
    if (options.signal) setMaxListeners(0, options.signal);
    // Half of the full bucket the service starts with is spent at once; the rest of the time
    // requests start at 97% of the allowed rate (the margin absorbs timing jitter).
    this.pacer = options.pacer ?? new Pacer({ target: 0.97, initialCreditMs: 500 });
  }

  #url(path: string, params: Params): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    q.set('token', this.#options.token);
    return `${this.#base}/${this.api}/cdn/${path}?${q}`;
  }

  /** The space, and its cache version pinned for later published requests. */
  async space(): Promise<Space> {
    const { body } = await this.request({ path: 'spaces/me', schema: SpaceEnvelope });
    this.cv = body.space.version;
    this.movedTo = undefined;
    return body.space;
  }

  /** One request through the queue, paced and retried. */
  request<T extends z.ZodType>(spec: RequestSpec<T>): Promise<Answer<z.output<T>>> {
    const params: Params = { ...spec.params };
    if (spec.withCv && this.cv !== undefined) params.cv = this.cv;
    const perPage = typeof params.per_page === 'number' ? params.per_page : Number(params.per_page ?? 25);
    const cost = requestCost(spec.kind ?? 'single', perPage);
    const signal = this.#options.signal;
    return this.#queue.add(
      () =>
        pRetry((attempt) => this.#attempt(spec, params, cost, attempt), {
          retries: this.#options.retries ?? 8,
          factor: 2,
          minTimeout: this.#options.minBackoffMs ?? 250,
          maxTimeout: 15_000,
          randomize: true,
          ...(signal ? { signal } : {}),
          onFailedAttempt: () => {
            this.stats.retries++;
          },
          // A service that refuses connections or a host that does not resolve
          // is a wrong address more often than a blip: give up after a few tries.
          shouldRetry: ({ error, attemptNumber }) =>
            error instanceof ContentApiError && error.retryable && (!error.unreachable || attemptNumber < 4),
          // A 429 is the service pacing us, not a failure: it spends no retry (the pacer
          // already waits Retry-After), so a long storm slows a sync down but never fails it.
          shouldConsumeRetry: ({ error }) => !(error instanceof ContentApiError && error.status === 429),
          maxRetryTime: this.#options.maxRetryTimeMs ?? 10 * 60_000,
        }),
      { ...(signal ? { signal } : {}), priority: spec.priority ?? 0 },
    ) as Promise<Answer<z.output<T>>>;
  }

  async #attempt<T extends z.ZodType>(spec: RequestSpec<T>, params: Params, cost: number, attempt: number): Promise<Answer<z.output<T>>> {
    const signal = this.#options.signal;
    await this.pacer.acquire(cost, signal);
    let url = this.#url(spec.path, params);
    const endpoint = `/${this.api}/cdn/${spec.path}`;
    const started = performance.now();
    // A redirect (a cache version the service no longer serves) is followed by hand, at most twice.
    for (let hop = 0; ; hop++) {
      const timeout = AbortSignal.timeout(this.#options.timeoutMs ?? 30_000);
      let res: Response;
      let text: string;
      this.stats.requests++;
      try {
        res = await fetch(url, {
          redirect: 'manual',
          headers: { accept: 'application/json' },
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        text = await res.text();
      } catch (err) {
        if (signal?.aborted) throw new AbortError(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        this.#options.onAttempt?.({ endpoint, status: undefined, bytes: 0, ms: performance.now() - started });
        const failure = new ContentApiError(`${networkMessage(err, url)} (${endpoint}, attempt ${attempt})`, undefined, endpoint, true);
        failure.unreachable = isUnreachable(err);
        throw failure;
      }
      const bytes = Buffer.byteLength(text);
      this.stats.bytes += bytes;
      this.#options.onAttempt?.({ endpoint, status: res.status, bytes, ms: performance.now() - started });
      if ((res.status === 301 || res.status === 302) && hop < 2) {
        const location = res.headers.get('location');
        if (!location) throw new ContentApiError(`${res.status} from ${endpoint} without a Location`, res.status, endpoint, true);
        this.stats.redirects++;
        const cv = cvOf(location);
        if (cv !== undefined && cv !== this.cv) this.movedTo = Math.max(this.movedTo ?? 0, cv);
        url = new URL(location, url).toString();
        continue;
      }
      if (res.status === 429) {
        this.stats.throttled++;
        const retryAfter = Number(res.headers.get('retry-after') ?? 1);
        this.pacer.throttled(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1);
        throw new ContentApiError(statusMessage(429, endpoint, text, ''), 429, endpoint, true, retryAfter);
      }
      if (res.status >= 500 || res.status === 408) {
        throw new ContentApiError(statusMessage(res.status, endpoint, text, ''), res.status, endpoint, true);
      }
      if (res.status !== 200) {
        const hint = this.#options.tokenHint ?? 'set CONTENT_TOKEN';
        throw new AbortError(new ContentApiError(statusMessage(res.status, endpoint, text, hint, this.#base), res.status, endpoint, false));
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        const type = res.headers.get('content-type');
        if (type && !/json/i.test(type)) {
          // Another kind of server (a web site, a login page): asking again will not help.
          throw new AbortError(
            new ContentApiError(
              `200 from ${endpoint} is not JSON but ${type.split(';')[0]}: ${this.#base} does not answer like the Content Delivery API; check the base URL (CONTENT_BASE_URL)`,
              200,
              endpoint,
              false,
            ),
          );
        }
        // A cut connection: worth another attempt.
        throw new ContentApiError(`200 from ${endpoint} with a body that is not complete JSON (${bytes} bytes)`, 200, endpoint, true);
      }
      const parsed = spec.schema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new AbortError(
          new SchemaError(
            `the answer of ${endpoint} does not match the contract at ${issuePath(issue.path)}: ${issue.message}`,
            200,
            endpoint,
            false,
          ),
        );
      }
      const bodyCv = (json as { cv?: unknown }).cv;
      if (spec.withCv && typeof bodyCv === 'number' && this.cv !== undefined && bodyCv !== this.cv) {
        this.movedTo = Math.max(this.movedTo ?? 0, bodyCv);
      }
      this.pacer.succeeded();
      return { body: parsed.data, headers: res.headers };
    }
  }

  /**
   * Every page of a listing: page 1 first (for `Total` and `Per-Page`), then
   * the remaining pages concurrently under the scheduler. `onPage` receives
   * each page's items as it arrives (not in order); memory holds only pages
   * in flight.
   */
  async paginate<T extends z.ZodType, K extends string>(
    spec: RequestSpec<T> & { key: K; perPage: number },
    onPage: (items: unknown[], page: number) => Promise<void> | void,
  ): Promise<{ total: number; pages: number }> {
    const first = await this.request({ ...spec, params: { ...spec.params, per_page: spec.perPage, page: 1 } });
    const total = Number(first.headers.get('total'));
    const perPage = Number(first.headers.get('per-page'));
    const items = (first.body as Record<string, unknown[]>)[spec.key] ?? [];
    if (!Number.isFinite(total) || !Number.isFinite(perPage) || perPage <= 0) {
      throw new ContentApiError(
        `the listing /${this.api}/cdn/${spec.path} has no usable Total and Per-Page headers, so its pages cannot be counted`,
        200,
        spec.path,
        false,
      );
    }
    const pages = Math.max(1, Math.ceil(total / perPage));
    // Page 1 is handled while the other pages are already on their way: the
    // pacer's slots are not left unused meanwhile.
    const rest: Promise<void>[] = [Promise.resolve().then(() => onPage(items, 1))];
    for (let page = 2; page <= pages; page++) {
      rest.push(
        this.request({ ...spec, params: { ...spec.params, per_page: spec.perPage, page } }).then((r) =>
          onPage((r.body as Record<string, unknown[]>)[spec.key] ?? [], page),
        ),
      );
    }
    const settled = await Promise.allSettled(rest);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return { total, pages };
  }

  /** Waits for every queued request to end. */
  async idle(): Promise<void> {
    await this.#queue.onIdle();
  }
}
