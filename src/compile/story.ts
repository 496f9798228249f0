/**
 * Compiling one story: its record read from the snapshot, each language
 * materialized and resolved (relation targets taken from the index where it
 * says enough, other targets read through small caches), observed for the
 * types, and serialized as its module. Shared by the compile in the
 * calling thread and the worker threads of a parallel full compile.
 */
import { closeSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Story, View } from '../api/index.js';
import { DEFAULT_LANG, INDEX_FILES, StoryRecord, type LanguageOverlay, type StoryVersion } from '../snapshot/format.js';
import { isStackOverflow, nestingDepth, sha256 } from '../snapshot/json.js';
import { materialize, overlayIn, untranslated } from '../snapshot/languages.js';
import { storyFile, type StoryIndexEntry } from '../snapshot/index-entries.js';
import { overlayContentTexts, versionLayout } from '../snapshot/record-text.js';
import type { IndexRow } from '../snapshot/stories-index.js';
import {
  createResolver,
  type LinksMode,
  type MissingTarget,
  type ResolveResult,
  type ScanMemo,
} from './resolve/index.js';
import {
  chunkFiles,
  entryMeta,
  languageExports,
  rawModulePath,
  storyModulePath,
  type DeclaredModule,
  type EntryMeta,
} from './emit.js';
import { viewChunkFiles } from './views.js';
import { exportsSource, overlayModuleSource, storyModuleSource, type RawRef } from './serialize.js';
import { STAND_IN, type TypeInferrer } from './types/index.js';

export interface LedgerEntry {
  digest: string;
  uuid: string;
  /** uuids the story's modules embed or point at (drives invalidation). */
  references: string[];
  /**
   * Those of the references the modules only import (see ResolveResult.embedded): their changes
   * reach this story through the import, unless they leave the snapshot or change content type.
   */
  imports: string[];
  component: string;
}

/** What compiling stories needs besides the story: plain data, so a worker thread can be given it. */
export interface StorySetup {
  snapshot: string;
  view: View;
  languages: readonly string[];
  resolve: {
    relations?: readonly string[];
    detectRelations: boolean;
    links?: LinksMode;
    depth: number;
    keepUnresolved: boolean;
    /** The snapshot holds the published view: its index says which stories have a published version. */
    publishedView: boolean;
  };
  /** Content fields copied into each story's index entries (see entryMeta). */
  entryFields: readonly string[];
}

/** A story reference whose target is missing, with the story it was found in (for the warning). */
export interface MissingIn {
  story: { uuid: string; name: string };
  missing: MissingTarget[];
}

export interface CompiledStory {
  metas: EntryMeta[];
  state: LedgerEntry;
  /** The story module's source (`stories/<id>.js`). */
  source: string;
  /** The raw module's source (`raw/<id>.js`): the story as the snapshot has it, each language. */
  raw: string;
  missing: MissingIn[];
}

/**
 * Keeps the values most recently set or read, at most `limit`, in two
 * generations of half as many each: when the newer is full it becomes the
 * older, and what the older held and nobody read meanwhile is dropped. A value
 * read from the older is set again in the newer. The bound of a least recently
 * used cache without reordering it on every read. Values are never undefined
 * (undefined is a miss).
 */
export class RecentCache<K, V extends NonNullable<unknown> | null> {
  #newer = new Map<K, V>();
  #older = new Map<K, V>();
  readonly #half: number;

  constructor(limit: number) {
    this.#half = Math.max(1, Math.floor(limit / 2));
  }

  get(key: K): V | undefined {
    const value = this.#newer.get(key);
    if (value !== undefined) return value;
    const older = this.#older.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: K, value: V): void {
    this.#newer.set(key, value);
    if (this.#newer.size >= this.#half) {
      this.#older = this.#newer;
      this.#newer = new Map();
    }
  }
}

/**
 * Reads story records on demand, keeping the most recent in memory. A record
 * whose bytes are the ones the index names (its digest) is the one sync
 * wrote and checked: parsed only; any other is checked against the schema.
 * Reads are synchronous: records are small and were just written, and a read
 * on the thread pool costs several times more than it. Also reads single
 * entries of the stories index (`linkView`).
 */
