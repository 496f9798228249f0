/**
 * What an incremental compile must compile again: the stories whose records
 * changed or are new (`dirty`), those gone (`removed`), and the stories that
 * embed or point at a changed story, transitively up to the depth
 * (`affected`), except those that only import it: it reaches them through
 * the import, unless it left the snapshot or changed content type
 * (`reshaped`).
 */
import type { IndexRow } from '../snapshot/stories-index.js';
import type { PreviousBacklinks } from './backlinks.js';
import { refersToAny, type CompileLedger } from './state.js';
import { visibleVersion, type RecordCache, type LedgerEntry } from './story.js';
import type { View } from '../api/index.js';

export interface Invalidation {
  /** Stories of the index whose record digest is not the state's (new ones too). */
  dirty: Set<number>;
  /** Stories of the state the index lacks. */
  removed: Array<[number, LedgerEntry]>;
  /** Those of `dirty` and `removed` that left the view or changed content type, by uuid. */
  reshaped: Set<string>;
  /** `dirty` and the stories a change reaches: every story compiled again. */
  affected: Set<number>;
}

export function invalidation(
  state: CompileLedger,
  index: readonly IndexRow[],
  records: RecordCache,
  view: View,
  depth: number,
  backlinks: PreviousBacklinks,
  byUuid: ReadonlyMap<string, number>,
): Invalidation {
  const dirty = new Set<number>();
  const removed: Array<[number, LedgerEntry]> = [];
  let known = 0;
  for (const e of index) {
    const old = state.stories.get(e.id);
    if (old) known++;
    if (!old || old.digest !== e.digest) dirty.add(e.id);
  }
  // Stories of the state that the index lacks (none when it holds as many of them as the state has).
  if (known < state.stories.size) {
    const present = new Set(index.map((e) => e.id));
    for (const [id, s] of state.stories) if (!present.has(id)) removed.push([id, s]);
  }
  const dirtyUuids = new Set<string>();
  for (const [, s] of removed) dirtyUuids.add(s.uuid);
  for (const e of index) if (dirty.has(e.id)) dirtyUuids.add(e.uuid);

  const reshaped = new Set<string>(removed.map(([, s]) => s.uuid));
  for (const e of index) {
    if (!dirty.has(e.id)) continue;
    const old = state.stories.get(e.id);
    const now = visibleVersion(records.get(e.id), view);
    if (!old || !now || now.story.content.component !== old.component) reshaped.add(e.uuid);
  }
  return { dirty, removed, reshaped, affected: reached(state, dirty, dirtyUuids, reshaped, depth, backlinks, byUuid) };
}

/** `dirty` and the stories that refer to what changed (`changed`, uuids), level by level up to the depth. */
function reached(
  state: CompileLedger,
  dirty: ReadonlySet<number>,
  changed: ReadonlySet<string>,
  reshaped: ReadonlySet<string>,
  depth: number,
  backlinks: PreviousBacklinks,
  byUuid: ReadonlyMap<string, number>,
): Set<number> {
  const affected = new Set<number>(dirty);
  let frontier = new Set(changed);
  for (let level = 0; level < Math.max(1, depth) && frontier.size; level++) {
    const next = new Set<string>();
    const reach = (id: number, s: LedgerEntry): void => {
      if (affected.has(id) || !refersToAny(s, frontier, reshaped)) return;
      affected.add(id);
      next.add(s.uuid);
    };
    // The stories that referred to the frontier are those its backlinks list (else every story is asked).
    const candidates = backlinks.referrersOf(frontier, byUuid);
    if (candidates) {
      for (const id of candidates) {
        const s = state.stories.get(id);
        if (s) reach(id, s);
      }
    } else {
      for (const [id, s] of state.stories) reach(id, s);
    }
    frontier = next;
  }
  return affected;
}
