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
import {
  type ApiVersion,
  itemsOnPage,
  type ListingCount,
  lastPage,
  MAX_LISTING_ITEMS,
  readListingCount,
  requestCost,
  type Space,
  SpaceEnvelope,
} from '../api/index.js';
import { BodyTooLarge, DEFAULT_MAX_RESPONSE_BYTES, formatBytes, readCapped } from './body.js';
import { withDeadline } from './deadline.js';
import {
  ContentApiError,
  isUnreachable,
  refusedPort,
  networkMessage,
  SchemaError,
  statusMessage,
  UntrustedCount,
} from './errors.js';
import { parseJsonBody } from './json-body.js';
import { type RateBudget, serviceBudget } from './pacer.js';
import { retryAfterSeconds } from './retry-after.js';

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
  /**
   * Bytes one response may hold after decompression (default 64 MB); a larger one ends the
   * request with an error that says so.
   */
  maxResponseBytes?: number;
  /** Items a listing's `Total` may claim (default 1,000,000); a larger count is refused. */
  maxListingItems?: number;
  signal?: AbortSignal;
  /** Where request budget comes from (default: a local Pacer mirroring the service's bucket). */
  pacer?: RateBudget;
  /** Hint appended to 401 errors. */
  tokenHint?: string;
  /** Called after every attempt, for progress displays. */
  onAttempt?: (event: AttemptEvent) => void;
  /**
   * Called when a failed attempt is to be made again (429s aside, which are pacing), so a sync
   * held up by a failing or silent service says why instead of printing nothing for minutes.
   */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** What failed, as its error says it (endpoint and attempt included). */
  message: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Attempts left after this one. */
  retriesLeft: number;
}

