/**
 * Types inferred from observed content: accumulate stories, then emit one
 * TypeScript module that describes the content exactly as the API delivers it.
 */
import type { Story } from '../../api/index.js';
import { emitTypes } from './emit.js';
import { buildModel } from './build-model.js';
import type { TypeModel } from './model.js';
import { parseSchema } from './schema.js';
import type { Schema } from './schema.js';
import { Observer, adoptStoryCounts, canonical, emptyState, mergeState } from './stats.js';
import type { TypeCounts, ObserveConfig } from './stats.js';

export { emitTypes, printType } from './emit.js';
export { contentDeclaration } from './ambient.js';
export { schemaProblem } from './schema.js';
export { STAND_IN } from './stats.js';
export { pascalCase, renamedTypes } from './names.js';
export type { TypeModel } from './model.js';

export interface InferOptions {
  /**
   * component.field pairs resolved as relations (API syntax): typed as the related story or its uuid
   * (`Relation`), or as the compile embeds the story (`Related`, with `resolution`).
   */
  relations?: readonly string[];
  /**
   * Also detect relation fields: uuid strings or uuid arrays whose values name stories of the
   * snapshot, whose uuids this holds (a set, or a map keyed by uuid).
   */
  storyUuids?: { has(uuid: string): boolean };
  /**
   * Datasources: a field whose observed values all are entry names of one datasource (and few
   * enough to be held: at most maxLiterals distinct) gets that datasource's name union. Read when
   * the types are built, not when stories are observed: a change of entry names needs no story observed again.
   */
  datasources?: ReadonlyArray<{ slug: string; names: readonly string[] }>;
  /** A component schema export (like components.237487.json) merged in: fields never filled still exist (optional). */
  schema?: unknown;
  /**
   * The stories observed are a compile's output with relations resolved this deep (at least 1):
   * a resolved relation is typed as the story embedded (`Related`), a uuid left in a listed field
   * as the kept reference of a target that could not be resolved (see ModelOptions.resolution).
   */
  resolution?: { depth: number; keepUnresolved: boolean };
  /** Literal unions for options when distinct observed values are at most this many and repeat (default 12). */
  maxLiterals?: number;
}

const DEFAULT_MAX_LITERALS = 12;

/** The options that change what is recorded (not only how it is read): a state is only valid with them. */
function fingerprint(config: ObserveConfig): string {
  return JSON.stringify({ cap: config.cap });
}

export class TypeInferrer {
  private readonly data: TypeCounts;
  private readonly observer: Observer;
  private readonly schema: Schema | undefined;
  private readonly maxLiterals: number;

  constructor(
    private readonly options: InferOptions = {},
    state?: TypeCounts,
  ) {
    this.maxLiterals = Math.max(0, Math.floor(options.maxLiterals ?? DEFAULT_MAX_LITERALS));
    const config: ObserveConfig = { cap: this.maxLiterals };
    const opts = fingerprint(config);
    if (state && state.opts !== opts) {
      throw new Error(
        'TypeInferrer.fromState: the state was recorded with a different maxLiterals (or by an older version); infer again from all stories',
      );
    }
    this.data = state ?? emptyState(opts);
    this.observer = new Observer(this.data, config);
    this.schema = options.schema === undefined ? undefined : parseSchema(options.schema);
  }

  /** Records one story (any language variant or view counts as one story). */
  add(story: Story): void {
    this.observer.story(story, 1);
  }

  /** add() of each variant (the languages of one story), walking what they share once. */
  addVariants(stories: readonly Story[]): void {
    this.observer.variants(stories, 1);
  }

  /** Undoes an add() of the same story. */
  remove(story: Story): void {
    this.observer.story(story, -1);
  }

  /** Undoes an addVariants() of the same variants. */
  removeVariants(stories: readonly Story[]): void {
    this.observer.variants(stories, -1);
  }

  /** Everything observed, as deterministic JSON. */
  state(): unknown {
    return canonical(this.data, false);
  }

  /**
   * The observations as they are held (not a copy: serialize them before
   * observing more), for merge() in another thread or a state file: not sorted,
   * in the order first seen (merge() and fromState() read the counts whose
   * order matters in sorted order whatever its order; the story counts are
   * only looked up), so cheaper than state() for a large space.
   */
  observations(): unknown {
    return this.data;
  }

  /**
   * Adds the observations of another inferrer (its state() or observations(), as parsed JSON;
   * same options), e.g. one of a worker thread.
   */
  merge(state: unknown): void {
    const other = state as TypeCounts | undefined;
    if (!other || typeof other !== 'object' || other.v !== 2 || typeof other.opts !== 'string') {
      throw new Error('TypeInferrer.merge: not a type inference state');
    }
    if (other.opts !== this.data.opts)
      throw new Error('TypeInferrer.merge: the state was recorded with a different maxLiterals');
    // What it holds is copied where this one has nothing yet (mergeState): no copy of the whole first.
    mergeState(this.data, other, this.maxLiterals);
  }

  /** The same counts (shared, not copied) under other options, e.g. a new set of story uuids. */
  withOptions(options: InferOptions): TypeInferrer {
    return new TypeInferrer(options, this.data);
  }

  /**
   * Resumes from a state() or observations() as parsed JSON. Its story counts are taken over, not
   * copied (see adoptStoryCounts): `state` is the inferrer's afterwards.
   */
  static fromState(state: unknown, options: InferOptions = {}): TypeInferrer {
    const { stories, ...counts } = (state !== null && typeof state === 'object' ? state : {}) as Record<
      string,
      unknown
    >;
    const s = canonical(counts, true) as TypeCounts;
    const adopted = s.v === 2 && typeof s.opts === 'string' ? adoptStoryCounts(stories) : undefined;
    if (!adopted) throw new Error('TypeInferrer.fromState: not a type inference state');
    s.stories = adopted;
    return new TypeInferrer(options, s);
  }

  model(): TypeModel {
    return buildModel(this.data, {
      relations: new Set(this.options.relations ?? []),
      ...(this.options.storyUuids ? { storyUuids: this.options.storyUuids } : {}),
      datasources: this.options.datasources ?? [],
      ...(this.schema ? { schema: this.schema } : {}),
      maxLiterals: this.maxLiterals,
      ...(this.options.resolution ? { resolution: this.options.resolution } : {}),
    });
  }

  /** model() printed by emitTypes(). */
  emit(options: { header?: string } = {}): string {
    return emitTypes(this.model(), options);
  }
}
