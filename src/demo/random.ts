/**
 * A small seeded pseudo-random generator (sfc32, seeded from a string hash).
 * Everything the demo generator varies comes from here, so the same seed
 * always gives the same space.
 */

/** cyrb128: four 32-bit words from a string. */
function hashSeed(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string | number) {
    [this.a, this.b, this.c, this.d] = hashSeed(`content-sync-demo:${String(seed)}`);
    for (let i = 0; i < 16; i++) this.nextUint32();
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)]!;
  }

  /**
   * An index in [0, n) with a skewed (Zipf-like) distribution: low indexes
   * are much more likely than high ones.
   */
  skewedIndex(n: number, exponent = 1.6): number {
    return Math.min(n - 1, Math.floor(n * this.float() ** exponent));
  }

  /** Up to `count` distinct items, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const want = Math.min(count, items.length);
    if (want <= 0) return [];
    if (want * 4 >= items.length) {
      const copy = items.slice();
      for (let i = 0; i < want; i++) {
        const j = i + Math.floor(this.float() * (copy.length - i));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy.slice(0, want);
    }
    const chosen = new Set<number>();
    const out: T[] = [];
    while (out.length < want) {
      const i = Math.floor(this.float() * items.length);
      if (chosen.has(i)) continue;
      chosen.add(i);
      out.push(items[i]!);
    }
    return out;
  }

  /** A version 4 uuid. */
  uuid(): string {
    const w0 = this.nextUint32();
    const w1 = this.nextUint32();
    const w2 = this.nextUint32();
    const w3 = this.nextUint32();
    const b = [
      w0 >>> 24,
      (w0 >>> 16) & 255,
      (w0 >>> 8) & 255,
      w0 & 255,
      w1 >>> 24,
      (w1 >>> 16) & 255,
      ((w1 >>> 8) & 0x0f) | 0x40,
      w1 & 255,
      ((w2 >>> 24) & 0x3f) | 0x80,
      (w2 >>> 16) & 255,
      (w2 >>> 8) & 255,
      w2 & 255,
      w3 >>> 24,
      (w3 >>> 16) & 255,
      (w3 >>> 8) & 255,
      w3 & 255,
    ];
    const h = b.map((x) => HEX[x]!);
    return `${h[0]}${h[1]}${h[2]}${h[3]}-${h[4]}${h[5]}-${h[6]}${h[7]}-${h[8]}${h[9]}-${h[10]}${h[11]}${h[12]}${h[13]}${h[14]}${h[15]}`;
  }

  /** `length` lowercase hex digits. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.nextUint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }
}
