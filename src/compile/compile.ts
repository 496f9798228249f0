/**
 * `content-sync compile`: from a snapshot to the TypeScript pages import.
 *
 * Two modules per story: `raw/<id>.js`, the story as the snapshot has it
 * (each language an export), and `stories/<id>.js`, the resolved story, which
 * imports the raw modules of the story and of what it embeds and spells out
 * only what resolution changed. Then an index of metadata with lazy loaders
 * and lookups, datasources, tags, backlinks, and the types inferred from
 * every story. The index, its declarations and the backlinks are split into
 * chunks (see `chunkCount`); stories are compiled chunk by chunk and read one
 * at a time (relation targets embedded from what the index says of them, link
 * targets read through small caches), so memory stays bounded. A full compile
 * of many stories spreads the chunks over threads.
 *
 * Incremental: a state file remembers each story's record digest, what its
 * module references, which modules exist and the digest of every other file
 * written. A compile after a sync compiles again the stories whose records
 * changed and the stories that embed them (their type observations are taken
 * out first, from the modules the last compile wrote), then the chunks they
 * belong to and the small shared modules; a file whose bytes would not change
 * is not touched (bytes and mtime stay).
 */
import { promises as fs, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Story } from '../api/index.js';
import { Tag } from '../api/resources.js';
// From the modules themselves, not the packages' indexes: a compile loads no more than it uses.
import { DEFAULT_LANG, FILES, INDEX_FILES, DatasourceRecord as DatasourceRecordSchema, type DatasourceRecord, type Manifest } from '../snapshot/format.js';
import { sha256 } from '../snapshot/json.js';
import { fileStamp, readJsonFile, readManifest } from '../snapshot/read.js';
import { indexRowsOfLayout, parseIndexRowsText } from '../snapshot/index-rows.js';
import { rememberedState } from '../snapshot/state.js';
import { indexRowOf, scanIndexRows, type IndexRow } from '../snapshot/stories-index.js';
import { missingReport, type LinksMode } from './resolve/index.js';
import { TypeInferrer, emitTypes } from './types/index.js';
import {
  CHUNKS,
  GENERATED_NAMES,
  backlinksChunk,
  backlinksDeclaration,
  backlinksModule,
  bucketOfId,
  chunkMembers,
  bucketOfUuid,
  chunkCount,
  chunkFiles,
  datasourcesDeclaration,
  datasourcesModule,
  exportName,
  indexDeclaration,
  indexModule,
  moduleId,
  validMetas,
  storiesDeclaration,
  rawModulePath,
  storyModulePath,
  tagsDeclaration,
  tagsModule,
  type DeclaredModule,
  type EntryMeta,
} from './emit.js';
import { RUNTIME_FILE, RUNTIME_SOURCE, evaluateModule } from './serialize.js';
import { BacklinkGatherer } from './backlinks.js';
import { CompileWorkers, compileInThreads, defaultThreads } from './parallel.js';
import {
  DamagedSnapshotError,
  FileWriter,
  StoryCompiler,
  compileFullChunk,
  fileDigest,
  parseSnapshotJson,
  positionOfId,
  readSnapshotFile,
  recordsOf,
  sortedById,
  visibleVersion,
  type ChunkResult,
  type MissingIn,
  type StorySetup,
  type StoryState,
} from './story.js';

export interface CompileOptions {
  snapshot: string;
  out: string;
  view?: 'published' | 'draft';
  resolveRelations?: readonly string[];
  detectRelations?: boolean;
  resolveLinks?: LinksMode;
  depth?: number;
  /** A component schema export merged into the inferred types. */
  schema?: unknown;
  /** Regenerate everything, ignoring the state of the last compile. */
  full?: boolean;
  /** Import specifier prefix of the story modules in the declarations (default `content:`, the Vite plugin's). */
  specifierPrefix?: string;
  /** About how many stories share a chunk of the index and backlinks (default 256). */
  chunkSize?: number;
  /**
   * Threads of a full compile, the calling one included (default: one per core from
   * 2,000 stories on, at most 8; 1 compiles in the calling thread alone). Incremental
   * compiles stay in the calling thread.
   */
  threads?: number;
  /** Called as stories are compiled: how many so far, of how many to compile (at most every chunk). */
  onProgress?: (compiled: number, total: number) => void;
}

export interface CompileResult {
  mode: 'full' | 'incremental';
  stories: number;
  modules: number;
  /** Stories compiled this time (the others' modules were kept without reading their records). */
  compiled: number;
  written: string[];
  deleted: string[];
  warnings: string[];
  durationMs: number;
}

const STATE_FILE = '.content-sync-compile.json';
const STATE_VERSION = 3;
/** What the state notes of a story module (its bytes are compared when it is compiled again). */
const STORY_MODULE = 'm';

interface State {
  v: number;
  fingerprint: string;
  buckets: number;
  /** Digests of the snapshot's datasources and tags when compiled. */
  snapshotDigests?: { datasources?: string | undefined; tags?: string | undefined };
  stories: Map<number, StoryState>;
  /** The stories that have a module (`stories/<id>.js`). */
  modules: Set<number>;
  /** Digest of every other generated file, by relative path. */
  files: Record<string, string>;
  /** Type inference counts over every compiled (resolved) story (absent while kept in memory). */
  types: unknown;
}

/** The state file: columns, uuids referenced by their position, so reading it back is cheap. */
interface StoredState {
  v: number;
  fingerprint: string;
  buckets: number;
  snapshotDigests?: State['snapshotDigests'];
  components: string[];
  ids: number[];
  digests: string[];
  uuids: string[];
  component: number[];
  /** References: a number is a position in `uuids`, a string a uuid outside the snapshot. */
  refs: Array<Array<number | string>>;
  /** Which of each story's references it only imports: positions in its `refs`. */
  imports: number[][];
  /** Whether each story has a module ('' when it has none). */
  modules: string[];
  /** Digests of the other files. */
  files: Record<string, string>;
  types: unknown;
}

