/**
 * Errors the client raises. Each says what failed, why, and what to do next.
 */

export class ContentApiError extends Error {
  override name = 'ContentApiError';
  /** The service could not be reached at all (refused, unresolvable, bad address). */
  unreachable = false;
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly endpoint: string,
    /** Whether trying again may help (429, 5xx, network, truncated bodies). */
    readonly retryable: boolean,
    /** Seconds the service asked to wait (Retry-After). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** A response that does not have the shape the contract promises. */
export class SchemaError extends ContentApiError {
  override name = 'SchemaError';
}

/**
 * A listing whose count does not add up (`Total` changed between pages, a page holding more or
 * fewer than it implies): content that changed while it was read, where no cache version tells
 * (the draft view, v1), or a service that lies. Nothing is concluded from it; a sync reads again.
 */
export class UntrustedCount extends ContentApiError {
  override name = 'UntrustedCount';
}

/**
 * What a failed status means for the user. `base` is the service's base URL
 * as configured: a 404 usually means it is wrong.
 */
export function statusMessage(
  status: number,
  endpoint: string,
  body: string,
  tokenHint: string,
  base?: string,
): string {
  const html = /^\s*</.test(body);
  const detail = html ? 'an HTML page, not an API answer' : body.length > 300 ? `${body.slice(0, 300)}…` : body;
  switch (status) {
    case 401:
      return `401 from ${endpoint}: the token is missing or invalid, or a public token asked for the draft view; ${tokenHint}`;
    case 404:
      return base
        ? `404 from ${endpoint} at ${base}: not found (${detail.trim() || 'no body'}); check the base URL (CONTENT_BASE_URL): it is the service origin, e.g. https://api.example.com`
        : `404 from ${endpoint}: not found (${detail.trim() || 'no body'}); check the base URL and the path`;
    case 422:
      return `422 from ${endpoint}: the service refused the request: ${detail.trim()}`;
    case 429:
      return `429 from ${endpoint}: rate limit exceeded`;
    default:
      return `${status} from ${endpoint}: ${detail.trim() || 'no body'}`;
  }
}

/** Whether fetch refused the URL's port itself (a "bad port"), before any connection. */
export function refusedPort(err: unknown): boolean {
  return /bad port/i.test((err as { cause?: { message?: string } }).cause?.message ?? '');
}

export function isUnreachable(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (err as { code?: string }).code;
  return (
    code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || /invalid url/i.test(cause?.message ?? '')
  );
}

/** Network failures worth another attempt, and the message a user can act on. */
export function networkMessage(err: unknown, url: string): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (err as { code?: string }).code;
  const origin = (() => {
    try {
      return new URL(url).origin;
    } catch {
      return url;
    }
  })();
  if (code === 'ECONNREFUSED')
    return `cannot reach ${origin}: connection refused; is the service running and CONTENT_BASE_URL right?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot resolve the host of ${origin}; check CONTENT_BASE_URL and the network`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection to ${origin} was reset`;
  if ((err as Error).name === 'TimeoutError') return `no answer from ${origin} in time`;
  return `request to ${origin} failed: ${cause?.message ?? (err as Error).message}`;
}
