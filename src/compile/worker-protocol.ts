/**
 * What the calling thread of a parallel full compile and its worker threads
 * say to each other: what a worker is started with (`WorkerInput`), the work
 * posted once the index is read (`WorkerWork`, the index in columns), the
 * messages a worker answers with (`WorkerMessage`), and how threads claim
 * chunks from the counter they share.
 */
import type { IndexRow } from '../snapshot/stories-index.js';
import type { ChunkResult, StorySetup } from './story.js';

export interface WorkerInput {
  setup: StorySetup;
  out: string;
  prefix: string;
  relations?: readonly string[];
  schema?: unknown;
  /** This thread's number (the calling thread is 0), and the chunk it compiles first. */
  thread: number;
}

/** The work, posted once the calling thread has read the index. */
export interface WorkerWork {
  /** Every story of the snapshot (targets are looked up among them; chunk b holds those of chunk b). */
  index: IndexColumns;
  /** How many chunks the index is split into. */
  chunkTotal: number;
  /** The next chunk to compile, shared by every thread (see claimedChunks). */
  counter: Int32Array;
}

export type WorkerMessage = { kind: 'chunk'; b: number; result: ChunkResult } | { kind: 'done'; types: string };

/**
 * The stories index as it is posted to worker threads: in columns, a few typed
 * arrays and strings, which are copied between threads several times faster
 * than as many objects as there are stories. Strings are joined, cut at the
 * offsets kept beside them.
 */
export interface IndexColumns {
  ids: Float64Array;
  uuids: string;
  digests: string;
  /** Where each story's uuid and digest end in `uuids` and `digests`. */
  uuidEnds: Uint32Array;
  digestEnds: Uint32Array;
  /** Content types, by position in `components`; -1 when the row has none. */
  components: string[];
  component: Int32Array;
  /** 1 published, 0 not, 2 not said. */
  published: Uint8Array;
  /** Where the entry is in the index file; -1 when the row does not say. */
  at: Float64Array;
  size: Float64Array;
}

export function indexColumns(index: readonly IndexRow[]): IndexColumns {
  const n = index.length;
  const c: IndexColumns = {
    ids: new Float64Array(n),
    uuids: '',
    digests: '',
    uuidEnds: new Uint32Array(n),
    digestEnds: new Uint32Array(n),
    components: [],
    component: new Int32Array(n),
    published: new Uint8Array(n),
    at: new Float64Array(n),
    size: new Float64Array(n),
  };
  const uuids: string[] = [];
  const digests: string[] = [];
  const componentAt = new Map<string, number>();
  let uuidEnd = 0;
  let digestEnd = 0;
  for (let i = 0; i < n; i++) {
    const row = index[i]!;
    c.ids[i] = row.id;
    uuids.push(row.uuid);
    digests.push(row.digest);
    c.uuidEnds[i] = uuidEnd += row.uuid.length;
    c.digestEnds[i] = digestEnd += row.digest.length;
    let k = -1;
    if (row.component !== undefined) {
      k = componentAt.get(row.component) ?? -1;
      if (k < 0) {
        k = c.components.push(row.component) - 1;
        componentAt.set(row.component, k);
      }
    }
    c.component[i] = k;
    c.published[i] = row.published === undefined ? 2 : row.published ? 1 : 0;
    c.at[i] = row.at ?? -1;
    c.size[i] = row.size ?? -1;
  }
  c.uuids = uuids.join('');
  c.digests = digests.join('');
  return c;
}

/** The rows `indexColumns` was given. */
export function indexRows(c: IndexColumns): IndexRow[] {
  const rows: IndexRow[] = new Array<IndexRow>(c.ids.length);
  let uuidStart = 0;
  let digestStart = 0;
  for (let i = 0; i < rows.length; i++) {
    const row: IndexRow = {
      id: c.ids[i]!,
      uuid: c.uuids.slice(uuidStart, c.uuidEnds[i]),
      digest: c.digests.slice(digestStart, c.digestEnds[i]),
    };
    uuidStart = c.uuidEnds[i]!;
    digestStart = c.digestEnds[i]!;
    if (c.component[i]! >= 0) row.component = c.components[c.component[i]!]!;
    if (c.published[i] !== 2) row.published = c.published[i] === 1;
    if (c.at[i]! >= 0) {
      row.at = c.at[i]!;
      row.size = c.size[i]!;
    }
    rows[i] = row;
  }
  return rows;
}

/**
 * The chunks a thread compiles, in order: chunk `thread` first, then each
 * next one from the counter the threads share (`Int32Array` over a
 * SharedArrayBuffer, starting at the number of threads).
 */
export function* claimedChunks(thread: number, counter: Int32Array, chunks: number): Generator<number> {
  if (thread >= chunks) return;
  yield thread;
  for (let b = Atomics.add(counter, 0, 1); b < chunks; b = Atomics.add(counter, 0, 1)) yield b;
}