/** A story's references as the state file holds them (see StoredState): positions, and its imports' positions among them. */
type StoredRefs = [refs: Array<number | string>, imports: number[]];

/** `positions`: where each of the story's references is in the state's uuids (undefined: outside them). */
function storedRefs(s: StoryState, positions: ReadonlyArray<number | undefined>): StoredRefs {
  // Both lists are sorted, the imports a subset: found walking the references once.
  let k = 0;
  return [
    s.references.map((u, i) => positions[i] ?? u),
    s.imports.map((u) => {
      while (k < s.references.length && s.references[k] !== u) k++;
      return k < s.references.length ? k : s.references.indexOf(u);
    }),
  ];
}

/** A story's stored references as JSON: its `refs` and its `imports`. */
type EncodedRefs = [refs: string, imports: string];

const encodeRefs = ([refs, imports]: StoredRefs): EncodedRefs => [JSON.stringify(refs), JSON.stringify(imports)];

/**
 * The state file's text. `encoded`: the stored references of every story as JSON, in the order
 * of their ids, worked out beforehand (a full compile's, while its chunks were compiled, rather
 * than all of them here, on one core), and the index they were worked out in, whose rows are the
 * state's stories; without it they are encoded here.
 */
function stateText(state: State, types: unknown, encoded?: { refs: readonly string[]; imports: readonly string[]; index: readonly IndexRow[] }): string {
  // The stories in the order of their ids: the index's when it is theirs (sorted by id, as sync writes it).
  const inIndex = encoded && sortedById(encoded.index);
  const ids = inIndex ? encoded.index.map((e) => e.id) : Array.from(Float64Array.from(state.stories.keys()).sort());
  const uuids = inIndex ? encoded.index.map((e) => e.uuid) : ids.map((id) => state.stories.get(id)!.uuid);
  let position: Map<string, number> | undefined;
  const positionOf = (u: string): number | undefined => (position ??= new Map(uuids.map((uuid, i) => [uuid, i]))).get(u);
  // A story read from the last state file keeps its stored references when they index the same uuids (one table for all).
  const tables = new Map<readonly string[], boolean>();
  const sameTable = (table: readonly string[]): boolean => {
    let same = tables.get(table);
    if (same === undefined) tables.set(table, (same = table.length === uuids.length && table.every((u, k) => u === uuids[k])));
    return same;
  };
  const components: string[] = [];
  const componentAt = new Map<string, number>();
  const files = { ...state.files };
  const stored: Omit<StoredState, 'refs' | 'imports'> = {
    v: state.v,
    fingerprint: state.fingerprint,
    buckets: state.buckets,
    ...(state.snapshotDigests ? { snapshotDigests: state.snapshotDigests } : {}),
    components,
    ids,
    digests: [],
    uuids,
    component: [],
    modules: [],
    files,
    types,
  };
  const refs: string[] = [];
  const imports: string[] = [];
  for (const [at, id] of ids.entries()) {
    const s = state.stories.get(id)!;
    let c = componentAt.get(s.component);
    if (c === undefined) {
      c = components.length;
      components.push(s.component);
      componentAt.set(s.component, c);
    }
    stored.digests.push(s.digest);
    stored.component.push(c);
    const [r, i] = encoded
      ? [encoded.refs[at]!, encoded.imports[at]!]
      : ((s instanceof StoredStory ? s.encodedIn(uuids, sameTable) : undefined) ?? encodeRefs(storedRefs(s, s.references.map(positionOf))));
    refs.push(r);
    imports.push(i);
    stored.modules.push(state.modules.has(id) ? STORY_MODULE : '');
  }
  // The references from their texts, then the rest (whose first character opens the object).
  return `{"refs":[${refs.join(',')}],"imports":[${imports.join(',')}],${JSON.stringify(stored).slice(1)}`;
}

/**
 * A story of a state file. Its references are decoded from the stored positions when first asked
 * for: an incremental compile asks for those of the few stories that changed, and learns which
 * stories a change reaches from the positions (refersToAny), so most are never decoded.
 */
class StoredStory implements StoryState {
  #references: string[] | undefined;
  #imports: string[] | undefined;
  constructor(
    readonly digest: string,
    readonly uuid: string,
    readonly component: string,
    /** As stored: positions in `uuids`, or uuids outside them. */
    private readonly refs: ReadonlyArray<number | string>,
    /** The imports' positions in `refs`. */
    private readonly importAt: readonly number[],
    private readonly uuids: readonly string[],
  ) {}

