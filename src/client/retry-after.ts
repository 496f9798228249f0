/**
 * The wait a 429's `Retry-After` asks for. It comes from the network, so it is read strictly and
 * judged by the caller against its retry budget; nothing here trusts it to be small.
 */

/** Longest a timer can wait: Node fires a `setTimeout` beyond 2^31-1 ms after 1 ms instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Seconds to wait: delta-seconds or an HTTP date (RFC 9110); 1 when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number {
  if (value === null) return 1;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) || 1;
  const at = Date.parse(text);
  if (Number.isFinite(at)) return Math.max((at - now) / 1000, 1);
  return 1;
}

/** Sleeps `ms`, in steps a timer can hold. */
export async function sleepLong(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= MAX_TIMER_MS) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, MAX_TIMER_MS)));
  }
}
