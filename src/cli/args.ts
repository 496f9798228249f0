/**
 * Command-line parsing shared by the commands: strict flags, clear errors.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { ApiVersion, ContentView } from '../vite/options.js';
import { nearest } from '../vite/suggest.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** What a failed listen says: a port in use names the flag that chooses another. */
export function listenError(err: unknown, port: number): unknown {
  if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') return err;
  return new Error(
    `port ${port} is in use (another content-sync serve or watch, or a dev server?): choose another with --port, or --port 0 for any free one`,
  );
}

export type ParsedFlags = { values: Record<string, string | boolean | undefined> };

export function parse(argv: string[], options: NonNullable<ParseArgsConfig['options']>): ParsedFlags {
  const all = { ...options, help: { type: 'boolean' as const, short: 'h' } };
  try {
    return parseArgs({ args: argv, options: all, strict: true, allowPositionals: false });
  } catch (err) {
    const unknown = /^Unknown option '(-{1,2})([^']+)'/.exec((err as Error).message);
    if (unknown) {
      const guess = nearest(unknown[2]!, Object.keys(all));
      throw new UsageError(`unknown option ${unknown[1]}${unknown[2]}${guess ? ` (did you mean --${guess}?)` : ''}`);
    }
    throw new UsageError((err as Error).message);
  }
}

/** "a, b or c" */
function listed(words: readonly string[]): string {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? '');
}

/** A flag's value checked against one of the options' enums: the plugin and the command accept the same words. */
export function choice<T extends string>(
  schema: z.ZodEnum<{ [K in T]: K }>,
  value: string | undefined,
  name: string,
): T | undefined {
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`--${name} must be ${listed(schema.options)} (got "${value}")`);
  return result.data as T;
}

export function integer(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number (got "${value}")`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be from ${min} to ${max} (got ${n})`);
  return n;
}

/** The sync flags `sync` and `watch` share: API version, views and concurrency, checked. */
export function syncFlags(values: ParsedFlags['values']): {
  api: z.output<typeof ApiVersion>;
  views: Array<z.output<typeof ContentView>>;
  concurrency: number;
} {
  const api = choice(ApiVersion, values.api as string | undefined, 'api') ?? 'v2';
  const version = (values.version as string | undefined) ?? 'published';
  const views = version === 'both' ? [...ContentView.options] : ContentView.options.filter((v) => v === version);
  if (!views.length)
    throw new UsageError(`--version must be ${ContentView.options.join(', ')} or both (got "${version}")`);
  const concurrency = integer(values.concurrency as string | undefined, 'concurrency', 12, 1, 64);
  return { api, views, concurrency };
}

/**
 * The address `serve` and `watch` listen on (default loopback). An empty `--host` (a `--host "$HOST"`
 * with HOST unset) would have Node listen on every interface: refused, as the default is meant.
 */
export function hostFlag(value: string | undefined): string {
  if (value === '') throw new UsageError('--host must not be empty (leave it out to listen on 127.0.0.1)');
  return value ?? '127.0.0.1';
}

/**
 * Where `serve` posts its webhooks: an http(s) URL without a user name or password, which fetch
 * refuses to send (every webhook failed, its log line quoting them).
 */
export function webhookUrlOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--webhook-url is not a URL: ${value}`);
  }
  if (url.username || url.password)
    throw new UsageError(
      `--webhook-url holds a user name or password (${url.protocol}//…@${url.host}), which requests cannot carry in a URL; let the receiver check the webhook-signature instead`,
    );
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--webhook-url must be an http or https URL (got ${url.protocol})`);
  return value;
}

/** The service origin, checked before any request: an http(s) URL. `source` names where it came from. */
export function baseUrlOf(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source} is not a URL (got "${value}"): e.g. https://api.example.com`);
  }
  // Quoted without them: a user name and password are secrets, and no request could send them.
  if (url.username || url.password)
    throw new UsageError(
      `${source} holds a user name or password (${url.protocol}//…@${url.host}), which requests cannot carry in a URL: give the service's origin alone`,
    );
  // A URL copied whole (`...?token=...`) swallows the API's paths and token, and would be quoted with its own.
  if (url.search || url.hash)
    throw new UsageError(
      `${source} has a ${url.search ? 'query (?…)' : 'fragment (#…)'}: give the service's origin alone (${url.origin}), the token as the token`,
    );
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${source} must be an http or https URL (got "${value}")`);
  return value;
}