  get references(): string[] {
    return (this.#references ??= this.refs.map((r) => (typeof r === 'number' ? this.uuids[r]! : r)));
  }

  get imports(): string[] {
    return (this.#imports ??= this.importAt.map((k) => this.references[k]!));
  }

  /** Its stored references as the state file holds them, when `uuids` is the table they index. */
  encodedIn(uuids: readonly string[], same: (table: readonly string[]) => boolean): EncodedRefs | undefined {
    return this.uuids === uuids || same(this.uuids) ? [JSON.stringify(this.refs), JSON.stringify(this.importAt)] : undefined;
  }

  /** refersToAny() without decoding the references. */
  refersToAny(frontier: ReadonlySet<string>, reshaped: ReadonlySet<string>): boolean {
    for (let k = 0; k < this.refs.length; k++) {
      const r = this.refs[k]!;
      const u = typeof r === 'number' ? this.uuids[r]! : r;
      if (frontier.has(u) && (reshaped.has(u) || !this.importAt.includes(k))) return true;
    }
    return false;
  }
}

/**
 * Whether a story refers to a uuid of `frontier` so that it changes with it: embeds it or points
 * at it, or only imports it but it left the snapshot or changed content type (`reshaped`).
 */
function refersToAny(s: StoryState, frontier: ReadonlySet<string>, reshaped: ReadonlySet<string>): boolean {
  if (s instanceof StoredStory) return s.refersToAny(frontier, reshaped);
  return s.references.some((u) => frontier.has(u) && (reshaped.has(u) || !s.imports.includes(u)));
}

/** The state of a state file, or undefined when it is not one this version reads. */
function decodeState(raw: unknown): State | undefined {
  const s = raw as StoredState | undefined;
  if (!s || typeof s !== 'object' || s.v !== STATE_VERSION) return undefined;
  const { ids, digests, uuids, component, components, refs, modules, imports } = s;
  const arrays = [ids, digests, uuids, component, refs, modules, imports];
  if (!arrays.every(Array.isArray) || !arrays.every((a) => a.length === ids.length) || !Array.isArray(components)) {
    return undefined;
  }
  if (!s.files || typeof s.files !== 'object') return undefined;
  const stories: State['stories'] = new Map();
  const files: Record<string, string> = { ...s.files };
  const withModule = new Set<number>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (!Array.isArray(refs[i]) || !Array.isArray(imports[i])) return undefined;
    stories.set(id, new StoredStory(digests[i]!, uuids[i]!, components[component[i]!]!, refs[i]!, imports[i]!, uuids));
    if (modules[i]) withModule.add(id);
  }
  return { v: s.v, fingerprint: s.fingerprint, buckets: s.buckets, snapshotDigests: s.snapshotDigests, stories, modules: withModule, files, types: s.types };
}

/** The last state each output directory was compiled to by this process (the dev server compiles often). */
const remembered = new Map<string, { state: State; inferrer: TypeInferrer; stamp: string }>();
const pendingWrites = new Map<string, Promise<void>>();

/** Waits until the state of every compile of this process is on disk. */
export async function settled(): Promise<void> {
  await Promise.all([...pendingWrites.values()]);
}

/**
 * The manifest of a snapshot and a reader of its story index: from memory
 * when this process synced it last, else from disk (finishing a transaction a
 * killed writer left).
 */
async function openSnapshot(snapshot: string): Promise<{ manifest: Manifest; readIndex: () => IndexRow[] }> {
  const mem = await rememberedState(snapshot);
  if (mem) {
    // Written by this process: where each entry sits in the index is known, so links read entries as from disk.
    if (mem.index) {
      const index = indexRowsOfLayout(mem.index);
      return { manifest: mem.manifest, readIndex: () => index };
    }
    const index: IndexRow[] = [];
    for (const e of mem.stories.values()) index.push({ id: e.id, uuid: e.uuid, digest: e.digest, component: e.component, published: e.published });
    return { manifest: mem.manifest, readIndex: () => index.sort((a, b) => a.id - b.id) };
  }
  const manifest = await readManifest(snapshot).catch(() => undefined);
  if (!manifest) throw new Error(`${snapshot} holds no snapshot (no readable manifest.json); run \`content-sync sync\` first`);
  const readIndex = (): IndexRow[] => {
    const unreadable = `${snapshot} has no readable ${INDEX_FILES.stories}; it was not written by \`content-sync sync\` (sync it again)`;
    // The rows sync writes beside the index, when they describe the index the manifest names, as large as it is.
    const digest = (manifest.digests as Record<string, string> | undefined)?.stories;
    if (digest) {
      try {
        const bytes = statSync(path.join(snapshot, INDEX_FILES.stories)).size;
        const rows = parseIndexRowsText(readFileSync(path.join(snapshot, INDEX_FILES.storyRows), 'utf8'), { digest, bytes });
        if (rows) return rows;
      } catch {
        // No rows file (an older sync), or no index: read below.
      }
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(snapshot, INDEX_FILES.stories));
    } catch {
      throw new Error(unreadable);
    }
    // The index as sync writes it is read off its lines; anything else is parsed.
    const rows = scanIndexRows(bytes.toString('latin1'), bytes) ?? parseIndexRows(bytes.toString('utf8'));
    if (!rows) throw new Error(unreadable);
    return rows.sort((a, b) => a.id - b.id);
  };
  return { manifest, readIndex };
}

/**
 * `paths` and the two modules of each story of `ids`, in the order sort() gives strings. The
 * modules' paths (nearly all of a full compile's) are put in that order from the ids sorted as
 * numbers, which is the order of their paths when the ids have as many digits (else sorted).
 */
export function sortedWithModules(paths: string[], ids: Iterable<number>): string[] {
  const sorted = Float64Array.from(ids).sort();
  const raw = Array.from(sorted, rawModulePath);
  const modules = Array.from(sorted, storyModulePath);
  if (sorted.length > 1 && String(sorted[0]).length !== String(sorted[sorted.length - 1]).length) {
    raw.sort();
    modules.sort();
  }
  return mergeSorted(mergeSorted(paths.sort(), raw), modules);
}

/** Two sorted lists as one. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! <= b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Inserts `value` where it keeps `list` sorted (as sort() orders strings). */
function insertSorted(list: string[], value: string): void {
  let lo = 0;
  let hi = list.length;
  if (hi === 0 || list[hi - 1]! < value) {
    list.push(value);
    return;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, value);
}

function parseIndexRows(text: string): IndexRow[] | undefined {
  try {
    const raw = JSON.parse(text) as unknown;
    if (!Array.isArray(raw)) return undefined;
    const rows: IndexRow[] = [];
    for (const e of raw as Array<Record<string, unknown>>) {
      const row = indexRowOf(e);
      if (!row) return undefined;
      rows.push(row);
    }
    return rows;
  } catch {
    return undefined;
  }
}

