/**
 * A byte-bounded LRU of rendered files (stand-ins and image service
 * renditions), with one render per key in flight: a second request for the
 * same rendition waits for the first instead of rendering again.
 */
export class RenderCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Buffer>();
  readonly #pending = new Map<string, Promise<Buffer | undefined>>();
  #bytes = 0;
  /** Renders done (cache misses), for tests and stats. */
  renders = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  async get(key: string, render: () => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const job = render().then((bytes) => {
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