/** A retry as a log line: what failed, and how many tries are left. */
export function retryLine(r: RetryEvent): string {
  return `${r.message}; trying again (${r.retriesLeft} ${r.retriesLeft === 1 ? 'attempt' : 'attempts'} left)`;
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

/** A listing: the key of its items in the body, and the page size to ask for. */
export type ListingSpec<T extends z.ZodType> = RequestSpec<T> & { key: string; perPage: number };

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

/**
 * A Location as a message may show it: the service's redirects carry the request's token, and a
 * message goes to terminals and CI logs.
 */
function withoutToken(location: string): string {
  return location.replace(/([?&]token=)[^&#]*/gi, '$1…');
}

/** Where a zod error points, as `stories[3].content._uid`. */
function issuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

/**
 * The item of an answer an issue is in (a story of a listing, the story of a single answer), as
 * ` (id 12, full_slug "blog/post")`: where a listing's index names it only within a page.
 */
function itemNamed(json: unknown, path: ReadonlyArray<PropertyKey>): string {
  let item = json;
  for (const p of typeof path[1] === 'number' ? path.slice(0, 2) : path.slice(0, 1))
    item = item !== null && typeof item === 'object' ? (item as Record<PropertyKey, unknown>)[p] : undefined;
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return '';
  const { id, full_slug: slug } = item as Record<string, unknown>;
  if (typeof id !== 'number' && typeof id !== 'string') return '';
  return ` (id ${JSON.stringify(id)}${typeof slug === 'string' ? `, full_slug ${JSON.stringify(slug)}` : ''})`;
}

/** Attempts at a service that refuses connections or a host that does not resolve, at most. */
const UNREACHABLE_ATTEMPTS = 4;

export class ContentClient {
  readonly api: ApiVersion;
  readonly stats: ClientStats = { requests: 0, retries: 0, throttled: 0, redirects: 0, bytes: 0 };
  /** The pinned cache version; set by `space()`. */
  cv: number | undefined;
  /** The newest cache version seen in answers, when it differs from the pinned one. */
  movedTo: number | undefined;
  readonly pacer: RateBudget;
  readonly #options: ClientOptions;
  readonly #queue: PQueue;
  readonly #base: string;
  /** Redirects are followed only to here: the token goes nowhere else. */
  readonly #origin: string;

  constructor(options: ClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new ContentApiError(
        `the base URL "${options.baseUrl}" is not a URL; set CONTENT_BASE_URL to e.g. https://api.example.com`,
        undefined,
        '',
        false,
      );
    }
    // No request to another scheme can succeed: refused now, not after a minute of retries.
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new ContentApiError(
        `the base URL ${base.origin === 'null' ? base.protocol : base.origin} must be an http or https URL; set CONTENT_BASE_URL to e.g. https://api.example.com`,
        undefined,
        '',
        false,
      );
    // fetch refuses such a URL with a message quoting it whole, the request's token with it.
    if (base.username || base.password)
      throw new ContentApiError(
        `the base URL ${base.origin} holds a user name or password, which requests cannot carry in a URL; give the service's origin alone (CONTENT_BASE_URL), e.g. https://api.example.com`,
        undefined,
        '',
        false,
      );
    // The API's paths and the token follow the base URL: a query or fragment (a URL copied whole,
    // ?token= and all) would swallow them, and every message would quote it.
    if (base.search || base.hash)
      throw new ContentApiError(
        `the base URL ${base.origin}${base.pathname} has a ${base.search ? 'query (?…)' : 'fragment (#…)'}, where the API's paths would go; give the service's origin alone (CONTENT_BASE_URL), e.g. https://api.example.com, and the token as the token`,
        undefined,
        '',
        false,
      );
    if (!options.token)
      throw new ContentApiError('no access token; set CONTENT_TOKEN (or pass --token)', undefined, '', false);
    this.#options = options;
    this.api = options.api ?? 'v2';
    this.#base = base.toString().replace(/\/+$/, '');
    this.#origin = base.origin;
    this.#queue = new PQueue({ concurrency: options.concurrency ?? 12 });
    // Every request in flight listens to the caller's signal.
    if (options.signal) setMaxListeners(0, options.signal);
    this.pacer = options.pacer ?? serviceBudget();
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
    const budgetMs = this.#options.maxRetryTimeMs ?? 10 * 60_000;
    return this.#queue.add(
      () => {
        const deadline = performance.now() + budgetMs;
        return pRetry((attempt) => this.#attempt(spec, params, cost, attempt, deadline), {
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
          shouldRetry: ({ error, attemptNumber, retriesLeft }) => {
            if (!(error instanceof ContentApiError) || !error.retryable) return false;
            if (error.unreachable && attemptNumber >= UNREACHABLE_ATTEMPTS) return false;
            // The attempts left are those this error gets: said as 8 to one that stops after 4, the
            // last line promised tries that never came.
            const left = error.unreachable ? Math.min(retriesLeft, UNREACHABLE_ATTEMPTS - attemptNumber) : retriesLeft;
            if (error.status !== 429)
              this.#options.onRetry?.({ message: error.message, attempt: attemptNumber, retriesLeft: left });
            return true;
          },
          // A 429 is the service pacing us, not a failure: it spends no retry (the pacer
          // already waits Retry-After), so a long storm slows a sync down but never fails it.
          shouldConsumeRetry: ({ error }) => !(error instanceof ContentApiError && error.status === 429),
          maxRetryTime: budgetMs,
        });
      },
      { ...(signal ? { signal } : {}), priority: spec.priority ?? 0 },
    ) as Promise<Answer<z.output<T>>>;
  }

  /** One attempt: paced, redirects within the origin followed, the answer checked. */
  async #attempt<T extends z.ZodType>(
    spec: RequestSpec<T>,
    params: Params,
    cost: number,
    attempt: number,
    deadline: number,
  ): Promise<Answer<z.output<T>>> {
    await this.pacer.acquire(cost, this.#options.signal);
    let url = this.#url(spec.path, params);
    const endpoint = `/${this.api}/cdn/${spec.path}`;
    const started = performance.now();
    // A redirect (a cache version the service no longer serves) is followed by hand, at most twice.
    for (let hop = 0; ; hop++) {
      const { res, body: bytes } = await this.#exchange(url, endpoint, attempt, started);
      if (res.status === 301 || res.status === 302) {
        if (hop < 2) {
          url = this.#redirect(res, url, endpoint);
          continue;
        }
        // A cache version that moves faster than it is followed: the attempt is made again.
        throw new ContentApiError(
          `${res.status} from ${endpoint}: redirected a third time (to ${withoutToken(res.headers.get('location') ?? 'nowhere')}); the service kept moving its cache version`,
          res.status,
          endpoint,
          true,
        );
      }
      if (res.status === 429) throw this.#throttled(res, endpoint, bytes.toString(), deadline);
      if (res.status >= 500 || res.status === 408) {
        throw new ContentApiError(
          statusMessage(res.status, endpoint, bytes.toString(), ''),
          res.status,
          endpoint,
          true,
        );
      }
      if (res.status !== 200) {
        const hint = this.#options.tokenHint ?? 'set CONTENT_TOKEN';
        throw new AbortError(
          new ContentApiError(
            statusMessage(res.status, endpoint, bytes.toString(), hint, this.#base),
            res.status,
            endpoint,
            false,
          ),
        );
      }
      const body = this.#parse(spec.schema, res, bytes, endpoint);
      const bodyCv = (body as { cv?: unknown }).cv;
      if (spec.withCv && typeof bodyCv === 'number' && this.cv !== undefined && bodyCv !== this.cv) {
        this.movedTo = Math.max(this.movedTo ?? 0, bodyCv);
      }
      this.pacer.succeeded();
      return { body, headers: res.headers };
    }
  }

  /** One HTTP exchange, its body read within the byte cap. */
  async #exchange(
    url: string,
    endpoint: string,
    attempt: number,
    started: number,
  ): Promise<{ res: Response; body: Buffer }> {
    const signal = this.#options.signal;
    const limit = this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    /** The answer's head, once it came (a body that fails still has its status). */
    let head: Response | undefined;
    let exchanged: { res: Response; body: Buffer };
    this.stats.requests++;
    try {
      exchanged = await withDeadline(this.#options.timeoutMs ?? 30_000, signal, async (bounded) => {
        const res = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' }, signal: bounded });
        head = res;
        return { res, body: await readCapped(res, limit) };
      });
    } catch (err) {
      if (signal?.aborted) throw new AbortError(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      this.#options.onAttempt?.({ endpoint, status: head?.status, bytes: 0, ms: performance.now() - started });
      if (err instanceof BodyTooLarge) {
        throw new AbortError(
          new ContentApiError(
            `the answer of ${endpoint} ${err.message} (${formatBytes(limit)}); no page of the API comes near that, so the service or a proxy in between misbehaves; if the content really is that large, raise maxResponseBytes (--max-response-mb)`,
            head?.status,
            endpoint,
            false,
          ),
        );
      }
      // A port fetch never connects to (the Fetch standard's "bad ports"): no attempt can succeed.
      if (refusedPort(err))
        throw new AbortError(
          new ContentApiError(
            `${networkMessage(err, url)} (${endpoint}): fetch refuses to connect to port ${new URL(url).port}, whatever listens there; serve the API on another port`,
            undefined,
            endpoint,
            false,
          ),
        );
      const failure = new ContentApiError(
        `${networkMessage(err, url)} (${endpoint}, attempt ${attempt})`,
        undefined,
        endpoint,
        true,
      );
      failure.unreachable = isUnreachable(err);
      throw failure;
    }
    const bytes = exchanged.body.length;
    this.stats.bytes += bytes;
    this.#options.onAttempt?.({ endpoint, status: exchanged.res.status, bytes, ms: performance.now() - started });
    return exchanged;
  }

  /** Where a redirect leads, when that is within the configured origin: the token goes nowhere else. */
  #redirect(res: Response, url: string, endpoint: string): string {
    const location = res.headers.get('location');
    if (!location)
      throw new ContentApiError(`${res.status} from ${endpoint} without a Location`, res.status, endpoint, true);
    let next: URL | undefined;
    try {
      next = new URL(location, url);
    } catch {
      // reported below
    }
    if (next?.origin !== this.#origin) {
      const where = next ? next.origin : JSON.stringify(withoutToken(location).slice(0, 100));
      throw new AbortError(
        new ContentApiError(
          `${res.status} from ${endpoint} redirects to ${where}, outside ${this.#origin}; redirects are followed only within the configured origin, so the token is never sent elsewhere; if the service has moved, set CONTENT_BASE_URL to its new origin`,
          res.status,
          endpoint,
          false,
        ),
      );
    }
    // A redirect to the very URL asked leads nowhere, however often it is followed or asked again.
    if (next.toString() === new URL(url).toString()) {
      throw new AbortError(
        new ContentApiError(
          `${res.status} from ${endpoint} redirects to the URL asked for itself (a redirect loop): the service or a proxy in between misbehaves; check the base URL (CONTENT_BASE_URL)`,
          res.status,
          endpoint,
          false,
        ),
      );
    }
    this.stats.redirects++;
    const cv = cvOf(next.toString());
    if (cv !== undefined && cv !== this.cv) this.movedTo = Math.max(this.movedTo ?? 0, cv);
    return next.toString();
  }

  /** A 429: the error to retry after the wait it asks for, or to give up on when the wait exceeds the retry budget. */
  #throttled(res: Response, endpoint: string, text: string, deadline: number): Error {
    this.stats.throttled++;
    const wait = retryAfterSeconds(res.headers.get('retry-after'));
    if (performance.now() + wait * 1000 > deadline) {
      const budget = this.#options.maxRetryTimeMs ?? 10 * 60_000;
      return new AbortError(
        new ContentApiError(
          `429 from ${endpoint}: the service asks to wait ${wait} s (Retry-After), more than is left of the retry budget (${budget / 1000} s per request, maxRetryTimeMs); try again later`,
          429,
          endpoint,
          false,
          wait,
        ),
      );
    }
    this.pacer.throttled(wait);
    return new ContentApiError(statusMessage(429, endpoint, text, ''), 429, endpoint, true, wait);
  }

  /** A 200's body, parsed and checked against the schema. */
  #parse<T extends z.ZodType>(schema: T, res: Response, body: Buffer, endpoint: string): z.output<T> {
    let json: unknown;
    try {
      json = parseJsonBody(body);
    } catch {
      const type = res.headers.get('content-type');
      const kind = notJson(type, body);
      if (kind) {
        // Another kind of server (a web site, a login page): asking again will not help.
        throw new AbortError(
          new ContentApiError(
            `200 from ${endpoint} is not JSON but ${kind}: ${this.#base} does not answer like the Content Delivery API; check the base URL (CONTENT_BASE_URL)`,
            200,
            endpoint,
            false,
          ),
        );
      }
      // A cut connection: worth another attempt.
      throw new ContentApiError(
        `200 from ${endpoint} with a body that is not complete JSON (${body.length} bytes)`,
        200,
        endpoint,
        true,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AbortError(
        new SchemaError(
          `the answer of ${endpoint} does not match the contract at ${issuePath(issue.path)}${itemNamed(json, issue.path)}: ${issue.message}`,
          200,
          endpoint,
          false,
        ),
      );
    }
    // The schemas check and change nothing (loose objects, no transforms): the answer is kept as the
    // service delivered it, with the keys zod does not copy (a content field named __proto__).
    return json as z.output<T>;
  }

  /** A listing answer's `Total` and `Per-Page`, or an error that says why they cannot be trusted. */
  #count(headers: Headers, asked: number, listing: string): ListingCount {
    const count = readListingCount(headers, asked, this.#options.maxListingItems ?? MAX_LISTING_ITEMS);
    if (typeof count === 'string') throw untrustedCount(listing, count);
    return count;
  }

  /**
   * One page of a listing, its items checked against what its `Total` and `Per-Page` imply:
   * more or fewer is refused.
   */
  async listPage<T extends z.ZodType>(
    spec: ListingSpec<T>,
    page = 1,
  ): Promise<{ items: unknown[]; count: ListingCount }> {
    const listing = `/${this.api}/cdn/${spec.path}`;
    const answer = await this.request({
      ...spec,
      kind: spec.kind ?? 'list',
      params: { ...spec.params, per_page: spec.perPage, page },
    });
    const count = this.#count(answer.headers, spec.perPage, listing);
    const items = (answer.body as Record<string, unknown[]>)[spec.key] ?? [];
    const expected = itemsOnPage(count, page);
    if (items.length !== expected) {
      throw untrustedCount(
        listing,
        `says Total ${count.total} at ${count.perPage} per page, so page ${page} holds ${expected}, but it holds ${items.length}`,
      );
    }
    return { items, count };
  }

  /**
   * Every page of a listing: page 1 first (for `Total` and `Per-Page`), then
   * the next pages a few at a time under the scheduler, until the first short
   * page. `Total` is a claim to check, not to obey: each page must hold what it
   * implies, and the page after a full last one must be empty. `onPage`
   * receives each page's items as it arrives (not in order); memory holds only
   * the pages in the window.
   */
  async paginate<T extends z.ZodType>(
    spec: ListingSpec<T> & { window?: number },
    onPage: (items: unknown[], page: number) => Promise<void> | void,
  ): Promise<{ total: number; pages: number }> {
    const first = await this.listPage(spec, 1);
    const { total, perPage } = first.count;
    const pages = lastPage(first.count);
    let next = 2;
    let failed = false;
    // Pages are asked for lazily, at most `window` at a time, each one's place freed when its items are handled.
    const worker = async (): Promise<void> => {
      while (!failed && next <= pages) {
        const page = next++;
        try {
          const { items, count } = await this.listPage(spec, page);
          if (count.total !== total || count.perPage !== perPage) {
            throw untrustedCount(
              `/${this.api}/cdn/${spec.path}`,
              `said Total ${total} on page 1 and ${count.total} on page ${page}`,
            );
          }
          await onPage(items, page);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    };
    const window = Math.min(spec.window ?? this.#options.concurrency ?? 12, pages - 1);
    // Page 1 is handled while the next pages are already on their way: the pacer's slots are not left unused meanwhile.
    const settled = await Promise.allSettled([
      Promise.resolve().then(() => onPage(first.items, 1)),
      ...Array.from({ length: window }, worker),
    ]);
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) throw failure.reason;
    return { total, pages };
  }

  /** Waits for every queued request to end. */
  async idle(): Promise<void> {
    await this.#queue.onIdle();
  }
}

/**
 * What a body that does not parse is, when it is no JSON at all rather than JSON cut short: its
 * type says another, or it starts as no JSON does (a page of markup labelled application/json, as
 * a proxy's or login page's can be, is not a cut connection that another attempt would mend).
 */
function notJson(type: string | null, body: Buffer): string | undefined {
  if (type && !/json/i.test(type)) return type.split(';')[0];
  const start = body.subarray(0, 64).toString('utf8');
  // A cut answer is the start of one: empty, or starting as a JSON value does.
  if (/^[\s\uFEFF]*([{["\-0-9tfn]|$)/.test(start)) return undefined;
  const what = /^[\s\uFEFF]*</.test(start) ? 'markup (a web page)' : 'text';
  return `${what}, though labelled ${type ? type.split(';')[0] : 'with no content-type'}`;
}

/**
 * A listing whose count cannot be trusted: nothing may be concluded from it, least of all that
 * content vanished. The message says what is wrong; the sync that gives up says what follows.
 */
function untrustedCount(listing: string, problem: string): UntrustedCount {
  return new UntrustedCount(`the listing ${listing} ${problem}: its count cannot be trusted`, 200, listing, false);
}