/** The data of a generated chunk (`export default <json>;`) if it is still as the last compile wrote it. */
function readJsonChunk(out: string, rel: string, digests: Record<string, string>): unknown {
  if (!digests[rel]) return undefined;
  let text: string;
  try {
    text = readFileSync(path.join(out, rel), 'utf8');
  } catch {
    return undefined;
  }
  if (fileDigest(text) !== digests[rel]) return undefined;
  const start = text.indexOf('export default ');
  const end = text.lastIndexOf(';');
  if (start < 0 || end < start) return undefined;
  try {
    return JSON.parse(text.slice(start + 'export default '.length, end));
  } catch {
    return undefined;
  }
}

export async function compile(options: CompileOptions): Promise<CompileResult> {
  const started = performance.now();
  const snapshot = path.resolve(options.snapshot);
  const out = path.resolve(options.out);
  const { manifest, readIndex } = await openSnapshot(snapshot);
  const view = options.view ?? (manifest.views.includes('published') ? 'published' : 'draft');
  const languages = manifest.languages;
  const prefix = options.specifierPrefix ?? 'content:';
  const setup: StorySetup = {
    snapshot,
    view,
    languages,
    resolve: {
      ...(options.resolveRelations ? { relations: options.resolveRelations } : {}),
      detectRelations: options.detectRelations ?? false,
      ...(options.resolveLinks ? { links: options.resolveLinks } : {}),
      depth: options.depth ?? 1,
    },
  };
  const stateFile = path.join(out, STATE_FILE);
  await pendingWrites.get(stateFile);
  const stamp = await fileStamp(stateFile);
  // Without a state to resume from (or with --full) the compile is a full one: when it will run in
  // threads, its workers start now and load their modules while this thread reads the index.
  const count = manifest.counts.stories;
  const threadsFor = (stories: number) => Math.max(1, Math.floor(options.threads ?? defaultThreads(stories)));
  const workerInput = { setup, out, prefix, relations: options.resolveRelations, schema: options.schema };
  const pool =
    (options.full || stamp === undefined) && count !== undefined && threadsFor(count) > 1
      ? new CompileWorkers(workerInput, threadsFor(count) - 1)
      : undefined;
  try {
    return await compileIndex(options, { started, snapshot, out, manifest, index: readIndex(), setup, stateFile, stamp, prefix, threadsFor, workerInput, pool });
  } finally {
    // Workers the compile did not use (or that a failure left).
    await pool?.terminate();
  }
}

/** What compile() learned before the index was read, and the index. */
interface Opened {
  started: number;
  snapshot: string;
  out: string;
  manifest: Manifest;
  index: IndexRow[];
  setup: StorySetup;
  stateFile: string;
  stamp: string | undefined;
  prefix: string;
  threadsFor: (stories: number) => number;
  /** What the compile's worker threads are started with. */
  workerInput: ConstructorParameters<typeof CompileWorkers>[0];
  /** Workers started before the index was read, if any. */
  pool: CompileWorkers | undefined;
}

