/**
 * A deadline for one HTTP exchange, its body included. The timer is our own and runs until the
 * work ends: an AbortSignal.timeout that nothing holds once fetch has its answer can be collected
 * while a body trickles in, and then never fires (an exchange then waits for good).
 */

/** What AbortSignal.timeout aborts with: fetch rejects with it, and messages tell it by its name. */
const timedOut = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/**
 * Runs `work` with a signal that aborts after `ms` with `reason()` (by default a TimeoutError), or
 * when `outer` aborts.
 */
export async function withDeadline<T>(
  ms: number,
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
  reason: () => unknown = timedOut,
): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(reason()), ms);
  try {
    return await work(outer ? AbortSignal.any([outer, deadline.signal]) : deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}
