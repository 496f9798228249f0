/**
 * Coalescing with a maximum wait: items arriving within `waitMs` of each other
 * are handed over together, but never later than `maxWaitMs` after the first of
 * them, so a steady stream (one webhook every 100 ms against a 200 ms window)
 * cannot postpone the work for ever.
 */
export class Batcher<T> {
  #items: T[] = [];
  #first = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly waitMs: number,
    readonly maxWaitMs: number,
    readonly flush: (items: T[]) => void,
  ) {}

  add(items: readonly T[]): void {
    const now = Date.now();
    if (!this.#items.length) this.#first = now;
    this.#items.push(...items);
    clearTimeout(this.#timer);
    const due = Math.min(now + this.waitMs, this.#first + Math.max(this.maxWaitMs, this.waitMs));
    this.#timer = setTimeout(() => this.#flush(), Math.max(0, due - now));
  }

  /** Drops what waits. */
  /** Drops what is waiting; how many items it was. */
  cancel(): number {
    clearTimeout(this.#timer);
    const dropped = this.#items.length;
    this.#items = [];
    return dropped;
  }

  #flush(): void {
    const items = this.#items;
    this.#items = [];
    this.flush(items);
  }
}
