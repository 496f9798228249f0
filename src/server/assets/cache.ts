/**
 * A byte-bounded LRU of rendered files (stand-ins and image service
 * renditions), with one render per key in flight: a second request for the
 * same rendition waits for the first instead of rendering again. A render is
 * told whether anyone still waits for it, so work whose every requester left
 * can be dropped before it starts.
 */
export class RenderCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Buffer>();
  readonly #pending = new Map<string, Promise<Buffer | undefined>>();
  /** Per key in flight, whether each waiter still wants it. */
  readonly #waiters = new Map<string, Set<() => boolean>>();
  #bytes = 0;
  /** Renders done (cache misses), for tests and stats. */
  renders = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * The bytes for `key`, rendered when neither cached nor in flight. `wanted` says whether this caller
   * still waits (its client did not leave); `render` is given whether any caller does.
   */
  async get(
    key: string,
    render: (stillWanted: () => boolean) => Promise<Buffer | undefined>,
    wanted: () => boolean = () => true,
  ): Promise<Buffer | undefined> {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    let waiters = this.#waiters.get(key);
    if (!waiters) this.#waiters.set(key, (waiters = new Set()));
    waiters.add(wanted);
    try {
      const pending = this.#pending.get(key);
      if (pending) return await pending;
      const all = waiters;
      const job = render(() => [...all].some((w) => w())).then((bytes) => {
        this.renders++;
        if (bytes) this.#store(key, bytes);
        return bytes;
      });
      this.#pending.set(key, job);
      try {
        return await job;
      } finally {
        this.#pending.delete(key);
      }
    } finally {
      waiters.delete(wanted);
      if (!waiters.size && this.#waiters.get(key) === waiters) this.#waiters.delete(key);
    }
  }

  #store(key: string, bytes: Buffer): void {
    if (bytes.length > this.#maxBytes) return;
    this.#entries.set(key, bytes);
    this.#bytes += bytes.length;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.length;
    }
  }
}
