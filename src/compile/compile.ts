/**
 * `content-sync compile`: from a snapshot to the TypeScript pages import.
 *
 * One module per story and language (the resolved story), an index of
 * metadata with lazy loaders and lookups, datasources, tags, backlinks, and
 * the types inferred from every story. Stories are read one at a time
 * (targets of relations through a small cache), so memory stays bounded.
 *
 * Incremental: a state file remembers each story's record digest, what its
 * modules reference and the digest of every file written. A compile after a
 * sync regenerates the stories whose records changed and the stories that
 * embed them, then the small shared modules; a file whose bytes would not
 * change is not touched (bytes and mtime stay).
 */
import { mkdirSync, promises as fs, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Story, Tag } from '../api/index.js';
import {
  DEFAULT_LANG,
  FILES,
  StoryRecord,
  materialize,
  readManifest,
  recoverSnapshot,
  sha256,
  type DatasourceRecord,
} from '../snapshot/index.js';
import { DatasourceRecord as DatasourceRecordSchema } from '../snapshot/index.js';
import { INDEX_FILES, type StoryIndexEntry } from '../sync/index.js';
import { createResolver, missingReport, type LinksMode, type ResolveResult } from './resolve/index.js';
import { TypeInferrer, emitTypes } from './types/index.js';
import { pathToFileURL } from 'node:url';
import {
  backlinksDeclaration,
  backlinksModule,
  datasourcesDeclaration,
  datasourcesModule,
  entryMeta,
  indexDeclaration,
  indexModule,
  exportName,
  storiesDeclaration,
  storyModulePath,
  tagsDeclaration,
  tagsModule,
  type EntryMeta,
} from './emit.js';
import { exportsSource } from './serialize.js';

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
  /** Import specifier prefix of the story modules in stories.d.ts (default `content:`, the Vite plugin's). */
  specifierPrefix?: string;
}

export interface CompileResult {
  mode: 'full' | 'incremental';
  stories: number;
  modules: number;
  written: string[];
  deleted: string[];
  warnings: string[];
  durationMs: number;
}

const STATE_FILE = '.content-sync-compile.json';

interface StoryState {
  digest: string;
  uuid: string;
  /** uuids the story's modules embed or point at (drives invalidation). */
  references: string[];
  /** Index metadata, per language. */
  metas: EntryMeta[];
  component: string;
}

interface State {
  fingerprint: string;
  /** Digests of the snapshot's datasources and tags when compiled. */
  snapshotDigests?: { datasources?: string | undefined; tags?: string | undefined };
  stories: Record<string, StoryState>;
  /** Digest of every generated file, by relative path. */
  files: Record<string, string>;
  /** Type inference counts over every compiled (resolved) story (absent while kept in memory). */
  types: unknown;
}

/** The last state each output directory was compiled to by this process (the dev server compiles often). */
const remembered = new Map<string, { state: State; inferrer: TypeInferrer; stamp: string; texts: Map<string, string> }>();
const pendingWrites = new Map<string, Promise<void>>();

async function stampOf(file: string): Promise<string | undefined> {
  try {
    const st = await fs.stat(file);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return undefined;
  }
}

/** Waits until the state of every compile of this process is on disk. */
export async function settled(): Promise<void> {
  await Promise.all([...pendingWrites.values()]);
}

async function readJsonFile(file: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(file, 'utf8'));
}

/** Reads story records on demand, keeping the most recent in memory. */
class RecordCache {
  readonly #dir: string;
  readonly #cache = new Map<number, StoryRecord | null>();
  readonly #limit: number;

