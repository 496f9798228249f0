/**
 * One run at a time, the rest merged: a request made while a run is under way
 * joins the single run queued after it (inputs merged), so a burst of requests
 * costs at most two runs. What the plugin's pipeline and `content-sync watch`
 * both do with syncs.
 */
import PQueue from 'p-queue';

interface Queued<I, R> {
  input: I;
  result: Promise<R>;
}

export class Runner<I, R> {
  readonly #queue = new PQueue({ concurrency: 1 });
  #next: Queued<I, R> | undefined;

  /** `run` does the work; `merge` folds a later request's input into the queued one's. */
  constructor(
    readonly run: (input: I) => Promise<R>,
    readonly merge: (queued: I, later: I) => I,
  ) {}

  /** Starts a run, or joins the one queued; resolves with the result of the run that covers `input`. */
  request(input: I): Promise<R> {
    const next = this.#next;
    if (next) {
      next.input = this.merge(next.input, input);
      return next.result;
    }
    const queued = { input } as Queued<I, R>;
    this.#next = queued;
    queued.result = this.#queue.add(() => {
      // Started: later requests queue a new run.
      if (this.#next === queued) this.#next = undefined;
      return this.run(queued.input);
    });
    return queued.result;
  }

  /** A run is under way. */
  get running(): boolean {
    return this.#queue.pending > 0;
  }

  /** A run waits for the one under way. */
  get queued(): boolean {
    return this.#next !== undefined;
  }

  /** The input of the run that waits, if one does. */
  get queuedInput(): I | undefined {
    return this.#next?.input;
  }

  /** Resolves once no run is under way or queued. */
  idle(): Promise<void> {
    return this.#queue.onIdle();
  }
}
