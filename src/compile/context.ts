/** What every part of one compile works over: the snapshot as read, the options, and the output. */
import type { IndexRow } from '../snapshot/stories-index.js';
import type { Output } from './output.js';
import type { MissingIn, RecordCache, StoryCompiler, StorySetup, LedgerEntry } from './story.js';
import type { TypeInferrer } from './types/index.js';

export interface CompileContext {
  readonly setup: StorySetup;
  /** Import specifier prefix of the story modules in the declarations. */
  readonly prefix: string;
  /** Every story of the snapshot, sorted by id. */
  readonly index: IndexRow[];
  /** How many chunks the index, its declarations and the backlinks are split into. */
  readonly chunkTotal: number;
  readonly byUuid: ReadonlyMap<string, number>;
  readonly records: RecordCache;
  readonly output: Output;
  /** Observes every story compiled. */
  readonly inferrer: TypeInferrer;
  readonly compiler: StoryCompiler;
  /** Where targets were missing, as stories are compiled (for the warning). */
  readonly missing: MissingIn[];
  readonly onProgress?: ((compiled: number, total: number) => void) | undefined;
}

/** The stories after a full or incremental compile, and what it took. */
export interface CompiledStories {
  stories: Map<number, LedgerEntry>;
  /** The stories that have modules. */
  withModules: Set<number>;
  /** Story modules, one a language. */
  modules: number;
  /** Stories compiled this time. */
  compiled: number;
  /** The backlinks chunks to write (undefined: the chunk is kept as it is). */
  backlinks: Array<Map<string, string[]> | undefined>;
}