export class RecordCache {
  readonly #dir: string;
  /** The stories index, whose entries `linkView` reads one at a time. */
  readonly #indexFile: string;
  /** Every story's index row, sorted by id. */
  readonly #rows: readonly IndexRow[];
  readonly #cache: RecentCache<number, StoryRecord>;
  /** Index entries read for links (every language of a story reads the same). */
  readonly #entries = new RecentCache<number, Partial<StoryIndexEntry> | null>(ENTRY_LIMIT);
  #buffer = Buffer.allocUnsafe(4096);
  /** The stories index, open while links are read (see release()). */
  #indexFd: number | undefined;

  /** `rows`: the index entry of every story, sorted by id (as compile reads the index). */
  constructor(dir: string, rows: readonly IndexRow[], limit = 128) {
    this.#dir = dir;
    this.#indexFile = path.join(dir, INDEX_FILES.stories);
    this.#rows = rows;
    this.#cache = new RecentCache(limit);
  }

  /** The uuid of the story with this id, if the snapshot has one. */
  uuidOf(id: number): string | undefined {
    return this.row(id)?.uuid;
  }

  /** The index entry of the story with this id. */
  row(id: number): IndexRow | undefined {
    const at = positionOfId(this.#rows, id);
    return at === undefined ? undefined : this.#rows[at];
  }

  /**
   * What a link to the story shows in `lang` (its id, uuid, name, slug, full
   * slug and path), from its entry in the stories index, which describes the
   * published version, else the draft; undefined when the row does not say
   * where its entry is or the entry is not the one the row was read from.
   */
  linkView(id: number, lang: string): Story | undefined {
    const row = this.row(id);
    if (row?.at === undefined || row.size === undefined) return undefined;
    let entry = this.#entries.get(id);
    if (entry === undefined) {
      entry = null;
      try {
        // Kept open: a compile reads thousands of entries. A sync that commits meanwhile replaces the
        // file; the one open is still the one the rows were read from.
        this.#indexFd ??= openSync(this.#indexFile, 'r');
        if (this.#buffer.length < row.size) this.#buffer = Buffer.allocUnsafe(row.size * 2);
        const n = readSync(this.#indexFd, this.#buffer, 0, row.size, row.at);
        const parsed = JSON.parse(this.#buffer.toString('utf8', 0, n)) as Partial<StoryIndexEntry>;
        // Another index than the one the rows were read from: not trusted.
        if (parsed.id === id && parsed.uuid === row.uuid && parsed.digest === row.digest) entry = parsed;
      } catch {
        entry = null;
      }
      this.#entries.set(id, entry);
    }
    if (!entry || typeof entry.name !== 'string' || typeof entry.slug !== 'string' || entry.path === undefined)
      return undefined;
    // Own keys only: a language named `constructor` must not read what every object has.
    const fullSlug = entry.slugs && Object.hasOwn(entry.slugs, lang) ? entry.slugs[lang] : undefined;
    if (typeof fullSlug !== 'string') return undefined;
    const own = entry.link_fields && Object.hasOwn(entry.link_fields, lang) ? entry.link_fields[lang] : undefined;
    return {
      id,
      uuid: row.uuid,
      name: own && 'name' in own ? own.name : entry.name,
      slug: own && 'slug' in own ? own.slug : entry.slug,
      full_slug: fullSlug,
      path: own && 'path' in own ? own.path : entry.path,
    } as unknown as Story;
  }

  /** Closes the stories index if linkView() opened it (a later call opens it again). */
  release(): void {
    if (this.#indexFd === undefined) return;
    const fd = this.#indexFd;
    this.#indexFd = undefined;
    closeSync(fd);
  }

  /** The record of the story with this id (kept for later reads). */
  get(id: number): StoryRecord {
    const hit = this.#cache.get(id);
    if (hit !== undefined) return hit;
    const record = this.#read(id).record;
    this.#cache.set(id, record);
    return record;
  }

  /**
   * A story's own record, read once to compile it: not kept (so that it can be collected young),
   * and with its text when that is the one sync wrote (its digest is the one the index names).
   * Read even when kept (as another story's target): the text is part of what is compiled, so
   * the output does not depend on what was read before.
   */
  own(id: number): { record: StoryRecord; text?: string } {
    return this.#read(id);
  }

  /** Throws a DamagedSnapshotError when the index lists the story but its record cannot be read or is not one. */
  #read(id: number): { record: StoryRecord; text: string | undefined } {
    const rel = storyFile(id);
    const bytes = readSnapshotFile(this.#dir, rel);
    const text = bytes.toString('utf8');
    const data = parseSnapshotJson(this.#dir, rel, text);
    // The digest is of the bytes: hashed before decoding (hashing a string encodes it again).
    if (this.row(id)?.digest === sha256(bytes).slice(0, 16)) return { record: data as StoryRecord, text };
    // Not the record sync wrote (edited by hand): checked before it is compiled, and written out anew.
    const checked = StoryRecord.safeParse(data);
    if (!checked.success) throw DamagedSnapshotError.notA(this.#dir, rel, 'a story record', checked.error);
    return { record: checked.data, text: undefined };
  }
}

/**
 * A file of the snapshot the compile needs and cannot use: missing, not JSON, or not what sync
 * writes there. Something other than sync changed the snapshot; the message names the file, what
 * is wrong with it and the remedy.
 */
export class DamagedSnapshotError extends Error {
  constructor(snapshot: string, rel: string, problem: string) {
    super(
      `${path.join(snapshot, rel)} is ${problem}; the snapshot is damaged: \`content-sync sync --full\` reads the space again and puts it right`,
    );
    this.name = 'DamagedSnapshotError';
  }

  /** For a file that is JSON but not `what`: where zod's first issue is, and what it says. */
  static notA(
    snapshot: string,
    rel: string,
    what: string,
    error: { issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }> },
  ): DamagedSnapshotError {
    const issue = error.issues[0];
    const where = issue?.path.map(String).join('.') || 'the file';
    return new DamagedSnapshotError(snapshot, rel, `not ${what} (${where}: ${issue?.message ?? 'invalid'})`);
  }
}

/** The bytes of a file of the snapshot; a DamagedSnapshotError when it is missing or cannot be read. */
export function readSnapshotFile(snapshot: string, rel: string): Buffer {
  try {
    return readFileSync(path.join(snapshot, rel));
  } catch (err) {
    throw new DamagedSnapshotError(
      snapshot,
      rel,
      (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : (err as Error).message,
    );
  }
}

/** The text of the snapshot's file `rel`, parsed; a DamagedSnapshotError when it is not JSON. */
export function parseSnapshotJson(snapshot: string, rel: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new DamagedSnapshotError(snapshot, rel, `not JSON (${(err as Error).message})`);
  }
}

/** The records of a snapshot whose index rows are `index`, sorted by id (ordered here if they are not). */
export const recordsOf = (snapshot: string, index: readonly IndexRow[]) =>
  new RecordCache(snapshot, sortedById(index) ? index : [...index].sort((a, b) => a.id - b.id));

/** Whether index rows are in the order of their ids (as sync writes them), each id once. */
export const sortedById = (index: readonly IndexRow[]): boolean =>
  index.every((e, k) => k === 0 || index[k - 1]!.id < e.id);

/** The position in `index` (sorted by id) of the story with this id, or undefined. */
export function positionOfId(index: readonly IndexRow[], id: number): number | undefined {
  let lo = 0;
  let hi = index.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = index[mid]!.id;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** The version of a record a compile of `view` shows: the draft view falls back to the published one. */
export function visibleVersion(r: StoryRecord | undefined, view: View): StoryVersion | undefined {
  if (!r) return undefined;
  return (view === 'published' ? r.published : (r.draft ?? r.published)) ?? undefined;
}

/** Index entries kept for links: small, and read by each language of a story in turn. */
const ENTRY_LIMIT = 256;

/** Targets of one language kept for resolution: the most recently used, so memory stays bounded. */
const LOOKUP_LIMIT = 1_000;

/**
 * Link targets of one language kept as links show them (from the index entry,
 * else the whole record). Fewer: links point anywhere, so a larger cache is rarely hit.
 */
const LINK_RECORD_LIMIT = 200;

interface TargetLookup {
  load(uuid: string): Story | undefined;
  /** A target as links show it: the story itself, or for a stand-in its index entry (else its record). */
  linkRecord(story: Story): Story;
}

/** Compiles stories one at a time; `inferrer` observes every resolved language variant. */
export class StoryCompiler {
  readonly records: RecordCache;
  readonly #setup: StorySetup;
  readonly #byUuid: ReadonlyMap<string, number>;
  readonly #inferrer: TypeInferrer;
  readonly #lookups: Map<string, TargetLookup>;
  /** The export of each language in the story modules. */
  readonly #exportNames: ReadonlyMap<string, string>;

  /** `byUuid`: the id of every story of the snapshot by its uuid (targets are looked up there). */
  constructor(setup: StorySetup, byUuid: ReadonlyMap<string, number>, inferrer: TypeInferrer, records: RecordCache) {
    this.#setup = setup;
    this.#byUuid = byUuid;
    this.#inferrer = inferrer;
    this.records = records;
    this.#exportNames = languageExports(setup.languages);
    this.#lookups = new Map(setup.languages.map((lang) => [lang, this.#lookupFor(lang)]));
  }

  get languages(): readonly string[] {
    return this.#setup.languages;
  }

  /** The version of a record this compile shows. */
  visible(r: StoryRecord | undefined): StoryVersion | undefined {
    return visibleVersion(r, this.#setup.view);
  }

  /**
   * A target at depth 1 is embedded as it is (its module imports the target's
   * raw module), and the types note only its content type. So the index entry
   * is enough, when it describes the version this view shows: a stand-in with
   * the target's id, uuid and content type (marked STAND_IN), without reading
   * its record. Links take what they show from `linkRecord` (the index entry,
   * else the record).
   * null: the story is not in this view; undefined: the index cannot tell.
   */
  #standIn(id: number): Story | null | undefined {
    if (this.#setup.resolve.depth > 1) return undefined;
    const row = this.records.row(id);
    if (!row || row.component === undefined || row.published === undefined) return undefined;
    // The entry describes the published version, else the draft: in the draft view, a published
    // story may have a newer draft, which only its record shows.
    if (this.#setup.view === 'published' && !row.published) return null;
    if (this.#setup.view === 'draft' && row.published) return undefined;
    return { id, uuid: row.uuid, content: { component: row.component }, [STAND_IN]: true } as unknown as Story;
  }

  #lookupFor(lang: string): TargetLookup {
    /** Targets by uuid; null: none the view shows. */
    const cache = new RecentCache<string, Story | null>(LOOKUP_LIMIT);
    const full = new RecentCache<string, Story>(LINK_RECORD_LIMIT);
    const read = (id: number): Story | undefined => {
      const version = this.visible(this.records.get(id));
      return version ? materialize(version, lang) : undefined;
    };
    return {
      load: (uuid: string) => {
        const hit = cache.get(uuid);
        if (hit !== undefined) return hit ?? undefined;
        const id = this.#byUuid.get(uuid);
        let story: Story | undefined;
        if (id !== undefined) {
          const standIn = this.#standIn(id);
          story = standIn === undefined ? read(id) : (standIn ?? undefined);
        }
        cache.set(uuid, story ?? null);
        return story;
      },
      linkRecord: (story: Story) => {
        if (!(STAND_IN in story)) return story;
        let record = full.get(story.uuid);
        if (!record) {
          // The index entry says what url and story links show (a stand-in's entry describes the version
          // this view shows); routing links show more. A record without a version in this view: what the stand-in knows.
          if (this.#setup.resolve.links !== 'link') record = this.records.linkView(story.id, lang);
          record ??= read(story.id) ?? story;
          full.set(story.uuid, record);
        }
        return record;
      },
    };
  }

  /** One story in every language: its module and metadata; undefined when the view has no version of it. */
  /**
   * The story's modules, metadata and state. Content nested deeper than the walks over it can
   * follow (about a thousand bloks in bloks; each walk recurses) is refused naming the story,
   * instead of a bare "Maximum call stack size exceeded".
   */
  compile(e: IndexRow): CompiledStory | undefined {
    try {
      return this.#compileStory(e);
    } catch (err) {
      if (!isStackOverflow(err)) throw err;
      const content = this.visible(this.records.own(e.id).record)?.story.content;
      throw new Error(
        `story ${e.id} (${e.uuid}): its content is nested ${nestingDepth(content)} levels deep, more than the compile can follow ` +
          `(${err.message}); flatten it in the space`,
      );
    }
  }

  #compileStory(e: IndexRow): CompiledStory | undefined {
    const own = this.records.own(e.id);
    const version = this.visible(own.record);
    if (!version) return undefined;
    const exports: Array<[string, Story]> = [];
    const rawExports = this.#setup.languages.map(
      (lang) => [this.#exportNames.get(lang)!, materialize(version, lang)] as [string, Story],
    );
    // Written out first, while the record just read is still in the processor's caches.
    const raw = rawModuleSource(
      version,
      this.#setup.languages,
      rawExports,
      own.text === undefined
        ? undefined
        : { record: own.text, version: version === own.record.published ? 'published' : 'draft' },
    );
    /** The stories as the snapshot has them that the exports embed: imported from their raw modules. */
    const raws = new Map<object, RawRef>();
    const metas: EntryMeta[] = [];
    const references = new Set<string>();
    const inline = new Set<string>();
    const missing: MissingIn[] = [];
    // The languages share their untranslated fields: what one scan found clean, the others skip.
    const memo: ScanMemo = { clean: new Set() };
    for (const [k, lang] of this.#setup.languages.entries()) {
      const [name, story] = rawExports[k]!;
      const lookup = this.#lookups.get(lang)!;
      const { result, loaded } = resolveWith(this.#setup.resolve, lookup, story, this.records, memo);
      if (result.missing.length)
        missing.push({ story: { uuid: story.uuid, name: story.name }, missing: result.missing });
      const whole = new Set(result.embedded);
      for (const u of result.references) {
        references.add(u);
        if (!whole.has(u)) inline.add(u);
        const target = loaded.get(u);
        if (target && target !== story && !raws.has(target))
          raws.set(target, { from: `../${rawModulePath(target.id)}`, name });
      }
      raws.set(story, { from: `../${rawModulePath(e.id)}`, name });
      exports.push([name, result.story]);
      metas.push(entryMeta(story, lang, this.#setup.entryFields));
    }
    this.#inferrer.addVariants(exports.map(([, s]) => s));
    return {
      metas,
      state: {
        digest: e.digest,
        uuid: e.uuid,
        references: [...references].sort(),
        imports: [...references].filter((u) => !inline.has(u)).sort(),
        component: version.story.content.component,
      },
      source: storyModuleSource(exports, raws),
      raw,
      missing,
    };
  }
}

/** The digest the compile state keeps of a generated file. */
export const fileDigest = (text: string): string => sha256(text).slice(0, 20);

/** What compiling one chunk of a full compile wrote and learned. */
export interface ChunkResult {
  /** The chunk's stories that have a module, in index order. */
  stories: Array<[number, LedgerEntry]>;
  /** The chunk's files besides story modules, with their digests (each story's two modules are written too). */
  files: Array<[string, string]>;
  missing: MissingIn[];
}

/** Compiles every story of one chunk and writes their modules and the chunk's files (a full compile). */
export function compileFullChunk(
  compiler: StoryCompiler,
  b: number,
  rows: readonly IndexRow[],
  prefix: string,
  writer: FileWriter,
): ChunkResult {
  const result: ChunkResult = { stories: [], files: [], missing: [] };
  const metas: EntryMeta[] = [];
  const declared: DeclaredModule[] = [];
  for (const e of rows) {
    const compiled = compiler.compile(e);
    if (!compiled) continue;
    result.missing.push(...compiled.missing);
    result.stories.push([e.id, compiled.state]);
    metas.push(...compiled.metas);
    declared.push({ id: e.id, langs: compiler.languages, component: compiled.state.component });
    writer.put(rawModulePath(e.id), compiled.raw);
    writer.put(storyModulePath(e.id), compiled.source);
  }
  for (const [rel, text] of [...chunkFiles(b, metas, declared, prefix), ...viewChunkFiles(b, metas)]) {
    result.files.push([rel, fileDigest(text)]);
    writer.put(rel, text);
  }
  return result;
}

/**
 * The raw module of a story: the default language whole, each other language
 * as its overlay over it (see `overlayModuleSource`), so the module is about
 * the size of the record. The default language and what each translation
 * sets in the content are the record's text where it is at hand (`text`, as
 * sync wrote it, indented): serializing them again cost about a tenth of
 * compiling a story; minified, a bundle has the same bytes either way. A
 * story with a `__proto__` key anywhere, or an overlay replacing content with
 * none, is written out whole per language (`materialized`).
 */
export function rawModuleSource(
  version: StoryVersion,
  languages: readonly string[],
  /** Each language's export and its story, in the order of `languages`. */
  materialized: ReadonlyArray<readonly [string, Story]>,
  /** The text of the record `version` was parsed from, and which of its versions it is, if at hand. */
  text?: { record: string; version: View },
): string {
  const layout = text && versionLayout(text.record, text.version);
  const storyText = layout?.story;
  const overlays: Parameters<typeof overlayModuleSource>[1][number][] = [];
  for (const [k, lang] of languages.entries()) {
    if (lang === DEFAULT_LANG) continue;
    const translated = overlayIn(version, lang);
    const overlay = translated ?? untranslated(version.story, lang);
    const { content, $replace_content: replace, ...top } = overlay as LanguageOverlay & { $replace_content?: boolean };
    if (replace && content === undefined) return exportsSource(materialized);
    // What the language sets in the content, as the record has it (a language the record has no overlay for sets nothing).
    const contentTexts =
      translated && text && layout
        ? overlayContentTexts(text.record, text.version, lang, content, Boolean(replace), layout)
        : undefined;
    overlays.push([materialized[k]![0], { top, lang, content, replace: Boolean(replace), contentTexts }]);
  }
  return overlayModuleSource(version.story, overlays, '../', storyText) ?? exportsSource(materialized);
}

/**
 * Resolves one story: the pure resolver runs over a synchronous lookup that
 * loads each target the first time the resolver asks for it (targets of
 * targets too, up to the depth), and keeps what this story loaded apart from
 * the caches shared by all stories (so that none of it is evicted meanwhile).
 */
function resolveWith(
  config: StorySetup['resolve'],
  lookup: TargetLookup,
  story: Story,
  records: RecordCache,
  memo: ScanMemo,
): { result: ResolveResult; loaded: ReadonlyMap<string, Story | undefined> } {
  const loaded = new Map<string, Story | undefined>();
  const byUuid = (uuid: string): Story | undefined => {
    if (uuid === story.uuid) return story;
    if (loaded.has(uuid)) return loaded.get(uuid);
    const target = lookup.load(uuid);
    loaded.set(uuid, target);
    return target;
  };
  const resolver = createResolver(
    config,
    {
      byUuid,
      byId: (id) => {
        if (id === story.id) return story;
        const uuid = records.uuidOf(id);
        return uuid === undefined ? undefined : byUuid(uuid);
      },
      linkRecord: lookup.linkRecord,
      // Whether a link target has a published version: the index says when the snapshot holds the
      // published view; else the target's own fields do.
      published: (target) => (config.publishedView ? records.row(target.id)?.published : undefined),
    },
    memo,
  );
  return { result: resolver.resolve(story), loaded };
}

/** Writes generated files, making their directories once. */
export class FileWriter {
  readonly #out: string;
  readonly #made = new Set<string>();

  constructor(out: string) {
    this.#out = out;
  }

  /**
   * Synchronous: the files are small and land in the page cache; a write on
   * the thread pool costs more in bookkeeping than it saves.
   */
  put(rel: string, text: string): void {
    // A path the compiler made (`raw/<id>.js`, `chunks/...`): its directory is made once, and it is
    // joined to the output directory as it is (every file system API takes `/`).
    const slash = rel.lastIndexOf('/');
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    const file = `${this.#out}${path.sep}${rel}`;
    try {
      if (!this.#made.has(dir)) {
        mkdirSync(path.join(this.#out, dir), { recursive: true });
        this.#made.add(dir);
      }
      writeFileSync(file, text);
    } catch (err) {
      // A failed write's own message may name no file (`ENOSPC: no space left on device, write`).
      throw new Error(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
}
