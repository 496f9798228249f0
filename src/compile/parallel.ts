/**
 * A full compile spread over threads: the calling thread and n - 1 worker
 * threads each compile one chunk of their own first (thread t chunk t, so
 * every thread takes part), then take the next chunk from one shared counter
 * whenever they are free (a thread slowed by its start or by a busy core does
 * not hold the others up), and write their files. The calling thread takes
 * in each result as it arrives and merges the type observations at the end:
 * the files are the ones a compile in one thread writes, whichever thread
 * compiled what. It takes chunks rather than waiting: one isolate fewer, in
 * memory.
 *
 * Workers can be started before the stories index is read (`CompileWorkers`):
 * they load their modules while the calling thread reads it, and are given
 * the index and their work when it is.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { IndexRow } from '../snapshot/stories-index.js';
import type { ChunkResult } from './story.js';
import {
  claimedChunks,
  indexColumns,
  type IndexColumns,
  type WorkerInput,
  type WorkerMessage,
  type WorkerWork,
} from './worker-protocol.js';

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

interface Started {
  worker: Worker;
  /** Set when the worker failed or stopped before it finished (an error, or an exit before its types). */
  failure?: { error: unknown };
  exited: Promise<void>;
  /** Its type observations, once it finished. */
  types?: string;
}

/**
 * Worker threads of one compile, started ahead of their work: each loads its
 * modules and waits for the index and its part (`compileInThreads`). A pool
 * that is not used is terminated (`terminate`).
 */
export class CompileWorkers {
  readonly #base: Omit<WorkerInput, 'thread'>;
  readonly #started: Started[] = [];

  /** `count` workers for a compile with `base` (which must be what the compile then does). */
  constructor(base: Omit<WorkerInput, 'thread'>, count: number) {
    this.#base = base;
    this.grow(count);
  }

  /** Starts workers until there are `count`. */
  grow(count: number): void {
    while (this.#started.length < count) {
      const worker = startWorker({ ...this.#base, thread: this.#started.length + 1 });
      const s: Started = { worker, exited: Promise.resolve() };
      s.exited = new Promise<void>((resolve) => {
        worker.on('error', (error) => {
          s.failure ??= { error };
        });
        worker.on('exit', (code) => {
          if (s.types === undefined)
            s.failure ??= { error: new Error(`a compile worker stopped (exit code ${code}) before it finished`) };
          resolve();
        });
      });
      this.#started.push(s);
    }
  }

  /** The first `n` workers, the others terminated. */
  take(n: number): Started[] {
    for (const s of this.#started.slice(n)) void s.worker.terminate();
    return this.#started.slice(0, n);
  }

  /** Stops every worker (those that finished have stopped already). */
  async terminate(): Promise<void> {
    await Promise.all(this.#started.map((s) => s.worker.terminate()));
  }
}

export interface ParallelResult {
  /** The type observations of each worker thread (TypeInferrer observations as JSON), to merge into this thread's. */
  types: string[];
}

/**
 * Compiles every chunk: in this thread (`local`) and in the pool's worker
 * threads (started beforehand, or now up to `threads` - 1), each taking the
 * next chunk when it is free (after one chunk of its own), and gives each
 * result to `onChunk` as it arrives. `threads` counts this one. When one
 * thread fails, the others stop (workers are terminated, this thread stops
 * after its current chunk) before the first error is thrown.
 */
export async function compileInThreads(
  pool: CompileWorkers,
  index: IndexRow[],
  members: readonly IndexRow[][],
  threads: number,
  local: (b: number, rows: IndexRow[]) => ChunkResult,
  /** After each chunk, in any thread, in the order they finish: the stories of the chunks done so far, and the chunk. */
  onChunk: (stories: number, b: number, result: ChunkResult) => void,
): Promise<ParallelResult> {
  const n = Math.max(1, Math.min(threads, members.length));
  pool.grow(n - 1);
  const workers = pool.take(n - 1);
  const counter = new Int32Array(new SharedArrayBuffer(4));
  counter[0] = n;
  let failure: { error: unknown } | undefined;
  /** The index as posted to the workers (made once for all of them). */
  let columns: IndexColumns | undefined;
  let done = 0;
  const finished = (b: number, result: ChunkResult) => {
    done += members[b]!.length;
    onChunk(done, b, result);
  };
  const fail = (error: unknown) => {
    failure ??= { error };
    for (const s of workers) void s.worker.terminate();
  };
  const inWorker = async (s: Started) => {
    s.worker.on('message', (m: WorkerMessage) => {
      if (m.kind === 'chunk') finished(m.b, m.result);
      else s.types = m.types;
    });
    if (s.failure) fail(s.failure.error);
    else
      s.worker.postMessage({
        index: (columns ??= indexColumns(index)),
        chunkTotal: members.length,
        counter,
      } satisfies WorkerWork);
    await s.exited;
    if (s.failure) fail(s.failure.error);
  };
  const here = async () => {
    try {
      for (const b of claimedChunks(0, counter, members.length)) {
        if (failure) return;
        finished(b, local(b, members[b]!));
        // Between chunks, hear from the workers (a failure stops this thread too).
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      fail(error);
    }
  };
  await Promise.all([...workers.map(inWorker), here()]);
  if (failure) throw failure.error;
  return { types: workers.map((s) => s.types!) };
}
