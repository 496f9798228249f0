/**
 * The stages of the service's request pipeline, one concern each. app.ts
 * composes them in order; each answers and returns, or hands on with `next()`.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { UNAUTHORIZED_MESSAGE, notAllowedMessage } from '../api/index.js';
import { handleAdmin, type Stats } from './admin.js';
import type { CdnCache } from './cdn-cache.js';
import { carriesCv, disallowedParams, handleCdn, requestedView, route, takesVersion, type CdnRequest } from './cdn.js';
import type { FaultInjector } from './faults.js';
import { compose, type ApiExchange, type Exchange, type Stage } from './pipeline.js';
import { requestCost, type RateLimiter } from './rate-limiter.js';
import { CORS_HEADERS, encode, errorReply, notFound, send, type Encoded } from './respond.js';
import type { ChangeEvent, SpaceStore } from './store.js';

/** What the stages work with: the service's state and settings. */
export interface ServiceParts {
  store: SpaceStore;
  stats: Stats;
  cache: CdnCache;
  limiter: RateLimiter | undefined;
  faults: FaultInjector | undefined;
  publicToken: string;
  previewToken: string;
  latencyMs: number;
  admin: boolean;
  /** The host the service listens on, as given (a name a browser may address it by). */
  host?: string;
  maxBodyBytes: number;
  changed: (event: ChangeEvent) => void;
  draftChanged: (storyId: number) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Sends what the exchange answered: after the latency, counted, a HEAD without its body. */
export async function deliver(
  parts: ServiceParts,
  x: Pick<Exchange, 'req' | 'res' | 'label' | 'answer' | 'cached' | 'cut'>,
): Promise<void> {
  if (x.cut === 'reset') {
    x.req.socket.destroy();
    parts.stats.count(x.label, 0, false);
    return;
  }
  const e = x.answer;
  if (!e) return;
  if (parts.latencyMs) await sleep(parts.latencyMs);
  parts.stats.count(x.label, e.status, x.cached);
  const head = { ...CORS_HEADERS, ...e.headers, 'content-length': String(e.body.length) };
  if (x.cut === 'truncate') {
    x.res.writeHead(e.status, head);
    x.res.write(e.body.subarray(0, Math.floor(e.body.length / 2)));
    x.res.destroy();
  } else if (x.req.method === 'HEAD') {
    x.res.writeHead(e.status, head);
    x.res.end();
  } else send(x.res, e);
}

/** Outermost: whatever the inner stages answered goes out here. */
export const respond =
  (parts: ServiceParts): Stage<Exchange> =>
  async (x, next) => {
    await next();
    await deliver(parts, x);
  };

const isAdminPath = (pathname: string): boolean => pathname === '/__admin' || pathname.startsWith('/__admin/');

/** A host name of this machine: a page of another site cannot be given one by its DNS. */
const isLocalHost = (hostname: string, bound: string | undefined): boolean =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  isIP(hostname.replace(/^\[|\]$/g, '')) !== 0 ||
  (bound !== undefined && hostname === bound.toLowerCase());

/**
 * Why a browser page may not use the control plane, or undefined when it may: it changes the space
 * without a token, so only a page of the service's own origin, addressed by a name of this machine,
 * may (a page of another site needs no preflight for a text/plain POST or a form post, and one
 * whose name was rebound to 127.0.0.1 is same-origin with the service). Clients that are no
 * browser send neither Origin nor Sec-Fetch-Site.
 */
function crossOriginRefusal(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  if (origin === undefined && site === undefined) return undefined;
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'a page of another site';
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return 'a page of another origin';
  return undefined;
}

/** The control plane, when on, answers a browser only on its own origin at a name of this machine (403). */
export const adminGuard =
  (parts: ServiceParts): Stage<Exchange> =>
  async (x, next) => {
    if (!parts.admin || !isAdminPath(x.url.pathname)) return next();
    let hostname: string;
    try {
      hostname = new URL(`http://${x.req.headers.host ?? ''}`).hostname;
    } catch {
      hostname = '';
    }
    const refusal =
      crossOriginRefusal(x.req) ??
      ((x.req.headers.origin !== undefined || x.req.headers['sec-fetch-site'] !== undefined) &&
      !isLocalHost(hostname, parts.host)
        ? `a page at ${hostname || 'no host'}, not a name of this machine`
        : undefined);
    if (refusal === undefined) return next();
    // Written here, without the CORS headers every other answer has: the page may not read it either.
    const e = encode(errorReply(403, `the control plane does not answer ${refusal}`));
    x.res.writeHead(e.status, { ...e.headers, 'content-length': String(e.body.length) });
    x.res.end(e.body);
  };

/** CORS preflight: answered at once, with the methods the path takes (the API reads; the control plane, when on, writes too). */
export const preflight =
  (parts: ServiceParts): Stage<Exchange> =>
  async (x, next) => {
    if (x.method !== 'OPTIONS') return next();
    const methods =
      parts.admin && isAdminPath(x.url.pathname) ? 'GET, HEAD, POST, PUT, DELETE, OPTIONS' : 'GET, HEAD, OPTIONS';
    x.res.writeHead(204, { ...CORS_HEADERS, 'access-control-allow-methods': methods });
    x.res.end();
  };

/** The control plane under /__admin/, when enabled; it writes its own answers, uncounted. */
export const admin =
  (parts: ServiceParts): Stage<Exchange> =>
  async (x, next) => {
    if (!isAdminPath(x.url.pathname)) return next();
    if (!parts.admin) {
      x.label = 'admin';
      x.answer = encode(notFound());
      return;
    }
    let body: unknown;
    if (x.method === 'POST' || x.method === 'PUT') {
      const read = await readJsonBody(x.req, parts.maxBodyBytes);
      if ('error' in read) {
        send(x.res, read.error, read.error.status === 413 ? { connection: 'close' } : undefined);
        if (read.error.status === 413) x.req.destroy();
        return;
      }
      body = read.body;
    }
    send(x.res, encode(handleAdmin(parts.store, parts.stats, x.method, x.url.pathname, body, parts)));
  };

/** A control-plane body: JSON up to `limit` bytes; empty means `{}`. */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ body: unknown } | { error: Encoded }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) return { error: encode(errorReply(413, `the body is larger than ${limit} bytes`)) };
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    // The sender went away mid-body: a bad request, not an error of the service's.
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || req.destroyed)
      return { error: encode(errorReply(400, 'the body was cut short (the connection closed)')) };
    throw err;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { body: {} };
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return { error: encode(errorReply(400, 'the body is not valid JSON')) };
  }
}

