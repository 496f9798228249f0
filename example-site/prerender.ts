/**
 * Prerendering on every core: the pages are shared among worker threads, each running the bundled
 * prerender worker (prerender-worker.ts) over its share.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PrerenderResult, PrerenderTask } from './prerender-worker.js';

/** Renders and writes every page with `workerFile` (the bundled prerender worker); one result per worker. */
export function prerender(
  workerFile: string,
  task: Omit<PrerenderTask, 'shard' | 'shards'>,
  shards = os.availableParallelism(),
): Promise<PrerenderResult[]> {
  return Promise.all(Array.from({ length: shards }, (_, shard) => runWorker(workerFile, { ...task, shard, shards })));
}

function runWorker(file: string, task: PrerenderTask): Promise<PrerenderResult> {
  return new Promise((resolve, reject) => {
    // No execArgv: the worker is plain JavaScript and must not inherit the TypeScript loader
    // (`--import tsx`), which would stand between it and every content module it imports.
    const worker = new Worker(file, { workerData: task, execArgv: [] });
    worker.once('message', (result: PrerenderResult) => {
      resolve(result);
      // Its work is done and reported: nothing it still holds open (timers, sockets) may keep it.
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the prerender worker ${task.shard + 1}/${task.shards} stopped (exit code ${code})`)),
    );
  });
}
