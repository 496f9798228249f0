/**
 * Backlinks: for each target, the uuids of the stories that reference it,
 * written in chunks by target (`chunkOfUuid`). A full compile gathers them
 * as its chunks finish (`BacklinkGatherer`); an incremental compile reads the
 * last compile's chunks back (`PreviousBacklinks`), learns from them which
 * stories referred to what changed, and patches the chunks that changed
 * (`patchBacklinks`).
 */
import { CHUNKS, chunkOfUuid } from './emit.js';
import type { Output } from './output.js';
import type { LedgerEntry } from './story.js';

/**
 * A full compile's backlinks, gathered as its chunks finish. Referrers are held as their
 * positions in the stories index (numbers: cheap to hold and to sort, where strings kept in
 * order as they arrive cost the calling thread a search and a splice each) and become uuid
 * lists, sorted, once every chunk is in.
 */

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
   * Every list, by chunk of its target (`chunkOfUuid`): the referrers' uuids, sorted. The targets
   * of each chunk come in the order of their uuids (those outside the index after the others).
   * Called once: the gathered lists are sorted in place.
   */
  byChunk(chunkTotal: number): Array<Map<string, string[]>> {
    const { order, rank } = this.#ranked();
    const chunks = Array.from({ length: chunkTotal }, () => new Map<string, string[]>());
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
    const put = (target: string, referrers: number[]) =>
      chunks[chunkOfUuid(target, chunkTotal)]!.set(target, sorted(referrers));
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
      this.#order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) =>
        uuids[a]! < uuids[b]! ? -1 : uuids[a]! > uuids[b]! ? 1 : a - b,
      );
      this.#rank = new Int32Array(n);
      for (let r = 0; r < n; r++) this.#rank[this.#order[r]!] = r;
    }
    return { order: this.#order, rank: this.#rank };
  }
}

/** The last compile's backlinks chunks, as it wrote them (undefined: changed or unreadable), each read once. */
export class PreviousBacklinks {
  readonly #chunks = new Map<number, Record<string, unknown> | undefined>();

  constructor(
    readonly output: Output,
    readonly chunkTotal: number,
  ) {}

  chunk(b: number): Record<string, unknown> | undefined {
    if (!this.#chunks.has(b)) {
      const lists = this.output.readChunk(CHUNKS.backlinks(b));
      this.#chunks.set(
        b,
        lists && typeof lists === 'object' && !Array.isArray(lists) ? (lists as Record<string, unknown>) : undefined,
      );
    }
    return this.#chunks.get(b);
  }

  /**
   * The stories that referred to a uuid of `uuids` when the last compile wrote its backlinks, by id
   * (those `byUuid` has); undefined when a chunk of them cannot be read back.
   */
  referrersOf(uuids: ReadonlySet<string>, byUuid: ReadonlyMap<string, number>): number[] | undefined {
    const ids: number[] = [];
    for (const u of uuids) {
      const lists = this.chunk(chunkOfUuid(u, this.chunkTotal));
      if (!lists) return undefined;
      const list = Object.hasOwn(lists, u) ? lists[u] : [];
      if (!Array.isArray(list)) return undefined;
      for (const r of list) {
        const id = byUuid.get(r as string);
        if (id !== undefined) ids.push(id);
      }
    }
    return ids;
  }
}

/** What an incremental compile changed in the stories: the stories after it, what it replaced or removed, what it added. */
export interface StoryChanges {
  stories: ReadonlyMap<number, LedgerEntry>;
  replaced: ReadonlyMap<number, LedgerEntry>;
  added: readonly number[];
}

/**
 * An incremental compile's backlinks, by chunk (undefined: the chunk is kept as it is). The chunks
 * holding a target whose referrers changed are patched (the lists of their other targets read back
 * from them); without a readable previous chunk, every list of the chunk is collected from the
 * stories of `index`.
 */
export function patchBacklinks(
  previous: PreviousBacklinks,
  changes: StoryChanges,
  index: ReadonlyArray<{ id: number; uuid: string }>,
): Array<Map<string, string[]> | undefined> {
  const { chunkTotal, output } = previous;
  const changedTargets = new Set<string>();
  /** The stories whose references may have changed (compiled again, or gone), by uuid. */
  const changedReferrers = new Set<string>();
  /** Those compiled again, as they refer now. */
  const referring: LedgerEntry[] = [];
  // The stories this compile changed: those that left (gone from the index, or compiled to nothing,
  // like a story unpublished) refer no more, the others as they do now.
  const now = (id: number): void => {
    const s = changes.stories.get(id);
    if (!s) return;
    changedReferrers.add(s.uuid);
    referring.push(s);
    for (const u of s.references) changedTargets.add(u);
  };
  for (const [id, old] of changes.replaced) {
    changedReferrers.add(old.uuid);
    for (const u of old.references) changedTargets.add(u);
    now(id);
  }
  for (const id of changes.added) now(id);
  const backlinkChunks = new Set<number>();
  for (const u of changedTargets) backlinkChunks.add(chunkOfUuid(u, chunkTotal));
  const backlinks: Array<Map<string, string[]> | undefined> = Array.from({ length: chunkTotal }, () => undefined);
  /** Chunks without a readable previous version: every list collected from the stories. */
  const complete = new Set<number>();
  for (let b = 0; b < chunkTotal; b++) {
    if (!backlinkChunks.has(b) && output.keep(CHUNKS.backlinks(b))) continue;
    const previousLists = previous.chunk(b);
    const lists = new Map<string, string[]>();
    if (previousLists) {
      // A changed target keeps the referrers that did not change (its list, sorted, without them).
      for (const [u, list] of Object.entries(previousLists)) {
        if (!changedTargets.has(u)) lists.set(u, list as string[]);
        else if (Array.isArray(list)) {
          const kept = list.filter((r) => !changedReferrers.has(r));
          if (kept.length) lists.set(u, kept);
        }
      }
    } else {
      complete.add(b);
    }
    backlinks[b] = lists;
  }
  // ... and gains those compiled again that refer to it now.
  for (const s of referring) {
    for (const u of s.references) {
      if (!changedTargets.has(u)) continue;
      const b = chunkOfUuid(u, chunkTotal);
      if (complete.has(b)) continue;
      const lists = backlinks[b]!;
      const list = lists.get(u);
      if (list) insertSorted(list, s.uuid);
      else lists.set(u, [s.uuid]);
    }
  }
  if (complete.size) {
    for (const e of index) {
      const s = changes.stories.get(e.id);
      if (!s) continue;
      for (const u of s.references) {
        const b = chunkOfUuid(u, chunkTotal);
        if (!complete.has(b)) continue;
        const lists = backlinks[b]!;
        const list = lists.get(u);
        if (list) list.push(e.uuid);
        else lists.set(u, [e.uuid]);
      }
    }
    for (const b of complete) for (const list of backlinks[b]!.values()) list.sort();
  }
  return backlinks;
}

/** Inserts `value` where it keeps `list` sorted (as sort() orders strings). */
function insertSorted(list: string[], value: string): void {
  let lo = 0;
  let hi = list.length;
  if (hi === 0 || list[hi - 1]! < value) {
    list.push(value);
    return;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, value);
}
