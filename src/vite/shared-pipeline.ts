/**
 * One pipeline per content directory and options in a process. SvelteKit builds its client inside
 * its server build, with the config loaded again: a second instance of the plugin over the same
 * directory while the first one's embedded service still holds its port. On its own, the second
 * would start another service on another port and read the whole space again (asset URLs carry
 * the port), every build, leaving the two bundles with different asset origins; with the port
 * pinned (`embedded.port`), it could not start at all. Instances that agree share one pipeline,
 * which closes when the last of them lets go.
 */
import type { ResolvedOptions } from './options.js';
import { ContentPipeline, type Logger, settingsRead } from './pipeline.js';
import type { ProjectEnv } from './project-env.js';

interface Shared {
  started: Promise<ContentPipeline>;
  holders: number;
}

const shared = new Map<string, Shared>();

export interface HeldPipeline {
  pipeline: ContentPipeline;
  /** Lets go of the pipeline (once; later calls do nothing): the last holder closes it. */
  release(): Promise<void>;
}

/**
 * The started pipeline of `options` at `root`: the one another instance holds, or a new one
 * (started with `start`: see ContentPipeline.start).
 */
export async function holdPipeline(
  options: ResolvedOptions,
  root: string,
  log: Logger,
  start: { borrow?: boolean; env?: ProjectEnv } = {},
): Promise<HeldPipeline> {
  // With the settings the pipeline reads: instances whose modes read other .env files (a build for
  // production beside a development server) each sync with their own.
  const key = JSON.stringify([root, options, settingsRead(options, start.env ?? process.env)]);
  let entry = shared.get(key);
  if (!entry) {
    const pipeline = new ContentPipeline(options, root, log, start.env);
    const fresh: Shared = { started: pipeline.start(start).then(() => pipeline), holders: 0 };
    // A start that failed is not shared: the next instance tries again.
    fresh.started.catch(() => shared.get(key) === fresh && shared.delete(key));
    shared.set(key, fresh);
    entry = fresh;
  }
  const held = entry;
  held.holders++;
  let pipeline: ContentPipeline;
  try {
    pipeline = await held.started;
  } catch (err) {
    held.holders--;
    throw err;
  }
  let released = false;
  return {
    pipeline,
    async release() {
      if (released) return;
      released = true;
      if (--held.holders > 0) return;
      // Gone before it closes: an instance that starts now gets a pipeline of its own.
      if (shared.get(key) === held) shared.delete(key);
      await pipeline.close();
    },
  };
}
