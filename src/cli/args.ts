/**
 * Command-line parsing shared by the commands: strict flags, clear errors.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override name = 'UsageError';
}

export type ParsedFlags = { values: Record<string, string | boolean | undefined> };

export function parse(argv: string[], options: NonNullable<ParseArgsConfig['options']>): ParsedFlags {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean' } }, strict: true, allowPositionals: false });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function integer(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number (got "${value}")`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be from ${min} to ${max} (got ${n})`);
  return n;
}


/** The sync flags `sync` and `watch` share: API version, views and concurrency, checked. */
export function syncFlags(values: ParsedFlags['values']): { api: 'v1' | 'v2'; views: Array<'published' | 'draft'>; concurrency: number } {
  const api = (values.api as string | undefined) ?? 'v2';
  if (api !== 'v1' && api !== 'v2') throw new UsageError(`--api must be v1 or v2 (got "${api}")`);
  const version = (values.version as string | undefined) ?? 'published';
  const views: Array<'published' | 'draft'> =
    version === 'both' ? ['published', 'draft'] : version === 'published' || version === 'draft' ? [version] : [];
  if (!views.length) throw new UsageError(`--version must be published, draft or both (got "${version}")`);
  const concurrency = integer(values.concurrency as string | undefined, 'concurrency', 12, 1, 64);
  return { api, views, concurrency };
}