async function compileIndex(options: CompileOptions, opened: Opened): Promise<CompileResult> {
  const { started, snapshot, out, manifest, index, setup, stateFile, stamp, prefix } = opened;
  const { view, languages } = setup;
  const fingerprint = sha256(
    JSON.stringify({
      view,
      languages,
      r: options.resolveRelations ?? [],
      d: options.detectRelations ?? false,
      l: options.resolveLinks ?? null,
      depth: options.depth ?? 1,
      schema: options.schema ?? null,
      prefix,
      v: STATE_VERSION,
    }),
  );
  const buckets = chunkCount(index.length, options.chunkSize);

  // The last compile's state: resumed from when it applies, and in any case the list of files it wrote
  // (a full compile, or one with other options, still removes the files it no longer writes).
  const mem = remembered.get(stateFile);
  remembered.delete(stateFile);
  let previous: State | undefined;
  if (mem && stamp !== undefined && mem.stamp === stamp) {
    // Compiled by this process last: its state is still in memory, no need to parse it.
    previous = mem.state;
  } else {
    try {
      previous = decodeState(await readJsonFile(stateFile));
    } catch {
      previous = undefined;
    }
  }
  // Without the last compile's list of files (no state yet, one deleted or unreadable, or a compile that
  // died before writing it), the modules and chunks in the directory stand for it: the files of stories
  // gone since are removed all the same. Listed now, before this compile adds its own.
  const leftovers = previous?.files && typeof previous.files === 'object' ? undefined : generatedFiles(out);
  let state: State | undefined =
    !options.full &&
    previous?.v === STATE_VERSION &&
    previous.fingerprint === fingerprint &&
    previous.buckets === buckets &&
    previous.files &&
    typeof previous.files === 'object'
      ? previous
      : undefined;

  const byUuid = new Map<string, number>();
  for (const e of index) byUuid.set(e.uuid, e.id);

  const written: string[] = [];
  const files: Record<string, string> = {};
  const oldFiles = state?.files ?? {};
  const oldModules = state?.modules ?? new Set<number>();
  /**
   * The stories that have modules after this compile. An incremental compile changes the last
   * compile's set in place (as it does its stories, below): kept stories, nearly all, cost nothing.
   */
  let withModules = new Set<number>();
  /** The stories whose modules an incremental compile removed from the last compile's set. */
  const droppedModules: number[] = [];
  const writer = new FileWriter(out);
  /** Chunks of the last compile found changed on disk since (or unreadable): written again even if their bytes are due unchanged. */
  const altered = new Set<string>();
  /** The data of a chunk of the last compile, as it wrote it (see readJsonChunk); noted as altered when it is not. */
  const readChunk = (rel: string): unknown => {
    const data = readJsonChunk(out, rel, oldFiles);
    if (data === undefined && oldFiles[rel] !== undefined) altered.add(rel);
    return data;
  };
  /** Writes a file whose digest the state keeps (the chunks and shared files, read back or compared later). */
  const write = (rel: string, text: string): void => {
    const digest = fileDigest(text);
    files[rel] = digest;
    if (oldFiles[rel] === digest && !altered.has(rel)) return;
    put(rel, text);
  };
  /** Raw modules this compile replaced, as they were: previous story modules import them (see forget). */
  const replacedRaw = new Map<string, string>();
  /** Writes a story's two modules: the state only notes they exist; an unchanged one is told by its bytes. */
  const writeStory = (id: number, compiled: { source: string; raw: string }): void => {
    const had = oldModules.has(id);
    withModules.add(id);
    for (const [rel, text, isRaw] of [
      [rawModulePath(id), compiled.raw, true],
      [storyModulePath(id), compiled.source, false],
    ] as const) {
      if (had) {
        try {
          const before = readFileSync(path.join(out, rel), 'utf8');
          if (before === text) continue;
          if (isRaw) replacedRaw.set(rel, before);
        } catch {
          // Gone: write it.
        }
      }
      put(rel, text);
    }
  };
  const put = (rel: string, text: string): void => {
    written.push(rel);
    writer.put(rel, text);
  };
  /** An unchanged file of the last compile, kept as it is. */
  const keep = (rel: string): boolean => {
    const digest = oldFiles[rel];
    if (digest === undefined) return false;
    files[rel] = digest;
    return true;
  };

  // Which stories need their modules regenerated (without a state: all of them, see below).
  /** The stories after this compile: an incremental compile's are the last compile's, changed in place. */
  let newStories: State['stories'] = new Map();
  /** What an incremental compile replaced or removed in them, and the stories it added. */
  const replaced = new Map<number, StoryState>();
  const added: number[] = [];
  /** Sets a story's state, noting what it replaces. */
  const setStory = (id: number, s: StoryState): void => {
    const old = newStories.get(id);
    if (old === s) return;
    if (!old) added.push(id);
    else if (!replaced.has(id)) replaced.set(id, old);
    newStories.set(id, s);
  };
  /** A story without modules any more (gone, or compiled to nothing). */
  const dropStory = (id: number): void => {
    const old = newStories.get(id);
    if (old && !replaced.has(id)) replaced.set(id, old);
    newStories.delete(id);
    if (withModules.delete(id)) droppedModules.push(id);
  };
  const dirty = new Set<number>();
  const removed: Array<[number, StoryState]> = [];
  const dirtyUuids = new Set<string>();
  if (state) {
    let known = 0;
    for (const e of index) {
      const old = state.stories.get(e.id);
      if (old) known++;
      if (!old || old.digest !== e.digest) dirty.add(e.id);
    }
    // Stories of the state that the index lacks (none when it holds as many of them as the state has).
    if (known < state.stories.size) {
      const present = new Set(index.map((e) => e.id));
      for (const [id, s] of state.stories) if (!present.has(id)) removed.push([id, s]);
    }
    for (const [, s] of removed) dirtyUuids.add(s.uuid);
    for (const e of index) if (dirty.has(e.id)) dirtyUuids.add(e.uuid);
  }
  // Stories that embed or point at a changed story change too (references are transitive up to the
  // depth), except those that only import it: it reaches them through the import, unless it left the
  // snapshot or changed content type.
  const records = recordsOf(snapshot, index);
  const reshaped = new Set<string>(removed.map(([, s]) => s.uuid));
  if (state) {
    for (const e of index) {
      if (!dirty.has(e.id)) continue;
      const old = state.stories.get(e.id);
      const now = visibleVersion(records.get(e.id), view);
      if (!old || !now || now.story.content.component !== old.component) reshaped.add(e.uuid);
    }
  }
  /** The last compile's backlinks chunks, as it wrote them (undefined: changed or unreadable), each read once. */
  const previousBacklinks = new Map<number, Record<string, unknown> | undefined>();
  const backlinksChunkOf = (b: number): Record<string, unknown> | undefined => {
    if (!previousBacklinks.has(b)) {
      const lists = readChunk(CHUNKS.backlinks(b));
      previousBacklinks.set(b, lists && typeof lists === 'object' && !Array.isArray(lists) ? (lists as Record<string, unknown>) : undefined);
    }
    return previousBacklinks.get(b);
  };
  /**
   * The stories that referred to a uuid of `uuids` when the last compile wrote its backlinks, by id
   * (those still in the index); undefined when a chunk of them cannot be read back.
   */
  const referrersOf = (uuids: ReadonlySet<string>): number[] | undefined => {
    const ids: number[] = [];
    for (const u of uuids) {
      const lists = backlinksChunkOf(bucketOfUuid(u, buckets));
      if (!lists) return undefined;
      const list = Object.hasOwn(lists, u) ? lists[u] : [];
      if (!Array.isArray(list)) return undefined;
      for (const r of list) {
        const id = byUuid.get(r as string);
        if (id !== undefined) ids.push(id);
      }
    }
    return ids;
  };
  const affected = new Set<number>(dirty);
  if (state) {
    const prev = state;
    let frontier = new Set(dirtyUuids);
    for (let level = 0; level < Math.max(1, options.depth ?? 1) && frontier.size; level++) {
      const next = new Set<string>();
      const reach = (id: number, s: StoryState): void => {
        if (affected.has(id) || !refersToAny(s, frontier, reshaped)) return;
        affected.add(id);
        next.add(s.uuid);
      };
      // The stories that referred to the frontier are those its backlinks list (else every story is asked).
      const candidates = referrersOf(frontier);
      if (candidates) {
        for (const id of candidates) {
          const s = prev.stories.get(id);
          if (s) reach(id, s);
        }
      } else {
        for (const [id, s] of prev.stories) reach(id, s);
      }
      frontier = next;
    }
  }
  const snapshotDigests = {
    datasources: (manifest.digests as Record<string, string> | undefined)?.datasources,
    tags: (manifest.digests as Record<string, string> | undefined)?.tags,
  };
  if (
    state &&
    dirty.size === 0 &&
    removed.length === 0 &&
    state.snapshotDigests?.datasources === snapshotDigests.datasources &&
    state.snapshotDigests?.tags === snapshotDigests.tags
  ) {
    // Nothing changed since the last compile: every file is as it should be.
    if (mem && previous === mem.state) remembered.set(stateFile, mem);
    return {
      mode: 'incremental',
      stories: index.length,
      modules: state.stories.size * languages.length,
      compiled: 0,
      written: [],
      deleted: [],
      warnings: [],
      durationMs: performance.now() - started,
    };
  }
  // Until this compile finishes, no state: an interrupted compile is followed by a full one.
  try {
    unlinkSync(stateFile);
  } catch {
    // None to remove.
  }

  const inferOptions = {
    ...(options.resolveRelations ? { relations: options.resolveRelations } : {}),
    storyUuids: byUuid,
    schema: options.schema,
  };
  let inferrer: TypeInferrer;
  try {
    inferrer = !state
      ? new TypeInferrer(inferOptions)
      : mem?.state === state
        ? mem.inferrer.withOptions(inferOptions)
        : TypeInferrer.fromState(state.types, inferOptions);
  } catch {
    // A state the inferrer cannot resume from: start over with every story.
    state = undefined;
    inferrer = new TypeInferrer(inferOptions);
  }
  const missing: MissingIn[] = [];
  const stories = new StoryCompiler(setup, byUuid, inferrer, records);
  let modules = 0;
  let compiled = 0;

  /** Takes a story's previous contribution out of the type counts, from its previous module. */
  const forget = (id: number): void => {
    const rel = storyModulePath(id);
    if (!oldModules.has(id)) return;
    try {
      // Evaluated from its text and the raw modules it imports as the last compile wrote them.
      const mod = readModule(rel) as Record<string, Story>;
      for (const lang of languages) {
        const story = mod[exportName(lang)];
        if (story) inferrer.remove(story);
      }
    } catch {
      throw new Error(`cannot read the previous module ${rel}; run a full compile (--full)`);
    }
  };
  const readModule = (rel: string): Record<string, unknown> => {
    const text = replacedRaw.get(rel) ?? readFileSync(path.join(out, rel), 'utf8');
    return evaluateModule(text, (from) => {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), from));
      if (!target.startsWith('raw/')) throw new Error(`unexpected import ${from}`);
      return readModule(target);
    });
  };
  // Stories that are gone leave the type counts (unless the counts start over: a full compile).
  if (state) for (const [id] of removed) forget(id);

  /** Compiles one story: its module, and its metadata in every language. */
  const compileStory = (e: IndexRow, old: StoryState | undefined): EntryMeta[] | undefined => {
    if (old) forget(e.id);
    const compiled = stories.compile(e);
    if (!compiled) {
      dropStory(e.id);
      return undefined;
    }
    missing.push(...compiled.missing);
    setStory(e.id, compiled.state);
    writeStory(e.id, compiled);
    return compiled.metas;
  };

  // Chunk by chunk.
  const members = chunkMembers(index, buckets);
  /** A full compile's stored references (see stateText), by position in the index. */
  const encoded = { refs: new Array<string>(state ? 0 : index.length), imports: new Array<string>(state ? 0 : index.length) };
  /** A full compile's backlinks, gathered as chunks finish (while the other threads still compile). */
  const gatherer = state ? undefined : new BacklinkGatherer(index.map((e) => e.uuid));
  // Link targets are read from the stories index, kept open until every chunk is compiled.
  try {
    if (!state) {
      // A full compile: every chunk compiled and written, in worker threads when there are many. What
      // this thread learns of each chunk is taken in as the chunk finishes (a worker's chunk while this
      // thread would otherwise wait for it); what shows the chunks' order (files, warnings), in order.
      const filesOf: Array<ChunkResult['files']> = [];
      const missingOf: Array<ChunkResult['missing']> = [];
      // Where each reference is in the index: where the state file will list it when every story of
      // the index has a module (see below); so the state's references are worked out here too.
      // (Mapped when the first chunk is in, not before the other threads are given their work.)
      let positionOfUuid: Map<string, number> | undefined;
      const indexPosition = (u: string): number | undefined => (positionOfUuid ??= new Map(index.map((e, at) => [e.uuid, at]))).get(u);
      const take = (b: number, r: ChunkResult): void => {
        for (const [id, s] of r.stories) {
          // A worker's result holds copies of the index's strings: the index's own are kept instead
          // (the copies die young, and what this thread holds to the end is less).
          const at = positionOfId(index, id)!;
          s.uuid = index[at]!.uuid;
          s.digest = index[at]!.digest;
          const positions = s.references.map(indexPosition);
          const stored = storedRefs(s, positions);
          s.references = s.references.map((u, k) => (positions[k] === undefined ? u : index[positions[k]!]!.uuid));
          s.imports = stored[1].map((k, j) => s.references[k] ?? s.imports[j]!);
          newStories.set(id, s);
          withModules.add(id);
          [encoded.refs[at], encoded.imports[at]] = encodeRefs(stored);
          s.references.forEach((u, k) => gatherer!.add(at, positions[k], u));
        }
        modules += r.stories.length * languages.length;
        compiled += members[b]!.length;
        filesOf[b] = r.files;
        missingOf[b] = r.missing;
        options.onProgress?.(compiled, index.length);
      };
      const threads = opened.threadsFor(index.length);
      if (threads > 1 && buckets > 1) {
        const pool = opened.pool ?? new CompileWorkers(opened.workerInput, 0);
        const parallel = await compileInThreads(
          pool,
          index,
          members,
          threads,
          (b, rows) => compileFullChunk(stories, b, rows, prefix, writer),
          (_done, b, r) => take(b, r),
        );
        for (const types of parallel.types) inferrer.merge(JSON.parse(types));
      } else {
        for (let b = 0; b < buckets; b++) take(b, compileFullChunk(stories, b, members[b]!, prefix, writer));
      }
      for (let b = 0; b < buckets; b++) {
        for (const [rel, digest] of filesOf[b]!) {
          files[rel] = digest;
          written.push(rel);
        }
        missing.push(...missingOf[b]!);
      }
    } else {
      // An incremental compile: a chunk none of whose stories changed is kept as it is. The last
      // compile's stories and set of modules become this one's: what changes is changed in them
      // (the state is not kept in memory while a compile runs: see `remembered`).
      const prev = state;
      newStories = prev.stories;
      withModules = oldModules;
      for (const [id] of removed) dropStory(id);
      const removedBuckets = new Set(removed.map(([id]) => bucketOfId(id, buckets)));
      for (let b = 0; b < buckets; b++) {
        const rows = members[b]!;
        // (Each story is changed only when its chunk is compiled: what the state held is still there for the others.)
        const touched = removedBuckets.has(b) || rows.some((e) => affected.has(e.id) || !prev.stories.has(e.id));
        if (!touched && [CHUNKS.entries(b), CHUNKS.entriesTypes(b), CHUNKS.stories(b)].every(keep)) {
          // Not one story of the chunk changed: their digests are the state's, their modules kept.
          modules += rows.length * languages.length;
          continue;
        }
        // The metadata of the chunk's unchanged stories, as the last compile wrote it.
        const kept = new Map<number, EntryMeta[]>();
        const previousMetas = readChunk(CHUNKS.entries(b));
        for (const m of (Array.isArray(previousMetas) ? validMetas(previousMetas) : undefined) ?? []) {
          (kept.get(m.id) ?? kept.set(m.id, []).get(m.id)!).push(m);
        }
        const metas: EntryMeta[] = [];
        const declared: DeclaredModule[] = [];
        for (const e of rows) {
          const old = prev.stories.get(e.id);
          const keptMetas = kept.get(e.id);
          let storyMetas: EntryMeta[] | undefined;
          if (old && !affected.has(e.id) && keptMetas && keptMetas.length === languages.length && oldModules.has(e.id)) {
            // Unchanged (its digest is the state's, or it would be affected): its module, metadata and
            // references stay as the state holds them.
            storyMetas = keptMetas;
          } else {
            storyMetas = compileStory(e, old);
            compiled++;
          }
          if (!storyMetas) continue;
          metas.push(...storyMetas);
          declared.push({ id: e.id, langs: languages, component: newStories.get(e.id)!.component });
          modules += languages.length;
        }
        for (const [rel, text] of chunkFiles(b, metas, declared, prefix)) write(rel, text);
      }
    }
  } finally {
    records.release();
  }

  /**
   * An incremental compile's backlinks: the chunks holding a target whose referrers changed are
   * patched (the lists of their other targets read back from them) and written again; without a
   * readable previous chunk, every list of the chunk is collected from the stories.
   */
  const patchedBacklinks = (): Array<Map<string, string[]> | undefined> => {
    const changedTargets = new Set<string>();
    /** The stories whose references may have changed (compiled again, or gone), by uuid. */
    const changedReferrers = new Set<string>();
    /** Those compiled again, as they refer now. */
    const referring: StoryState[] = [];
    // The stories this compile changed: those that left (gone from the index, or compiled to nothing,
    // like a story unpublished) refer no more, the others as they do now.
    const now = (id: number): void => {
      const s = newStories.get(id);
      if (!s) return;
      changedReferrers.add(s.uuid);
      referring.push(s);
      for (const u of s.references) changedTargets.add(u);
    };
    for (const [id, old] of replaced) {
      changedReferrers.add(old.uuid);
      for (const u of old.references) changedTargets.add(u);
      now(id);
    }
    for (const id of added) now(id);
    const backlinkBuckets = new Set<number>();
    for (const u of changedTargets) backlinkBuckets.add(bucketOfUuid(u, buckets));
    const backlinks: Array<Map<string, string[]> | undefined> = Array.from({ length: buckets }, () => undefined);
    /** Chunks without a readable previous version: every list collected from the stories. */
    const complete = new Set<number>();
    for (let b = 0; b < buckets; b++) {
      if (!backlinkBuckets.has(b) && keep(CHUNKS.backlinks(b))) continue;
      const previousLists = backlinksChunkOf(b);
      const lists = new Map<string, string[]>();
      if (previousLists) {
        // A changed target keeps the referrers that did not change (its list, sorted, without them).
        for (const [u, list] of Object.entries(previousLists)) {
          if (!changedTargets.has(u)) lists.set(u, list as string[]);
          else if (Array.isArray(list)) {
            const kept = list.filter((r) => !changedReferrers.has(r));
            if (kept.length) lists.set(u, kept);
          }
        }
      } else {
        complete.add(b);
      }
      backlinks[b] = lists;
    }
    // ... and gains those compiled again that refer to it now.
    for (const s of referring) {
      for (const u of s.references) {
        if (!changedTargets.has(u)) continue;
        const b = bucketOfUuid(u, buckets);
        if (complete.has(b)) continue;
        const lists = backlinks[b]!;
        const list = lists.get(u);
        if (list) insertSorted(list, s.uuid);
        else lists.set(u, [s.uuid]);
      }
    }
    if (complete.size) {
      for (const e of index) {
        const s = newStories.get(e.id);
        if (!s) continue;
        for (const u of s.references) {
          const b = bucketOfUuid(u, buckets);
          if (!complete.has(b)) continue;
          const lists = backlinks[b]!;
          const list = lists.get(u);
          if (list) list.push(e.uuid);
          else lists.set(u, [e.uuid]);
        }
      }
      for (const b of complete) for (const list of backlinks[b]!.values()) list.sort();
    }
    return backlinks;
  };
  // Backlinks, by target: after a full compile, every chunk, from the lists gathered as chunks finished.
  const backlinks = gatherer?.byChunk(buckets) ?? patchedBacklinks();
  backlinks.forEach((lists, b) => {
    if (lists) write(CHUNKS.backlinks(b), backlinksChunk(lists));
  });

  const datasources = readDatasources(snapshot);
  const tags = readTags(snapshot, view);
  let model = inferrer.model();
  if (model.undecided) {
    // Rare: removed stories took literal values the counts held while others were past the cap,
    // and what is left may be few enough to print as literals. Every story is observed again, as
    // a full compile does (nothing is written), so the types are those of a full compile.
    inferrer = new TypeInferrer(inferOptions);
    const observer = new StoryCompiler(setup, byUuid, inferrer, records);
    for (const e of index) observer.compile(e);
    model = inferrer.model();
  }
  const storyTypes = new Map<string, string>();
  for (const c of model.components) if (c.contentType && c.storyName) storyTypes.set(c.name, c.storyName);
  write('types.ts', emitTypes(model));
  write(RUNTIME_FILE, RUNTIME_SOURCE);
  write('stories.d.ts', storiesDeclaration(buckets));
  write('index.js', indexModule(buckets, languages));
  write('index.d.ts', indexDeclaration(buckets, storyTypes));
  write('datasources.js', datasourcesModule(datasources));
  write('datasources.d.ts', datasourcesDeclaration(datasources));
  write('tags.js', tagsModule(tags));
  write('tags.d.ts', tagsDeclaration(tags));
  write('backlinks.js', backlinksModule(buckets));
  write('backlinks.d.ts', backlinksDeclaration);

  // Files the last compile wrote that this one did not: stories that are gone, chunks of another layout.
  const deleted: string[] = [];
  const stale: string[] = [];
  if (previous?.files && typeof previous.files === 'object') for (const rel of Object.keys(previous.files)) if (!(rel in files)) stale.push(rel);
  // (An incremental compile changed the last compile's set of modules: it knows which it dropped.)
  const goneModules = previous?.modules === withModules ? droppedModules : [...(previous?.modules ?? [])].filter((id) => !withModules.has(id));
  for (const id of goneModules) stale.push(storyModulePath(id), rawModulePath(id));
  for (const rel of leftovers ?? []) {
    const id = moduleId(rel);
    if (id === undefined ? !(rel in files) : !withModules.has(id)) stale.push(rel);
  }
  for (const rel of stale) {
    if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) continue;
    deleted.push(rel);
    rmSync(path.join(out, rel), { force: true });
  }
  const newState: State = { v: STATE_VERSION, fingerprint, buckets, snapshotDigests, stories: newStories, modules: withModules, files, types: undefined };
  mkdirSync(out, { recursive: true });
  // The state file is written after this compile returns (the next compile waits for it); until
  // then none exists, so a process that dies first leaves a full compile to the next run.
  const writing = (async () => {
    await new Promise((r) => setImmediate(r));
    // The observations as they are held: sorted when read back (fromState), so not sorted here.
    // The positions worked out in the index (a full compile's) are those in the state when it lists every story of the index.
    const text = stateText(newState, inferrer.observations(), !state && newStories.size === index.length ? { ...encoded, index } : undefined);
    await fs.writeFile(stateFile, text);
    const stamped = await fileStamp(stateFile);
    if (stamped !== undefined) remembered.set(stateFile, { state: newState, inferrer, stamp: stamped });
  })().finally(() => pendingWrites.delete(stateFile));
  pendingWrites.set(stateFile, writing);
  const warning = missingReport(missing);
  return {
    mode: state ? 'incremental' : 'full',
    stories: index.length,
    modules,
    compiled,
    // A full compile wrote the two modules of every story that has them (listed here, in order).
    written: state ? written.sort() : sortedWithModules(written, withModules),
    deleted: deleted.sort(),
    warnings: warning ? [warning] : [],
    durationMs: performance.now() - started,
  };
}

