/**
 * The wait a 429's `Retry-After` asks for. It comes from the network, so it is read strictly and
 * judged by the caller against its retry budget; nothing here trusts it to be small.
 */

/** Longest a timer can wait: Node fires a `setTimeout` beyond 2^31-1 ms after 1 ms instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Seconds to wait: delta-seconds or an HTTP date (RFC 9110); 1 when absent or unreadable. A header
 * sent twice (a proxy adding its own) reaches us joined by ", ": the longest of the values is read.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number {
  if (value === null) return 1;
  // Split between values, not inside a date's "Thu, 01 Jan": a value starts after ", " with a digit or a day name.
  const values = value.split(/,\s*(?=\d+\s*(?:,|$)|[A-Za-z]{3},)/);
  return Math.max(...values.map((one) => oneValue(one.trim(), now)));
}

function oneValue(text: string, now: number): number {
  if (/^\d+$/.test(text)) return Number(text) || 1;
  const at = Date.parse(text);
  if (Number.isFinite(at)) return Math.max((at - now) / 1000, 1);
  return 1;
}

/**
 * Sleeps `ms`, in steps a timer can hold; ends at once when `signal` aborts (a wait of minutes that
 * a Retry-After asked for otherwise held a stopped sync's process up until it passed).
 */
export async function sleepLong(ms: number, signal?: AbortSignal): Promise<void> {
  for (let left = ms; left > 0 && !signal?.aborted; left -= MAX_TIMER_MS) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, MAX_TIMER_MS));
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
