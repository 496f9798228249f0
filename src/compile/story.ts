/**
 * Compiling one story: its record read from the snapshot, each language
 * materialized and resolved (targets read through small caches), observed for
 * the types, and serialized as its module. Shared by the compile in the
 * calling thread and the worker threads of a parallel full compile.
 */
import { mkdirSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Story } from '../api/index.js';
import { FILES, StoryRecord, materialize } from '../snapshot/index.js';
import type { IndexRow } from '../sync/state.js';
import { createResolver, type LinksMode, type MissingTarget, type ResolveResult } from './resolve/index.js';
import { entryMeta, exportName, type EntryMeta } from './emit.js';
import { exportsSource } from './serialize.js';
import type { TypeInferrer } from './types/index.js';

export interface StoryState {
  digest: string;
  uuid: string;
  /** uuids the story's modules embed or point at (drives invalidation). */
  references: string[];
  component: string;
}

/** What compiling stories needs besides the story: plain data, so a worker thread can be given it. */
export interface StorySetup {
  snapshot: string;
  view: 'published' | 'draft';
  languages: readonly string[];
  resolve: { relations?: readonly string[]; detectRelations: boolean; links?: LinksMode; depth: number };
}

/** A story reference whose target is missing, with the story it was found in (for the warning). */
export interface MissingIn {
  story: { uuid: string; name: string };
  missing: MissingTarget[];
}

export interface CompiledStory {
  metas: EntryMeta[];
  state: StoryState;
  /** The module's source. */
  source: string;
  missing: MissingIn[];
}

/** Reads story records on demand, keeping the most recent in memory; reads ahead what is asked for soon. */
export class RecordCache {
  readonly #dir: string;
  readonly #cache = new Map<number, StoryRecord | null>();
  readonly #ahead = new Map<number, Promise<string | undefined>>();
  readonly #limit: number;

  constructor(dir: string, limit = 512) {
    this.#dir = dir;
    this.#limit = limit;
  }

  #file(id: number): string {
    return path.join(this.#dir, FILES.stories, `${id}.json`);
  }

  /** Starts reading a record in the background (the thread pool), so that get() finds it read. */
  prefetch(id: number): void {
    if (this.#cache.has(id) || this.#ahead.has(id)) return;
    this.#ahead.set(
      id,
      fs.readFile(this.#file(id), 'utf8').then(
        (text) => text,
        () => undefined,
      ),
    );
  }

