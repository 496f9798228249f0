/**
 * A full compile's backlinks, gathered as its chunks finish: for each target,
 * the stories that reference it. Referrers are held as their positions in the
 * stories index (numbers: cheap to hold and to sort, where strings kept in
 * order as they arrive cost the calling thread a search and a splice each)
 * and become uuid lists, sorted, once every chunk is in.
 */
import { bucketOfUuid } from './emit.js';

export class BacklinkGatherer {
  /** The index's uuids, by position. */
  readonly #uuids: readonly string[];
  /** Referrers, by the position of the target. */
  readonly #byTarget: Array<number[] | undefined>;
  /** Referrers of targets outside the index (missing stories), by uuid. */
  readonly #outside = new Map<string, number[]>();
  /**
   * Positions in the order of their uuids (as `<` orders strings), and each position's place in
   * it: worked out on the first add, while other threads compile (not before they start).
   */
  #order: Int32Array | undefined;
  #rank: Int32Array | undefined;

  constructor(uuids: readonly string[]) {
    this.#uuids = uuids;
    this.#byTarget = new Array<number[] | undefined>(uuids.length);
  }

  /** The story at `referrer` references `uuid`, at `target` in the index (undefined: not in it). */
  add(referrer: number, target: number | undefined, uuid: string): void {
    if (this.#order === undefined) this.#ranked();
    const list = target === undefined ? this.#outside.get(uuid) : this.#byTarget[target];
    if (list) list.push(referrer);
    else if (target === undefined) this.#outside.set(uuid, [referrer]);
    else this.#byTarget[target] = [referrer];
  }

  /**
   * Every list, by chunk of its target (`bucketOfUuid`): the referrers' uuids, sorted. The targets
   * of each chunk come in the order of their uuids (those outside the index after the others).
   * Called once: the gathered lists are sorted in place.
   */
  byChunk(buckets: number): Array<Map<string, string[]>> {
    const { order, rank } = this.#ranked();
    const chunks = Array.from({ length: buckets }, () => new Map<string, string[]>());
    const sorted = (referrers: number[]): string[] => {
      if (referrers.length === 1) return [this.#uuids[referrers[0]!]!];
      // Most lists are short: sorted in place; a long one as a typed array (sorted numerically, natively).
      if (referrers.length <= 32) {
        for (let k = 0; k < referrers.length; k++) referrers[k] = rank[referrers[k]!]!;
        referrers.sort((a, b) => a - b);
      } else {
        const ranks = new Int32Array(referrers.length);
        for (let k = 0; k < referrers.length; k++) ranks[k] = rank[referrers[k]!]!;
        ranks.sort();
        for (let k = 0; k < referrers.length; k++) referrers[k] = ranks[k]!;
      }
      const uuids = new Array<string>(referrers.length);
      for (let k = 0; k < referrers.length; k++) uuids[k] = this.#uuids[order[referrers[k]!]!]!;
      return uuids;
    };
    const put = (target: string, referrers: number[]) => chunks[bucketOfUuid(target, buckets)]!.set(target, sorted(referrers));
    for (const p of order) {
      const referrers = this.#byTarget[p];
      if (referrers) put(this.#uuids[p]!, referrers);
    }
    for (const [target, referrers] of this.#outside) put(target, referrers);
    return chunks;
  }

  #ranked(): { order: Int32Array; rank: Int32Array } {
    if (!this.#order || !this.#rank) {
      const uuids = this.#uuids;
      const n = uuids.length;
      this.#order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => (uuids[a]! < uuids[b]! ? -1 : uuids[a]! > uuids[b]! ? 1 : a - b));
      this.#rank = new Int32Array(n);
      for (let r = 0; r < n; r++) this.#rank[this.#order[r]!] = r;
    }
    return { order: this.#order, rank: this.#rank };
  }
}