/** `/v1/cdn/...` and `/v2/cdn/...` run the API's own stages; anything else is a 404. */
export const cdnApi =
  (stages: readonly Stage<ApiExchange>[]): Stage<Exchange> =>
  async (x) => {
    const matched = route(x.url.pathname);
    if (!matched) {
      x.label = 'unknown';
      x.answer = encode(notFound());
      return;
    }
    x.label = `${matched.api} ${matched.endpoint}`;
    const api: ApiExchange = Object.assign(x, { route: matched, preview: false });
    await compose(stages)(api, async () => undefined);
  };

/** Injected faults: a reset or an error status instead of the answer, a delay, or half the body. */
export const faults =
  (parts: ServiceParts): Stage<Exchange> =>
  async (x, next) => {
    const fault = parts.faults?.decide(`${x.method} ${x.url.pathname}${x.url.search}`);
    if (fault === 'reset') {
      x.cut = 'reset';
      return;
    }
    if (fault === 'slow') await sleep(parts.faults!.plan.slowMs);
    if (fault && /^\d+$/.test(fault)) {
      const status = Number(fault);
      x.answer = encode(
        status === 429
          ? errorReply(429, 'Too Many Requests', { 'retry-after': '1' })
          : errorReply(status, 'Injected server error'),
      );
      return;
    }
    if (fault === 'truncate') x.cut = 'truncate';
    await next();
  };

/** The Content Delivery API is read-only. */
export const readOnly: Stage<ApiExchange> = async (x, next) => {
  if (x.method === 'GET' || x.method === 'HEAD') return next();
  x.answer = encode(
    errorReply(405, `${x.method} is not supported; the Content Delivery API is read-only (GET)`, {
      allow: 'GET, HEAD, OPTIONS',
    }),
  );
};

/** Requests carry no body; one that does must at least claim to be JSON, and JSON must be acceptable. */
export const jsonOnly: Stage<ApiExchange> = async (x, next) => {
  const problem = formatProblem(x.req);
  if (!problem) return next();
  x.answer = encode(errorReply(400, problem));
};

function formatProblem(req: IncomingMessage): string | undefined {
  const length = Number(req.headers['content-length'] ?? 0);
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (length > 0 || chunked) {
    const type = String(req.headers['content-type'] ?? '');
    if (!/json/i.test(type)) return `wrong format: send JSON (content-type ${type || 'missing'} is not accepted)`;
  }
  const accept = req.headers.accept;
  if (accept && !/json|\*\/\*|application\/\*/i.test(accept))
    return `wrong format: only JSON is served (Accept: ${accept})`;
  return undefined;
}

const cacheKey = (url: URL): string => url.pathname + url.search;

/**
 * The CDN cache: a published request at the current cache version that was
 * answered before is answered again from here, before tokens and rate limits
 * (a hit costs nothing); a fresh 200 such answer is kept. A truncated answer
 * is always made anew.
 */