/** The modules of stories and the chunks in an output directory, as paths relative to it (none when it does not exist). */
function generatedFiles(out: string): string[] {
  const found: string[] = [];
  for (const [dir, name] of GENERATED_NAMES) {
    let names: string[];
    try {
      names = readdirSync(path.join(out, dir));
    } catch {
      continue;
    }
    for (const n of names) if (name.test(n)) found.push(`${dir}/${n}`);
  }
  return found;
}

/** The datasource records of the snapshot, by id; none when sync wrote no datasources directory. */
function readDatasources(snapshot: string): DatasourceRecord[] {
  const dir = path.join(snapshot, FILES.datasources);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: DatasourceRecord[] = [];
  for (const n of names) {
    const rel = `${FILES.datasources}/${n}`;
    // A few files: parsed without the code zod would generate to parse many faster (see snapshot/read.ts).
    const checked = DatasourceRecordSchema.safeParse(readSnapshotJson(snapshot, rel), { jitless: true });
    if (!checked.success) throw DamagedSnapshotError.notA(snapshot, rel, 'a datasource record', checked.error);
    out.push(checked.data);
  }
  return out.sort((a, b) => a.datasource.id - b.datasource.id);
}

/** What sync writes in tags.json: the tags of each view it read. */
const TagsFile = z.object({ published: z.array(Tag).optional(), draft: z.array(Tag).optional() });

function readTags(snapshot: string, view: 'published' | 'draft'): Tag[] {
  const checked = TagsFile.safeParse(readSnapshotJson(snapshot, FILES.tags), { jitless: true });
  if (!checked.success) throw DamagedSnapshotError.notA(snapshot, FILES.tags, 'a tags file', checked.error);
  return checked.data[view] ?? checked.data.published ?? [];
}

/** A JSON file of the snapshot, parsed; a DamagedSnapshotError when it is missing or not JSON. */
const readSnapshotJson = (snapshot: string, rel: string): unknown => parseSnapshotJson(snapshot, rel, readSnapshotFile(snapshot, rel).toString('utf8'));

export { DEFAULT_LANG };
