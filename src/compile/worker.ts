/**
 * A worker thread of a parallel full compile: compiles the chunks it is
 * given, writes their files, reports each chunk as it is done, and at the end
 * the type observations of its stories (merged by the calling thread).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexRow } from '../sync/index.js';
import { FileWriter, StoryCompiler, compileFullChunk, recordsOf, type ChunkResult, type StorySetup } from './story.js';
import { TypeInferrer } from './types/index.js';

export interface WorkerInput {
  setup: StorySetup;
  out: string;
  prefix: string;
  /** Every story of the snapshot (targets are looked up among them). */
  index: IndexRow[];
  relations?: readonly string[];
  schema?: unknown;
  /** The chunks this worker compiles, in order. */
  chunks: Array<{ b: number; rows: IndexRow[] }>;
}

export type WorkerMessage = { kind: 'chunk'; b: number; result: ChunkResult } | { kind: 'done'; types: string };

function run(input: WorkerInput): void {
  // Observations only: the types are built from them in the calling thread.
  const inferrer = new TypeInferrer({ ...(input.relations ? { relations: input.relations } : {}), schema: input.schema });
  const byUuid = new Map(input.index.map((e) => [e.uuid, e.id]));
  const compiler = new StoryCompiler(input.setup, byUuid, inferrer, recordsOf(input.setup.snapshot, input.index));
  const writer = new FileWriter(input.out);
  for (const { b, rows } of input.chunks) {
    const result = compileFullChunk(compiler, b, rows, input.prefix, writer);
    parentPort!.postMessage({ kind: 'chunk', b, result } satisfies WorkerMessage);
  }
  parentPort!.postMessage({ kind: 'done', types: JSON.stringify(inferrer.state()) } satisfies WorkerMessage);
}

run(workerData as WorkerInput);