  async get(id: number): Promise<StoryRecord | undefined> {
    const hit = this.#cache.get(id);
    if (hit !== undefined) {
      this.#cache.delete(id);
      this.#cache.set(id, hit);
      return hit ?? undefined;
    }
    let record: StoryRecord | null = null;
    try {
      const ahead = this.#ahead.get(id);
      this.#ahead.delete(id);
      // Small files: unless read ahead, a synchronous read is several times cheaper than a thread-pool job.
      const text = ahead ? await ahead : readFileSync(this.#file(id), 'utf8');
      if (text !== undefined) record = StoryRecord.parse(JSON.parse(text));
    } catch {
      record = null;
    }
    this.#cache.set(id, record);
    if (this.#cache.size > this.#limit) this.#cache.delete(this.#cache.keys().next().value!);
    return record ?? undefined;
  }
}

/** Targets of one language kept for resolution: the most recently used, so memory stays bounded. */
const LOOKUP_LIMIT = 2_000;

interface TargetLookup {
  load(uuid: string): Promise<Story | undefined>;
  cache: Map<string, Story | undefined>;
  byId: Map<number, Story>;
}

/** Compiles stories one at a time; `inferrer` observes every resolved language variant. */
export class StoryCompiler {
  readonly records: RecordCache;
  readonly #setup: StorySetup;
  readonly #byUuid: ReadonlyMap<string, number>;
  readonly #inferrer: TypeInferrer;
  readonly #lookups: Map<string, TargetLookup>;

  constructor(setup: StorySetup, byUuid: ReadonlyMap<string, number>, inferrer: TypeInferrer) {
    this.#setup = setup;
    this.#byUuid = byUuid;
    this.#inferrer = inferrer;
    this.records = new RecordCache(setup.snapshot);
    this.#lookups = new Map(setup.languages.map((lang) => [lang, this.#lookupFor(lang)]));
  }

  /** The version of a record this compile shows. */
  visible(r: StoryRecord | undefined): StoryRecord['published'] | undefined {
    if (!r) return undefined;
    return this.#setup.view === 'published' ? r.published ?? undefined : r.draft ?? r.published ?? undefined;
  }

  #lookupFor(lang: string): TargetLookup {
    const cache = new Map<string, Story | undefined>();
    const byId = new Map<number, Story>();
    return {
      load: async (uuid: string) => {
        if (cache.has(uuid)) {
          // Used again: the newest, so loading the rest of this story's targets cannot evict it.
          const hit = cache.get(uuid);
          cache.delete(uuid);
          cache.set(uuid, hit);
          return hit;
        }
        const id = this.#byUuid.get(uuid);
        const version = id === undefined ? undefined : this.visible(await this.records.get(id));
        const story = version ? materialize(version, lang) : undefined;
        cache.set(uuid, story);
        if (story) byId.set(story.id, story);
        if (cache.size > LOOKUP_LIMIT) {
          const [oldest, old] = cache.entries().next().value!;
          cache.delete(oldest);
          if (old && byId.get(old.id) === old) byId.delete(old.id);
        }
        return story;
      },
      cache,
      byId,
    };
  }

  /** One story in every language: its module and metadata; undefined when the view has no version of it. */
  async compile(e: IndexRow): Promise<CompiledStory | undefined> {
    const version = this.visible(await this.records.get(e.id));
    if (!version) return undefined;
    const exports: Array<[string, Story]> = [];
    const metas: EntryMeta[] = [];
    const references = new Set<string>();
    const missing: MissingIn[] = [];
    for (const lang of this.#setup.languages) {
      const story = materialize(version, lang);
      // Preload what the story may reference, then resolve synchronously.
      const result = await resolveWith(this.#setup.resolve, this.#lookups.get(lang)!, story);
      if (result.missing.length) missing.push({ story: { uuid: story.uuid, name: story.name }, missing: result.missing });
      for (const u of result.references) references.add(u);
      this.#inferrer.add(result.story);
      exports.push([exportName(lang), result.story]);
      metas.push(entryMeta(story, lang));
    }
    return {
      metas,
      state: { digest: e.digest, uuid: e.uuid, references: [...references].sort(), component: version.story.content.component },
      source: exportsSource(exports),
      missing,
    };
  }
}

/**
 * Resolves one story: its reference graph is loaded into a synchronous lookup
 * first (targets of targets up to the depth), then the pure resolver runs.
 */
async function resolveWith(config: StorySetup['resolve'], lookup: TargetLookup, story: Story): Promise<ResolveResult> {
  // Targets up to the depth (depth 1: the story's own targets, embedded as they are).
  const depth = Math.max(1, config.depth);
  const visited = new Set<string>([story.uuid]);
  let frontier = [story];
  for (let level = 0; level < depth && frontier.length; level++) {
    const next: Story[] = [];
    for (const s of frontier) {
      for (const uuid of uuidsIn(s.content)) {
        if (visited.has(uuid)) continue;
        visited.add(uuid);
        const target = await lookup.load(uuid);
        if (target) next.push(target);
      }
    }
    frontier = next;
  }
  const resolver = createResolver(config, {
    byUuid: (uuid) => (uuid === story.uuid ? story : lookup.cache.get(uuid)),
    byId: (id) => (id === story.id ? story : lookup.byId.get(id)),
  });
  return resolver.resolve(story);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every uuid-looking string in content: the candidates for relations and links. */
function uuidsIn(content: unknown): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [content];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.length === 36 && UUID.test(v)) out.add(v);
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) if (k !== '_uid') stack.push(x);
    }
  }
  return [...out];
}

/**
 * Writes files with several in flight: creating files waits on the disk, so
 * writes overlap with compiling. The first error is thrown by the next put()
 * or by flush().
 */
export class FileWriter {
  readonly #out: string;
  readonly #made = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #concurrency: number;
  #error: unknown;

  constructor(out: string, concurrency = 32) {
    this.#out = out;
    this.#concurrency = concurrency;
  }

  async put(rel: string, text: string): Promise<void> {
    const file = path.join(this.#out, rel);
    const dir = path.dirname(file);
    if (!this.#made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.#made.add(dir);
    }
    if (this.#error) throw this.#error;
    const p: Promise<void> = fs.writeFile(file, text).then(
      () => void this.#inFlight.delete(p),
      (err: unknown) => {
        this.#inFlight.delete(p);
        this.#error ??= err;
      },
    );
    this.#inFlight.add(p);
    if (this.#inFlight.size >= this.#concurrency) await Promise.race(this.#inFlight);
  }

  async flush(): Promise<void> {
    await Promise.all(this.#inFlight);
    if (this.#error) throw this.#error;
  }
}
