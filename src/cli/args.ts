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

