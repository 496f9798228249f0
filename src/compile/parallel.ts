/**
 * A full compile spread over threads: the calling thread and n - 1 worker
 * threads each compile a share of the chunks (chunk b goes to share b mod n,
 * so who compiles what is fixed) and write their files; the calling thread
 * gathers the results in chunk order and merges the type observations, so the
 * output is the one a compile in one thread writes. The calling thread takes
 * a share rather than waiting: one isolate fewer, in memory.
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

export interface ParallelResult {
  /** Per chunk, in chunk order. */
  chunks: ChunkResult[];
  /** The type observations of each worker thread (TypeInferrer state as JSON), to merge into this thread's. */
  types: string[];
}

/**
 * Compiles every chunk: share 0 in this thread (`local`), the others in
 * worker threads. `threads` counts this one. When one thread fails, the others
 * stop (workers are terminated, this thread stops after its current chunk)
 * before the first error is thrown.
 */
export async function compileInThreads(
  base: Omit<WorkerInput, 'chunks'>,
  members: readonly IndexRow[][],
  threads: number,
  local: (b: number, rows: IndexRow[]) => ChunkResult,
  /** After each chunk, in any thread, in the order they finish: the stories of the chunks done so far, and the chunk. */
  onChunk?: (stories: number, b: number, result: ChunkResult) => void,
): Promise<ParallelResult> {
  const n = Math.max(1, Math.min(threads, members.length));
  const shares: WorkerInput['chunks'][] = Array.from({ length: n }, () => []);
  members.forEach((rows, b) => shares[b % n]!.push({ b, rows }));
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
  const inWorker = (chunks_: WorkerInput['chunks'], k: number) =>
    new Promise<void>((resolve) => {
      const worker = startWorker({ ...base, chunks: chunks_ });
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
      for (const { b, rows } of shares[0]!) {
        if (failure) return;
        chunks[b] = local(b, rows);
        finished(b);
        // Between chunks, hear from the workers (a failure stops this share too).
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      fail(error);
    }
  };
  await Promise.all([...shares.slice(1).map(inWorker), here()]);
  if (failure) throw failure.error;
  return { chunks, types };
}
