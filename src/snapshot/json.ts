/**
 * Canonical JSON: object keys sorted, two-space indentation, a final newline.
 * The same value always gives the same bytes, so digests are stable and files
 * diff cleanly.
 */
import { hash } from 'node:crypto';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // No prototype: a key named `__proto__` (a datasource dimension, say) stays a key.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function canonicalJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

export function sha256(text: string | Uint8Array): string {
  // One-shot: cheaper than a Hash object for the many small files hashed.
  return hash('sha256', text, 'hex');
}