export const cdnCache =
  (parts: ServiceParts): Stage<ApiExchange> =>
  async (x, next) => {
    const current = () => String(parts.store.space.version);
    // A release's versions change (move, go) without a new cache version, as drafts do: never cached.
    const cacheable = () =>
      x.url.searchParams.get('cv') === current() &&
      !x.url.searchParams.has('from_release') &&
      requestedView({ endpoint: x.route.endpoint, params: x.url.searchParams }) === 'published';
    parts.cache.syncVersion(parts.store.space.version);
    const hit = x.cut === 'truncate' || !cacheable() ? undefined : parts.cache.get(cacheKey(x.url));
    if (hit) {
      x.answer = hit;
      x.cached = true;
      return;
    }
    await next();
    if (x.answer?.status === 200 && cacheable()) {
      parts.cache.syncVersion(parts.store.space.version);
      parts.cache.set(cacheKey(x.url), x.answer);
    }
  };

/** The token: public or preview, 401 otherwise. */
export const token =
  (parts: ServiceParts): Stage<ApiExchange> =>
  async (x, next) => {
    const given = x.url.searchParams.get('token');
    x.preview = given === parts.previewToken;
    if (given && (x.preview || given === parts.publicToken)) return next();
    x.answer = encode(errorReply(401, UNAUTHORIZED_MESSAGE));
  };

const cdnRequest = (x: ApiExchange): CdnRequest => ({ ...x.route, params: x.url.searchParams, preview: x.preview });

/** v2 stories endpoints refuse parameters they do not take; `version` is published or draft where it is taken. */
export const parameters: Stage<ApiExchange> = async (x, next) => {
  const notAllowed = disallowedParams(cdnRequest(x));
  if (notAllowed.length) {
    x.answer = encode(errorReply(422, notAllowedMessage(notAllowed)));
    return;
  }
  const version = x.url.searchParams.get('version');
  if (version !== null && version !== 'draft' && version !== 'published' && takesVersion(x.route.endpoint)) {
    x.answer = encode(errorReply(422, 'version must be published or draft'));
    return;
  }
  await next();
};

/**
 * Drafts only for the preview token. A view the space does not hold (a snapshot synced with the
 * other one alone) is refused, saying so: served, it would be the other view or a space without stories.
 */
export const view =
  (parts: ServiceParts): Stage<ApiExchange> =>
  async (x, next) => {
    const wanted = requestedView(cdnRequest(x));
    if (wanted === 'draft' && !x.preview) {
      x.answer = encode(errorReply(401, UNAUTHORIZED_MESSAGE));
      return;
    }
    const held = parts.store.views;
    if (!takesVersion(x.route.endpoint) || held.includes(wanted)) return next();
    x.answer = encode(
      errorReply(
        422,
        `version=${wanted}: this space holds the ${held.join(' and ')} view only (a snapshot synced without the ${wanted} view); sync it with --version both to serve both`,
      ),
    );
  };

/** v2 published content is addressed by the current cache version: 301 to it without it. */
export const cacheVersion =
  (parts: ServiceParts): Stage<ApiExchange> =>
  async (x, next) => {
    const current = String(parts.store.space.version);
    const { api, endpoint } = x.route;
    if (
      api !== 'v2' ||
      !carriesCv(endpoint) ||
      requestedView(cdnRequest(x)) !== 'published' ||
      x.url.searchParams.get('cv') === current
    ) {
      return next();
    }
    // The query as it came, from the request line (the parsed URL encodes ' and " again): a client's
    // signed or cached URL stays recognizable. Its cv replaced.
    const requested = (x.req.url ?? '').split('#')[0]!;
    const query = requested.includes('?') ? requested.slice(requested.indexOf('?') + 1) : '';
    const kept = (query === '' ? [] : query.split('&')).filter((pair) => !new URLSearchParams(pair).has('cv'));
    const target = `${x.url.pathname}?${[...kept, `cv=${current}`].join('&')}`;
    x.answer = encode({ status: 301, body: { location: target }, headers: { location: target } });
  };

/** The contract's rate tiers, one budget per token; a listing costs by its page size. */
export const rateLimit =
  (parts: ServiceParts): Stage<ApiExchange> =>
  async (x, next) => {
    if (!parts.limiter) return next();
    const params = x.url.searchParams;
    const perPage = Number(params.get('per_page') ?? 25);
    const cost =
      x.route.endpoint === 'stories'
        ? requestCost('list', Number.isFinite(perPage) ? Math.min(Math.max(perPage, 1), 100) : 25)
        : requestCost('single');
    const decision = parts.limiter.take(params.get('token')!, cost);
    if (decision.ok) return next();
    x.answer = encode(
      errorReply(429, 'Too Many Requests: the rate limit of this token is exhausted; slow down and retry later', {
        'retry-after': String(decision.retryAfterSeconds),
      }),
    );
  };

/** The endpoint's handler answers. */
export const endpoint =
  (parts: ServiceParts): Stage<ApiExchange> =>
  async (x) => {
    x.answer = encode(handleCdn(parts.store, cdnRequest(x)));
  };
