/**
 * Schemas that check content without rebuilding it. Zod builds a loose object or a record anew by
 * assignment, which drops a key named `__proto__`: in content that is a field like any other name
 * (JSON.parse made it an own property), and it must reach the snapshot and the modules as sent.
 */
import { z } from 'zod';

/** Checked as `shape` checks it, and given back as sent (the same object). */
export function asSent<T extends z.ZodType>(shape: T) {
  return z.custom<z.output<T>>().superRefine((value, ctx) => {
    for (const issue of shape.safeParse(value).error?.issues ?? []) ctx.addIssue({ ...issue, code: 'custom' });
  });
}
