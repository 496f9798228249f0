/**
 * The compile state: what the last compile of an output directory wrote and
 * learned (each story's record digest, what its modules reference, which
 * stories have modules, the digest of every other file, the type counts), in
 * the state file beside the modules, and in a `CompileCache` when a
 * long-lived host keeps it between compiles.
 */
import { promises as fs } from 'node:fs';
import type { IndexRow } from '../snapshot/stories-index.js';
import { fileStamp, readJsonFile } from '../snapshot/read.js';
import { sortedById, type LedgerEntry } from './story.js';
import type { TypeInferrer } from './types/index.js';

export const STATE_FILE = '.content-sync-compile.json';
export const STATE_VERSION = 4;
/** What the state notes of a story module (its bytes are compared when it is compiled again). */
const STORY_MODULE = 'm';

export interface CompileLedger {
  v: number;
  fingerprint: string;
  chunkTotal: number;
  /** Digests of the snapshot's datasources and tags when compiled. */
  snapshotDigests?: { datasources?: string | undefined; tags?: string | undefined };
  /** The languages compiled (in the fingerprint too): kept to say that they changed when a compile is full for it. */
  languages?: readonly string[] | undefined;
  stories: Map<number, LedgerEntry>;
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
  chunkTotal: number;
  snapshotDigests?: CompileLedger['snapshotDigests'];
  languages?: readonly string[];
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
export type StoredRefs = [refs: Array<number | string>, imports: number[]];

/** `positions`: where each of the story's references is in the state's uuids (undefined: outside them). */
export function storedRefs(s: LedgerEntry, positions: ReadonlyArray<number | undefined>): StoredRefs {
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

export const encodeRefs = ([refs, imports]: StoredRefs): EncodedRefs => [JSON.stringify(refs), JSON.stringify(imports)];

/**
 * The stored references of every story of an index as JSON, by position in it, worked out by a
 * full compile while its chunks are compiled (rather than all at the end, on one core).
 */
export interface EncodedIndex {
  refs: readonly string[];
  imports: readonly string[];
  /** The index they were worked out in, whose rows are the state's stories. */
  index: readonly IndexRow[];
}

/** The state file's text. `encoded`: the references worked out beforehand; without it they are encoded here. */
function stateText(state: CompileLedger, types: unknown, encoded?: EncodedIndex): string {
  // The stories in the order of their ids: the index's when it is theirs (sorted by id, as sync writes it).
  const inIndex = encoded && sortedById(encoded.index);
  const ids = inIndex ? encoded.index.map((e) => e.id) : Array.from(Float64Array.from(state.stories.keys()).sort());
  const uuids = inIndex ? encoded.index.map((e) => e.uuid) : ids.map((id) => state.stories.get(id)!.uuid);
  let position: Map<string, number> | undefined;
  const positionOf = (u: string): number | undefined =>
    (position ??= new Map(uuids.map((uuid, i) => [uuid, i]))).get(u);
  // A story read from the last state file keeps its stored references when they index the same uuids (one table for all).
  const tables = new Map<readonly string[], boolean>();
  const sameTable = (table: readonly string[]): boolean => {
    let same = tables.get(table);
    if (same === undefined)
      tables.set(table, (same = table.length === uuids.length && table.every((u, k) => u === uuids[k])));
    return same;
  };
  const components: string[] = [];
  const componentAt = new Map<string, number>();
  const files = { ...state.files };
  const stored: Omit<StoredState, 'refs' | 'imports'> = {
    v: state.v,
    fingerprint: state.fingerprint,
    chunkTotal: state.chunkTotal,
    ...(state.snapshotDigests ? { snapshotDigests: state.snapshotDigests } : {}),
    ...(state.languages ? { languages: state.languages } : {}),
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
      : ((s instanceof StoredStory ? s.encodedIn(uuids, sameTable) : undefined) ??
        encodeRefs(storedRefs(s, s.references.map(positionOf))));
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
class StoredStory implements LedgerEntry {
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
    return this.uuids === uuids || same(this.uuids)
      ? [JSON.stringify(this.refs), JSON.stringify(this.importAt)]
      : undefined;
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
export function refersToAny(s: LedgerEntry, frontier: ReadonlySet<string>, reshaped: ReadonlySet<string>): boolean {
  if (s instanceof StoredStory) return s.refersToAny(frontier, reshaped);
  return s.references.some((u) => frontier.has(u) && (reshaped.has(u) || !s.imports.includes(u)));
}

/** The state of a state file, or undefined when it is not one this version reads. */
function decodeState(raw: unknown): CompileLedger | undefined {
  const s = raw as StoredState | undefined;
  if (!s || typeof s !== 'object' || s.v !== STATE_VERSION) return undefined;
  const { ids, digests, uuids, component, components, refs, modules, imports } = s;
  const arrays = [ids, digests, uuids, component, refs, modules, imports];
  if (!arrays.every(Array.isArray) || !arrays.every((a) => a.length === ids.length) || !Array.isArray(components)) {
    return undefined;
  }
  if (!s.files || typeof s.files !== 'object') return undefined;
  const stories: CompileLedger['stories'] = new Map();
  const files: Record<string, string> = { ...s.files };
  const withModule = new Set<number>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (!Array.isArray(refs[i]) || !Array.isArray(imports[i])) return undefined;
    stories.set(id, new StoredStory(digests[i]!, uuids[i]!, components[component[i]!]!, refs[i]!, imports[i]!, uuids));
    if (modules[i]) withModule.add(id);
  }
  return {
    v: s.v,
    fingerprint: s.fingerprint,
    chunkTotal: s.chunkTotal,
    snapshotDigests: s.snapshotDigests,
    languages: Array.isArray(s.languages) ? s.languages : undefined,
    stories,
    modules: withModule,
    files,
    types: s.types,
  };
}

/** The last compile's state with the type inferrer it ended with, as a CompileCache keeps it. */
export interface LastCompile {
  state: CompileLedger;
  inferrer: TypeInferrer;
}

/**
 * The last state each output directory was compiled to, kept in memory by a host that compiles
 * often (the dev server): the next compile resumes from it without reading the state file back,
 * as long as the file is the one it wrote (same stamp). Owned by that host and dropped with it.
 */
export class CompileCache {
  readonly #last = new Map<string, LastCompile & { stamp: string }>();
  /** The stamp each state file had when a compile with this cache last ended (kept or not). */
  readonly #seen = new Map<string, string | undefined>();

  /** The state kept for `stateFile` if that file still has `stamp`; taken out (a compile changes it in place). */
  take(stateFile: string, stamp: string | undefined): LastCompile | undefined {
    const kept = this.#last.get(stateFile);
    this.#last.delete(stateFile);
    return kept && stamp !== undefined && kept.stamp === stamp ? kept : undefined;
  }

  /**
   * Whether another compile (another process's: a build of the project) wrote `stateFile` since
   * the last one with this cache: the files may then differ from what this host last compiled.
   */
  writtenElsewhere(stateFile: string, stamp: string | undefined): boolean {
    return this.#seen.has(stateFile) && this.#seen.get(stateFile) !== stamp;
  }

  /** A compile with this cache ended, leaving `stateFile` with `stamp`. */
  saw(stateFile: string, stamp: string | undefined): void {
    this.#seen.set(stateFile, stamp);
  }

  /** Keeps what a compile ended with, once its state file is on disk with `stamp`. */
  keep(stateFile: string, last: LastCompile, stamp: string): void {
    this.#last.set(stateFile, { ...last, stamp });
    this.saw(stateFile, stamp);
  }
}

/** The last compile's state: from the cache when it is the file on disk, else read from the file (undefined when there is none this version reads). */
export async function readState(
  stateFile: string,
  stamp: string | undefined,
  cache: CompileCache | undefined,
): Promise<{ state: CompileLedger | undefined; kept: LastCompile | undefined }> {
  const kept = cache?.take(stateFile, stamp);
  if (kept) return { state: kept.state, kept };
  try {
    return { state: decodeState(await readJsonFile(stateFile)), kept: undefined };
  } catch {
    return { state: undefined, kept: undefined };
  }
}

/** Writes the state file, and keeps the state in `cache` once it is on disk. */
export async function writeState(
  stateFile: string,
  state: CompileLedger,
  inferrer: TypeInferrer,
  cache: CompileCache | undefined,
  encoded?: EncodedIndex,
): Promise<void> {
  // The observations as they are held: sorted when read back (fromState), so not sorted here.
  await fs.writeFile(stateFile, stateText(state, inferrer.observations(), encoded));
  if (!cache) return;
  const stamp = await fileStamp(stateFile);
  if (stamp !== undefined) cache.keep(stateFile, { state, inferrer }, stamp);
}
