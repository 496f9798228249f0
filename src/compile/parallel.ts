/**
 * A full compile spread over threads: the calling thread and n - 1 worker
 * threads each compile one chunk of their own first (thread t chunk t, so
 * every thread takes part), then take the next chunk from one shared counter
 * whenever they are free (a thread slowed by its start or by a busy core does
 * not hold the others up), and write their files. The calling thread gathers
 * the results in chunk order and merges the type observations: the files are
 * the ones a compile in one thread writes, whichever thread compiled what. It
 * takes chunks rather than waiting: one isolate fewer, in memory.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { IndexRow } from '../sync/index.js';
import type { ChunkResult } from './story.js';
import type { WorkerInput, WorkerMessage } from './worker.js';

/** Below this many stories a full compile stays in one thread (starting workers costs more than it saves). */
export const PARALLEL_FROM = 2_000;

/** Threads (this one included) for a full compile of `stories` stories when none are asked for. */
export function defaultThreads(stories: number): number {
  return stories < PARALLEL_FROM ? 1 : Math.min(availableParallelism(), 8);
}

/**
 * The worker's module: compiled JavaScript as it is; TypeScript sources (tests,
 * `node --import tsx`) through tsx, registered inside the worker, since module
 * hooks of the calling thread do not reach worker threads on every Node version.
 */
function startWorker(input: WorkerInput): Worker {
  const source = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
  if (!source.pathname.endsWith('.ts')) return new Worker(source, { workerData: input });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(boot, { eval: true, workerData: input });
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

export interface ParallelResult {
  /** Per chunk, in chunk order. */
  chunks: ChunkResult[];
  /** The type observations of each worker thread (TypeInferrer observations as JSON), to merge into this thread's. */
  types: string[];
}

/**
 * Compiles every chunk: in this thread (`local`) and in worker threads, each
 * taking the next chunk when it is free (after one chunk of its own).
 * `threads` counts this one. When one thread fails, the others stop (workers
 * are terminated, this thread stops after its current chunk) before the first
 * error is thrown.
 */
export async function compileInThreads(
  base: Omit<WorkerInput, 'counter' | 'buckets' | 'thread'>,
  members: readonly IndexRow[][],
  threads: number,
  local: (b: number, rows: IndexRow[]) => ChunkResult,
  /** After each chunk, in any thread, in the order they finish: the stories of the chunks done so far, and the chunk. */
  onChunk?: (stories: number, b: number, result: ChunkResult) => void,
): Promise<ParallelResult> {
  const n = Math.max(1, Math.min(threads, members.length));
  const counter = new Int32Array(new SharedArrayBuffer(4));
  counter[0] = n;
  const chunks: ChunkResult[] = new Array(members.length);
  const types: string[] = [];
  const workers: Worker[] = [];
  let failure: { error: unknown } | undefined;
  let done = 0;
  const finished = (b: number) => {
    done += members[b]!.length;
    onChunk?.(done, b, chunks[b]!);
  };
  const fail = (error: unknown) => {
    failure ??= { error };
    for (const w of workers) void w.terminate();
  };
  const inWorker = (k: number) =>
    new Promise<void>((resolve) => {
      const worker = startWorker({ ...base, buckets: members.length, counter, thread: k + 1 });
      workers.push(worker);
      worker.on('message', (m: WorkerMessage) => {
        if (m.kind === 'chunk') {
          chunks[m.b] = m.result;
          finished(m.b);
        } else types[k] = m.types;
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (types[k] === undefined) fail(new Error(`a compile worker stopped (exit code ${code}) before it finished`));
        resolve();
      });
    });
  const here = async () => {
    try {
      for (const b of claimedChunks(0, counter, members.length)) {
        if (failure) return;
        chunks[b] = local(b, members[b]!);
        finished(b);
        // Between chunks, hear from the workers (a failure stops this thread too).
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      fail(error);
    }
  };
  await Promise.all([...Array.from({ length: n - 1 }, (_, k) => inWorker(k)), here()]);
  if (failure) throw failure.error;
  return { chunks, types };
}