  constructor(dir: string, limit = 4096) {
    this.#dir = dir;
    this.#limit = limit;
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
      // Small files: a synchronous read is several times cheaper than a thread-pool job.
      record = StoryRecord.parse(JSON.parse(readFileSync(path.join(this.#dir, FILES.stories, `${id}.json`), 'utf8')));
    } catch {
      record = null;
    }
    this.#cache.set(id, record);
    if (this.#cache.size > this.#limit) this.#cache.delete(this.#cache.keys().next().value!);
    return record ?? undefined;
  }
}

export async function compile(options: CompileOptions): Promise<CompileResult> {
  const started = performance.now();
  const snapshot = path.resolve(options.snapshot);
  const out = path.resolve(options.out);
  await recoverSnapshot(snapshot);
  const manifest = await readManifest(snapshot);
  if (!manifest) throw new Error(`${snapshot} holds no snapshot (no manifest.json); run \`content-sync sync\` first`);
  let index: StoryIndexEntry[];
  try {
    index = (await readJsonFile(path.join(snapshot, INDEX_FILES.stories))) as StoryIndexEntry[];
  } catch {
    throw new Error(`${snapshot} has no ${INDEX_FILES.stories}; it was not written by \`content-sync sync\` (sync it again)`);
  }
  const view = options.view ?? (manifest.views.includes('published') ? 'published' : 'draft');
  const languages = manifest.languages;
  const fingerprint = sha256(
    JSON.stringify({
      view,
      languages,
      r: options.resolveRelations ?? [],
      d: options.detectRelations ?? false,
      l: options.resolveLinks ?? null,
      depth: options.depth ?? 1,
      schema: options.schema ?? null,
      v: 1,
    }),
  );

  // The last compile's state: resumed from when it applies, and in any case the list of files it wrote
  // (a full compile, or one with other options, still removes the modules of stories that are gone).
  const stateFile = path.join(out, STATE_FILE);
  await pendingWrites.get(stateFile);
  const stamp = await stampOf(stateFile);
  const mem = remembered.get(stateFile);
  remembered.delete(stateFile);
  let previous: State | undefined;
  if (mem && stamp !== undefined && mem.stamp === stamp) {
    // Compiled by this process last: its state is still in memory, no need to parse it.
    previous = mem.state;
  } else {
    try {
      previous = (await readJsonFile(stateFile)) as State;
    } catch {
      previous = undefined;
    }
  }
  let state: State | undefined = !options.full && previous?.fingerprint === fingerprint ? previous : undefined;

  const records = new RecordCache(snapshot);
  const byUuid = new Map(index.map((e) => [e.uuid, e.id]));
  const visible = (r: StoryRecord | undefined) =>
    r ? (view === 'published' ? r.published ?? undefined : r.draft ?? r.published ?? undefined) : undefined;

  const written: string[] = [];
  const files: Record<string, string> = {};
  const oldFiles = state?.files ?? {};
  const made = new Set<string>();
  /** Texts of the shared files (index, types, ...) as written, for the next compile of this process. */
  const sharedTexts = new Map<string, string>();
  /** Shared files whose digest is computed after this compile returns. */
  const deferred: Array<[string, string]> = [];
  const knownTexts = mem && previous === mem.state ? mem.texts : undefined;
  const write = async (rel: string, text: string, shared = false): Promise<void> => {
    if (shared) sharedTexts.set(rel, text);
    const known = shared ? knownTexts?.get(rel) : undefined;
    if (known !== undefined && oldFiles[rel]) {
      // Compared with the text this process wrote last: no need to hash megabytes.
      if (known === text) {
        files[rel] = oldFiles[rel]!;
        return;
      }
      // Its digest is computed with the state, after returning; until then it is listed as present.
      files[rel] = '';
      deferred.push([rel, text]);
    } else {
      const digest = sha256(text).slice(0, 20);
      files[rel] = digest;
      if (oldFiles[rel] === digest) return;
    }
    written.push(rel);
    const file = path.join(out, rel);
    const dir = path.dirname(file);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(file, text);
  };

  // Which stories need their modules regenerated.
  const newStories: State['stories'] = {};
  const dirty = new Set<number>();
  for (const e of index) {
    const old = state?.stories[e.id];
    if (!old || old.digest !== e.digest) dirty.add(e.id);
  }
  const removedUuids = new Set<string>();
  if (state) {
    const present = new Set(index.map((e) => String(e.id)));
    for (const [id, s] of Object.entries(state.stories)) if (!present.has(id)) removedUuids.add(s.uuid);
  }
  const dirtyUuids = new Set<string>([...removedUuids]);
  for (const e of index) if (dirty.has(e.id)) dirtyUuids.add(e.uuid);
  // Stories that embed or point at a changed story change too (references are transitive up to the depth).
  const affected = new Set<number>(dirty);
  if (state) {
    let frontier = new Set(dirtyUuids);
    for (let level = 0; level < Math.max(1, options.depth ?? 1) && frontier.size; level++) {
      const next = new Set<string>();
      for (const [id, s] of Object.entries(state.stories)) {
        if (affected.has(Number(id))) continue;
        if (s.references.some((u) => frontier.has(u))) {
          affected.add(Number(id));
          next.add(s.uuid);
        }
      }
      frontier = next;
    }
  }
  const regenerate = (id: number) => !state || affected.has(id);
  const snapshotDigests = {
    datasources: (manifest.digests as Record<string, string> | undefined)?.datasources,
    tags: (manifest.digests as Record<string, string> | undefined)?.tags,
  };
  if (
    state &&
    dirty.size === 0 &&
    removedUuids.size === 0 &&
    state.snapshotDigests?.datasources === snapshotDigests.datasources &&
    state.snapshotDigests?.tags === snapshotDigests.tags
  ) {
    // Nothing changed since the last compile: every file is as it should be.
    if (mem && previous === mem.state) remembered.set(stateFile, mem);
    return {
      mode: 'incremental',
      stories: index.length,
      modules: Object.values(state.stories).reduce((n, s) => n + s.metas.length, 0),
      written: [],
      deleted: [],
      warnings: [],
      durationMs: performance.now() - started,
    };
  }
  // Until this compile finishes, no state: an interrupted compile is followed by a full one.
  await fs.rm(path.join(out, STATE_FILE), { force: true });

  // Lookups into one language of the snapshot, for the resolver.
  /** Targets of one language kept for resolution: the most recently used, so memory stays bounded. */
  const LOOKUP_LIMIT = 20_000;
  const lookupFor = (lang: string) => {
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
        const id = byUuid.get(uuid);
        const version = id === undefined ? undefined : visible(await records.get(id));
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
  };

  const inferOptions = {
    ...(options.resolveRelations ? { relations: options.resolveRelations } : {}),
    storyUuids: new Set(byUuid.keys()),
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
  const missing: Array<{ story: Story; missing: ResolveResult['missing'] }> = [];
  const backlinks = new Map<string, Set<string>>();
  const resolveConfig = {
    ...(options.resolveRelations ? { relations: options.resolveRelations } : {}),
    detectRelations: options.detectRelations ?? false,
    ...(options.resolveLinks ? { links: options.resolveLinks } : {}),
    depth: options.depth ?? 1,
  };
  const sorted = [...index].sort((a, b) => a.id - b.id);
  const lookups = new Map(languages.map((lang) => [lang, lookupFor(lang)]));
  let modules = 0;

  /** Takes a story's previous contribution out of the type counts, from its previous module. */
  const forget = async (id: number, old: StoryState): Promise<void> => {
    const rel = storyModulePath(id);
    if (!oldFiles[rel]) return;
    try {
      const mod = (await import(`${pathToFileURL(path.join(out, rel)).href}?v=${oldFiles[rel]}`)) as Record<string, Story>;
      for (const m of old.metas) {
        const story = mod[exportName(m.lang)];
        if (story) inferrer.remove(story);
      }
    } catch {
      throw new Error(`cannot read the previous module ${rel}; run a full compile (--full)`);
    }
  };

  if (state) {
    const present = new Set(index.map((e) => e.id));
    for (const [id, old] of Object.entries(state.stories)) {
      if (!present.has(Number(id))) await forget(Number(id), old);
    }
  }

  for (const e of sorted) {
    const old = state?.stories[e.id];
    if (state && old && !regenerate(e.id)) {
      // Unchanged: keep its module, metadata and references as they are.
      newStories[e.id] = { ...old, digest: e.digest };
      const rel = storyModulePath(e.id);
      if (oldFiles[rel]) files[rel] = oldFiles[rel]!;
      modules += old.metas.length;
      for (const u of old.references) (backlinks.get(u) ?? backlinks.set(u, new Set()).get(u)!).add(e.uuid);
      continue;
    }
    if (state && old) await forget(e.id, old);
    const record = await records.get(e.id);
    const version = visible(record);
    if (!version) continue;
    const exports: Array<[string, Story]> = [];
    const metas: EntryMeta[] = [];
    const references = new Set<string>();
    for (const lang of languages) {
      const story = materialize(version, lang);
      // Preload what the story may reference, then resolve synchronously.
      const result = await resolveWith(resolveConfig, lookups.get(lang)!, story);
      if (result.missing.length) missing.push({ story, missing: result.missing });
      for (const u of result.references) references.add(u);
      inferrer.add(result.story);
      exports.push([exportName(lang), result.story]);
      metas.push(entryMeta(story, lang));
      modules++;
    }
    const refs = [...references].sort();
    for (const u of refs) (backlinks.get(u) ?? backlinks.set(u, new Set()).get(u)!).add(e.uuid);
    newStories[e.id] = { digest: e.digest, uuid: e.uuid, references: refs, metas, component: version.story.content.component };
    await write(storyModulePath(e.id), exportsSource(exports));
  }
  const metasAll = sorted.flatMap((e) => newStories[e.id]?.metas ?? []);

  const datasources = await readDatasources(snapshot);
  const tags = await readTags(snapshot, view);
  const model = inferrer.model();
  const storyTypes = new Map<string, string>();
  for (const c of model.components) if (c.contentType && c.storyName) storyTypes.set(c.name, c.storyName);
  await write('types.ts', emitTypes(model), true);
  await write(
    'stories.d.ts',
    storiesDeclaration(
      options.specifierPrefix ?? 'content:',
      sorted.filter((e) => newStories[e.id]).map((e) => ({
        id: e.id,
        langs: newStories[e.id]!.metas.map((m) => m.lang),
        storyType: storyTypes.get(newStories[e.id]!.component),
      })),
    ),
    true,
  );
  await write('index.js', indexModule(metasAll, languages), true);
  await write('index.d.ts', indexDeclaration(metasAll, storyTypes), true);
  await write('datasources.js', datasourcesModule(datasources), true);
  await write('datasources.d.ts', datasourcesDeclaration(datasources), true);
  await write('tags.js', tagsModule(tags), true);
  await write('tags.d.ts', tagsDeclaration(tags), true);
  const sortedBacklinks = new Map([...backlinks].map(([k, v]) => [k, [...v].sort()]));
  await write('backlinks.js', backlinksModule(sortedBacklinks), true);
  await write('backlinks.d.ts', backlinksDeclaration, true);

  // Files of stories that are gone.
  const deleted: string[] = [];
  const previousFiles = Object.keys({ ...(previous?.files && typeof previous.files === 'object' ? previous.files : {}), ...oldFiles });
  for (const rel of previousFiles) {
    if (!(rel in files) && !path.isAbsolute(rel) && !rel.split(/[\\/]/).includes('..')) {
      deleted.push(rel);
      await fs.rm(path.join(out, rel), { force: true });
    }
  }
  const newState: State = { fingerprint, snapshotDigests, stories: newStories, files, types: undefined };
  await fs.mkdir(out, { recursive: true });
  // The state file is written after this compile returns (the next compile waits for it); until
  // then none exists, so a process that dies first leaves a full compile to the next run.
  const writing = (async () => {
    await new Promise((r) => setImmediate(r));
    for (const [rel, text] of deferred) newState.files[rel] = sha256(text).slice(0, 20);
    const text = JSON.stringify({ ...newState, types: inferrer.state() });
    await fs.writeFile(stateFile, text);
    const written = await stampOf(stateFile);
    if (written !== undefined) remembered.set(stateFile, { state: { ...newState, types: undefined }, inferrer, stamp: written, texts: sharedTexts });
  })().finally(() => pendingWrites.delete(stateFile));
  pendingWrites.set(stateFile, writing);
  const warning = missingReport(missing);
  return {
    mode: state ? 'incremental' : 'full',
    stories: index.length,
    modules,
    written: written.sort(),
    deleted: deleted.sort(),
    warnings: warning ? [warning] : [],
    durationMs: performance.now() - started,
  };
}

/**
 * Resolves one story: its reference graph is loaded into a synchronous lookup
 * first (targets of targets up to the depth), then the pure resolver runs.
 */
async function resolveWith(
  config: Parameters<typeof createResolver>[0],
  lookup: { load: (uuid: string) => Promise<Story | undefined>; cache: Map<string, Story | undefined>; byId: Map<number, Story> },
  story: Story,
): Promise<ResolveResult> {
  // Targets up to the depth (depth 1: the story's own targets, embedded as they are).
  const depth = Math.max(1, config.depth ?? 1);
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

async function readDatasources(snapshot: string): Promise<DatasourceRecord[]> {
  const dir = path.join(snapshot, FILES.datasources);
  let names: string[] = [];
  try {
    names = (await fs.readdir(dir)).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: DatasourceRecord[] = [];
  for (const n of names) out.push(DatasourceRecordSchema.parse(await readJsonFile(path.join(dir, n))));
  return out.sort((a, b) => a.datasource.id - b.datasource.id);
}

async function readTags(snapshot: string, view: 'published' | 'draft'): Promise<Tag[]> {
  try {
    const tags = (await readJsonFile(path.join(snapshot, FILES.tags))) as { published?: Tag[]; draft?: Tag[] };
    return tags[view] ?? tags.published ?? [];
  } catch {
    return [];
  }
}

export { DEFAULT_LANG };
