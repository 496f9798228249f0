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
import { claimedChunks, indexRows, type WorkerInput, type WorkerMessage, type WorkerWork } from './worker-protocol.js';
import { FileWriter, StoryCompiler, compileFullChunk, recordsOf } from './story.js';
import { TypeInferrer } from './types/index.js';

function run(input: WorkerInput, work: WorkerWork): void {
  const index = indexRows(work.index);
  // Observations only: the types are built from them in the calling thread.
  const inferrer = new TypeInferrer({
    ...(input.relations ? { relations: input.relations } : {}),
    schema: input.schema,
  });
  const byUuid = new Map(index.map((e) => [e.uuid, e.id]));
  const compiler = new StoryCompiler(input.setup, byUuid, inferrer, recordsOf(input.setup.snapshot, index));
  const writer = new FileWriter(input.out);
  const members = chunkMembers(index, work.chunkTotal);
  for (const b of claimedChunks(input.thread, work.counter, work.chunkTotal)) {
    const result = compileFullChunk(compiler, b, members[b]!, input.prefix, writer);
    parentPort!.postMessage({ kind: 'chunk', b, result } satisfies WorkerMessage);
  }
  // Closed now rather than when the thread exits (which closes what it opened too).
  compiler.records.release();
  parentPort!.postMessage({ kind: 'done', types: JSON.stringify(inferrer.observations()) } satisfies WorkerMessage);
}

parentPort!.once('message', (work: WorkerWork) => run(workerData as WorkerInput, work));
