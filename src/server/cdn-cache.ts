/**
 * The CDN in front of the service: answers a repeated request (same URL,
 * current cache version, already served) without reaching the origin, so it
 * costs no rate budget. Least recently used entries are dropped past a byte
 * budget; a new cache version empties it.
 */
export interface CachedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export class CdnCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #maxBytes: number;
  #bytes = 0;
  #version: number | undefined;

  constructor(options: { maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Empties the cache when the space's cache version moved. */
  syncVersion(version: number): void {
    if (this.#version !== version) {
      this.#entries.clear();
      this.#bytes = 0;
      this.#version = version;
    }
  }

  get(key: string): CachedResponse | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      // Refresh recency: Map keeps insertion order.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, response: CachedResponse): void {
    const size = response.body.length + key.length;
    if (size > this.#maxBytes) return;
    const previous = this.#entries.get(key);
    if (previous) {
      this.#bytes -= previous.body.length + key.length;
      this.#entries.delete(key);
    }
    this.#entries.set(key, response);
    this.#bytes += size;
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= v.body.length + k.length;
    }
  }
}
