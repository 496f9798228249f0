/**
 * One plugin instance's use of its pipeline: held (shared with other instances over the same
 * directory, shared-pipeline.ts) on first use, synced and compiled once, let go when its build
 * or its last dev server ends.
 */
import type { ContentPipeline, RefreshResult } from './pipeline.js';
import type { HeldPipeline } from './shared-pipeline.js';

export class PipelineLease {
  /** Set once held: undefined until the first build or dev request starts it, and after a dev server's end. */
  pipeline: ContentPipeline | undefined;
  /** This instance's hold on its pipeline, which other instances over the same directory may share. */
  #hold: Promise<HeldPipeline> | undefined;
  #ready: Promise<RefreshResult> | undefined;

  /**
   * `take` holds the pipeline (with the options, root and logger of the moment: they come from a
   * config resolved after the plugin is made); `onHeld` runs each time a hold has started.
   */
  constructor(
    private readonly take: () => Promise<HeldPipeline>,
    private readonly onHeld: () => void,
  ) {}

  /** The held pipeline, started with this call when none is held. */
  setup(): Promise<ContentPipeline> {
    if (!this.#hold) {
      const attempt = this.take();
      this.#hold = attempt;
      attempt.then(
        (held) => {
          this.pipeline = held.pipeline;
          this.onHeld();
        },
        // A start that failed is tried again by the next caller.
        () => this.#hold === attempt && (this.#hold = undefined),
      );
    }
    return this.#hold.then((held) => held.pipeline);
  }

  /** The first sync and compile of this process; later builds (SSR after client) reuse it. */
  ensureReady(): Promise<RefreshResult> {
    return (this.#ready ??= this.setup().then((p) => p.refresh()));
  }

  /** Lets go of the pipeline: it closes (its embedded service stops) once no instance holds it. */
  async letGo(): Promise<void> {
    const held = this.#hold;
    this.#hold = undefined;
    await (await held?.catch(() => undefined))?.release();
  }

  /** Forgets the pipeline and lets go: another server of this plugin started later starts its own. */
  async end(): Promise<void> {
    this.pipeline = undefined;
    this.#ready = undefined;
    await this.letGo();
  }
}
