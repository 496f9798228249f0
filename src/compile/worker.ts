/**
 * A worker thread of a parallel full compile: started with the compile's
 * options, it waits for the stories index and its work (one message), then
 * compiles its own chunk and the chunks it takes from the counter it shares
 * with the other threads until none is left; writes their files, reports each
 * chunk as it is done, and at the end the type observations of its stories
 * (merged by the calling thread).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { chunkMembers } from './emit.js';
import { claimedChunks, indexRows, type IndexColumns } from './parallel.js';
import { FileWriter, StoryCompiler, compileFullChunk, recordsOf, type ChunkResult, type StorySetup } from './story.js';
import { TypeInferrer } from './types/index.js';

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
  /** Every story of the snapshot (targets are looked up among them; chunk b holds those of bucket b). */
  index: IndexColumns;
  /** How many chunks the index is split into. */
  buckets: number;
  /** The next chunk to compile, shared by every thread (see claimedChunks). */
  counter: Int32Array;
}

export type WorkerMessage = { kind: 'chunk'; b: number; result: ChunkResult } | { kind: 'done'; types: string };

function run(input: WorkerInput, work: WorkerWork): void {
  const index = indexRows(work.index);
  // Observations only: the types are built from them in the calling thread.
  const inferrer = new TypeInferrer({ ...(input.relations ? { relations: input.relations } : {}), schema: input.schema });
  const byUuid = new Map(index.map((e) => [e.uuid, e.id]));
  const compiler = new StoryCompiler(input.setup, byUuid, inferrer, recordsOf(input.setup.snapshot, index));
  const writer = new FileWriter(input.out);
  const members = chunkMembers(index, work.buckets);
  for (const b of claimedChunks(input.thread, work.counter, work.buckets)) {
    const result = compileFullChunk(compiler, b, members[b]!, input.prefix, writer);
    parentPort!.postMessage({ kind: 'chunk', b, result } satisfies WorkerMessage);
  }
  // Closed now rather than when the thread exits (which closes what it opened too).
  compiler.records.release();
  parentPort!.postMessage({ kind: 'done', types: JSON.stringify(inferrer.observations()) } satisfies WorkerMessage);
}

parentPort!.once('message', (work: WorkerWork) => run(workerData as WorkerInput, work));
