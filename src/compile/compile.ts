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
 *
 * The parts: the state (state.ts), what must be compiled again
 * (invalidation.ts), a full compile (full.ts, over threads: parallel.ts) and
 * an incremental one (incremental.ts) over one context (context.ts), the
 * output directory (output.ts, guarded by foreign-output.ts), the files at its
 * top (shared-files.ts) and the backlinks (backlinks.ts); this module runs
 * them in order.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { View } from '../api/index.js';
import type { Manifest } from '../snapshot/format.js';
import { sha256 } from '../snapshot/json.js';
import { fileStamp } from '../snapshot/read.js';
import type { IndexRow } from '../snapshot/stories-index.js';
import { WriterLock } from '../snapshot/lock.js';
import { openForReading } from '../snapshot/transaction.js';
import { writeWhole } from '../snapshot/write-whole.js';
import { PreviousBacklinks } from './backlinks.js';
import type { CompileContext } from './context.js';
import { CHUNKS, GENERATED_HEADER, entryFieldsProblem, backlinksChunk, chunkCount, languageExports } from './emit.js';
import { compileFull } from './full.js';
import { compileIncremental } from './incremental.js';
import { invalidation } from './invalidation.js';
import { Output, generatedFiles, sortedWithModules } from './output.js';
import { CompileWorkers, defaultThreads } from './parallel.js';
import { missingReport, type LinksMode } from './resolve/index.js';
import { openSnapshot, readDatasources, readTags } from './source.js';
import { STATE_FILE, STATE_VERSION, readState, writeState, type CompileCache, type CompileLedger } from './state.js';
import { StoryCompiler, recordsOf, type StorySetup } from './story.js';
import { TypeInferrer, contentDeclaration, renamedTypes, schemaProblem } from './types/index.js';
import { servedModules } from './modules.js';
import { viewFiles } from './views.js';
import { refuseForeignFiles } from './foreign-output.js';
import { formerTypes, sharedFiles } from './shared-files.js';
import type { WorkerInput } from './worker-protocol.js';

export { CompileCache } from './state.js';

export interface CompileOptions {
  snapshot: string;
  out: string;
  view?: View;
  resolveRelations?: readonly string[];
  detectRelations?: boolean;
  resolveLinks?: LinksMode;
  /** How deep resolved stories resolve their own relations: 0 to 10 (default 1), as the plugin's `depth`. */
  depth?: number;
  /**
   * Keep a relation's uuid where its target is not in this view of the
   * snapshot (missing, unpublished). Default false: the target is left out
   * (an array loses the item, a single value becomes null). The warning
   * names such references either way.
   */
  keepUnresolved?: boolean;
  /** A component schema export merged into the inferred types. */
  schema?: unknown;
  /**
   * Content fields copied into each story's index entries (`entry.fields`), as the snapshot has
   * them (a relation is its uuid): what lists of stories show (a title, a teaser image) without
   * loading each story. Default none.
   */
  entryFields?: readonly string[];
  /** Regenerate everything, ignoring the state of the last compile. */
  full?: boolean;
  /** Import specifier prefix of the story modules in the declarations (default `content:`, the Vite plugin's). */
  specifierPrefix?: string;
  /**
   * Where to write the ambient declarations of every module (`content.d.ts`, see types/ambient.ts);
   * default: beside the output directory (`.content/content.d.ts` for `.content/modules`); false: none.
   */
  declaration?: string | false;
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
  /**
   * Where a host that compiles often (the dev server) keeps the last state between compiles, so
   * the next one need not read it back from its file. Without it, the state file is read.
   */
  cache?: CompileCache;
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
  /** The declarations file (absolute), when this compile wrote it. */
  declaration?: string;
  /**
   * With a cache: another compile wrote the output since this cache's last one, so files may have
   * changed beyond `written` and `deleted` (what this compile changed from the other's output).
   */
  writtenElsewhere?: true;
  /** Why a compile over an output with a state compiled everything although not asked to (another version's state, other options). */
  fullBecause?: string;
  durationMs: number;
}

/** How long a compile waits for another one writing the same output directory. */
const WAIT_FOR_OUTPUT_MS = 120_000;

export async function compile(options: CompileOptions): Promise<CompileResult> {
  checkOptions(options);
  // No commit changes the snapshot while the compile reads it (a commit under way is waited for).
  const reading = await openForReading(path.resolve(options.snapshot));
  try {
    return await compileSnapshot(options);
  } finally {
    await reading.close();
  }
}

/**
 * The deepest resolution a compile takes, as the plugin's `depth` and `--depth`: the resolver takes
 * any, but each level embeds every related story of the last, so a space whose stories relate to
 * several others outgrows memory (depth 1,000 over the 2,425-story demo with detected relations: out of memory after 90 s).
 */
const MAX_DEPTH = 10;

/**
 * Refuses, before anything is written, options from a script that the plugin and the CLI refuse
 * (a missing path failed as a bare `paths[0]` TypeError; a wrong links mode left an empty output).
 */
function checkOptions(options: CompileOptions): void {
  for (const key of ['snapshot', 'out'] as const)
    if (typeof options[key] !== 'string' || options[key] === '')
      throw new TypeError(
        `compile needs ${key}: the ${key === 'out' ? 'directory to write into' : "snapshot's directory"}`,
      );
  const depth = options.depth;
  if (depth !== undefined && !(Number.isSafeInteger(depth) && depth >= 0 && depth <= MAX_DEPTH))
    throw new RangeError(`depth must be an integer from 0 to ${MAX_DEPTH}, got ${String(depth)}`);
  const links = options.resolveLinks;
  if (links !== undefined && links !== 'url' && links !== 'story' && links !== 'link')
    throw new RangeError(`resolveLinks must be 'url', 'story' or 'link', got ${String(links)}`);
}

async function compileSnapshot(options: CompileOptions): Promise<CompileResult> {
  const started = performance.now();
  const snapshot = path.resolve(options.snapshot);
  const out = path.resolve(options.out);
  const { manifest, readIndex } = await openSnapshot(snapshot);
  // One compile writes an output directory at a time (a dev server's and a build's, say): two at
  // once would each write the files of their own snapshot and leave a state that matches neither.
  mkdirSync(out, { recursive: true });
  const writing = await WriterLock.takeWaiting(out, WAIT_FOR_OUTPUT_MS, 'compiling into it');
  try {
    return await compileInto(options, started, snapshot, out, manifest, readIndex);
  } finally {
    await writing.release();
  }
}

/** The compile of an opened snapshot into `out`, which this compile alone writes. */
async function compileInto(
  options: CompileOptions,
  started: number,
  snapshot: string,
  out: string,
  manifest: Manifest,
  readIndex: () => IndexRow[],
): Promise<CompileResult> {
  const view = options.view ?? (manifest.views.includes('published') ? 'published' : 'draft');
  // A view the snapshot was not synced with would compile as a space without stories.
  if (!manifest.views.includes(view))
    throw new Error(
      `${snapshot} holds the ${manifest.views.join(' and ')} view, not ${view}: sync it with that view (\`content-sync sync --version ${view}\`, or the plugin's version option) before compiling it`,
    );
  const prefix = options.specifierPrefix ?? 'content:';
  const setup: StorySetup = {
    snapshot,
    view,
    // A code listed twice (the space's `default` beside the default language) is one language.
    languages: [...new Set(manifest.languages)],
    resolve: {
      ...(options.resolveRelations ? { relations: options.resolveRelations } : {}),
      detectRelations: options.detectRelations ?? false,
      ...(options.resolveLinks ? { links: options.resolveLinks } : {}),
      depth: options.depth ?? 1,
      keepUnresolved: options.keepUnresolved ?? false,
      publishedView: manifest.views.includes('published'),
    },
    entryFields: options.entryFields ?? [],
  };
  const fieldsProblem = entryFieldsProblem(setup.entryFields);
  if (fieldsProblem) throw new TypeError(`entryFields: ${fieldsProblem}`);
  const schemaWrong = options.schema === undefined ? undefined : schemaProblem(options.schema);
  if (schemaWrong) throw new TypeError(`schema: ${schemaWrong}`);
  const stateFile = path.join(out, STATE_FILE);
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
    return await compileIndex(options, {
      started,
      snapshot,
      out,
      manifest,
      index: readIndex(),
      setup,
      stateFile,
      stamp,
      prefix,
      threadsFor,
      workerInput,
      pool,
    });
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
  workerInput: Omit<WorkerInput, 'thread'>;
  /** Workers started before the index was read, if any. */
  pool: CompileWorkers | undefined;
}

/**
 * The compile of an index: the last compile's state decides between a full compile and an
 * incremental one (see invalidation); then the backlinks, the shared files, the removal of what
 * the last compile wrote and this one did not, and the state, written before it returns.
 */
async function compileIndex(options: CompileOptions, opened: Opened): Promise<CompileResult> {
  const { started, snapshot, out, manifest, index, setup, stateFile, stamp, prefix } = opened;
  const declaration =
    options.declaration === false
      ? undefined
      : path.resolve(options.declaration ?? path.join(out, '..', 'content.d.ts'));
  const fingerprint = fingerprintOf(options, setup, prefix);
  const chunkTotal = chunkCount(index.length, options.chunkSize);

  // The last compile's state: resumed from when it applies, and in any case the list of files it wrote
  // (a full compile, or one with other options, still removes the files it no longer writes).
  const elsewhere = options.cache?.writtenElsewhere(stateFile, stamp) ? { writtenElsewhere: true as const } : {};
  const last = await readState(stateFile, stamp, options.cache);
  const previous = last.state;
  refuseForeignFiles(out, declaration, previous === undefined);
  // Without the last compile's list of files (no state yet, one deleted or unreadable, or a compile that
  // died before writing it), the modules and chunks in the directory stand for it: the files of stories
  // gone since are removed all the same. Listed now, before this compile adds its own.
  const leftovers = previous ? undefined : [...generatedFiles(out), ...formerTypes(out)];
  let state: CompileLedger | undefined =
    !options.full && previous?.fingerprint === fingerprint && previous.chunkTotal === chunkTotal ? previous : undefined;
  const fullBecause =
    state || options.full ? undefined : whyFull(previous, stamp, fingerprint, chunkTotal, setup.languages);

  const byUuid = new Map<string, number>();
  for (const e of index) byUuid.set(e.uuid, e.id);
  const output = new Output(out, state?.files ?? {});
  const records = recordsOf(snapshot, index);
  const previousBacklinks = new PreviousBacklinks(output, chunkTotal);
  const invalid =
    state && invalidation(state, index, records, setup.view, setup.resolve.depth, previousBacklinks, byUuid);
  const digests = manifest.digests as Record<string, string> | undefined;
  const snapshotDigests = { datasources: digests?.datasources, tags: digests?.tags };
  if (
    state &&
    invalid?.dirty.size === 0 &&
    invalid.removed.length === 0 &&
    state.snapshotDigests?.datasources === snapshotDigests.datasources &&
    state.snapshotDigests?.tags === snapshotDigests.tags &&
    (declaration === undefined || existsSync(declaration))
  ) {
    // Nothing changed since the last compile: every file is as it should be.
    if (last.kept && stamp !== undefined) options.cache?.keep(stateFile, last.kept, stamp);
    else options.cache?.saw(stateFile, stamp);
    return {
      mode: 'incremental',
      stories: index.length,
      modules: state.stories.size * setup.languages.length,
      compiled: 0,
      written: [],
      deleted: [],
      warnings: [],
      ...elsewhere,
      durationMs: performance.now() - started,
    };
  }
  // Until this compile finishes, no state: an interrupted compile is followed by a full one.
  rmSync(stateFile, { force: true });

  const { depth, keepUnresolved } = setup.resolve;
  const datasources = readDatasources(snapshot);
  const inferOptions = {
    ...(options.resolveRelations ? { relations: options.resolveRelations } : {}),
    storyUuids: byUuid,
    schema: options.schema,
    // A field whose values are all entry names of a datasource is typed as that datasource's names.
    datasources: datasources.map((r) => ({ slug: r.datasource.slug, names: r.entries.map((e) => e.name) })),
    ...(depth >= 1 ? { resolution: { depth, keepUnresolved } } : {}),
  };
  let inferrer: TypeInferrer;
  try {
    inferrer = !state
      ? new TypeInferrer(inferOptions)
      : last.kept?.state === state
        ? last.kept.inferrer.withOptions(inferOptions)
        : TypeInferrer.fromState(state.types, inferOptions);
  } catch {
    // A state the inferrer cannot resume from: start over with every story.
    state = undefined;
    inferrer = new TypeInferrer(inferOptions);
  }
  const ctx: CompileContext = {
    setup,
    prefix,
    index,
    chunkTotal,
    byUuid,
    records,
    output,
    inferrer,
    compiler: new StoryCompiler(setup, byUuid, inferrer, records),
    missing: [],
    onProgress: options.onProgress,
  };
  // Link targets are read from the stories index, kept open until every chunk is compiled.
  let result: Awaited<ReturnType<typeof compileFull>> | ReturnType<typeof compileIncremental>;
  try {
    result =
      state && invalid
        ? compileIncremental(ctx, state, invalid, previousBacklinks)
        : await compileFull(
            ctx,
            opened.threadsFor(index.length),
            () => opened.pool ?? new CompileWorkers(opened.workerInput, 0),
          );
  } finally {
    records.release();
  }
  result.backlinks.forEach((lists, b) => {
    if (lists) output.write(CHUNKS.backlinks(b), backlinksChunk(lists));
  });
  const types = typeModel(ctx, inferOptions);
  const shared = sharedFiles(
    types.model,
    chunkTotal,
    setup.languages,
    datasources,
    readTags(snapshot, setup.view),
    setup.entryFields,
  );
  for (const [rel, text] of shared) output.write(rel, text);
  const components = new Set<string>();
  for (const s of result.stories.values()) components.add(s.component);
  const views = viewFiles(Object.keys(output.files), setup.languages, languageExports(setup.languages), components);
  for (const [rel, text] of views) output.write(rel, text);
  const declared =
    declaration !== undefined &&
    writeIfChanged(
      declaration,
      declarationFile([...shared, ...views], setup.languages, [...components].sort(), {
        prefix,
        modulesDir: relativeDir(path.dirname(declaration), out),
      }),
    );

  // Files the last compile wrote that this one did not: stories that are gone, chunks of another layout.
  // (An incremental compile changed the last compile's set of modules: it knows which it dropped.)
  const goneModules =
    'droppedModules' in result
      ? result.droppedModules
      : [...(previous?.modules ?? [])].filter((id) => !result.withModules.has(id));
  const deleted = output.removeStale(previous?.files, goneModules, leftovers, result.withModules);
  const newState: CompileLedger = {
    v: STATE_VERSION,
    fingerprint,
    chunkTotal,
    snapshotDigests,
    languages: setup.languages,
    stories: result.stories,
    modules: result.withModules,
    files: output.files,
    types: undefined,
  };
  // The positions worked out in the index (a full compile's) are those in the state when it lists every story of the index.
  await writeState(
    stateFile,
    newState,
    types.inferrer,
    options.cache,
    'encoded' in result && result.stories.size === index.length ? result.encoded : undefined,
  );
  const warning = missingReport(ctx.missing, ctx.setup.resolve.keepUnresolved);
  const languagesListed =
    manifest.languages.length === setup.languages.length
      ? []
      : [`the space lists a language code twice (${manifest.languages.join(', ')}): each is compiled once`];
  return {
    mode: state ? 'incremental' : 'full',
    stories: index.length,
    modules: result.modules,
    compiled: result.compiled,
    // A full compile wrote the two modules of every story that has them (listed here, in order).
    written: state ? output.written.sort() : sortedWithModules(output.written, result.withModules),
    deleted,
    warnings: [...languagesListed, ...renamedTypes(types.model.components), ...(warning ? [warning] : [])],
    ...(declared ? { declaration } : {}),
    ...elsewhere,
    ...(!state && fullBecause ? { fullBecause } : {}),
    durationMs: performance.now() - started,
  };
}

/**
 * Why the last compile's state is not resumed from, when there is one: an upgrade (or a downgrade)
 * compiles everything once, and says so. `stamp`: the state file's, undefined when there is none.
 */
function whyFull(
  previous: CompileLedger | undefined,
  stamp: string | undefined,
  fingerprint: string,
  chunkTotal: number,
  languages: readonly string[],
): string | undefined {
  if (!previous)
    return stamp === undefined ? undefined : "the last compile's state is not one this version of content-sync reads";
  // The snapshot's languages are in the fingerprint, though neither an option nor the version: said as they are.
  if (previous.languages && previous.languages.join('\0') !== languages.join('\0'))
    return `the snapshot's languages changed since the last compile (${previous.languages.join(', ')}; now ${languages.join(', ')})`;
  if (previous.fingerprint !== fingerprint)
    return 'the compile options or the version of content-sync changed since the last compile';
  if (previous.chunkTotal !== chunkTotal) return 'the stories fill another number of chunks than at the last compile';
  return undefined;
}

/**
 * content.d.ts: every module the plugin serves (servedModules) declared under its import specifier,
 * from the declarations this compile wrote for its file (`x.d.ts` beside `x.js`), and the story modules' chunks referenced.
 */
function declarationFile(
  files: ReadonlyArray<readonly [string, string]>,
  languages: readonly string[],
  components: readonly string[],
  options: { prefix: string; modulesDir: string },
): string {
  const texts = new Map(files);
  const modules = servedModules(languages, components).flatMap(({ name, file }) => {
    const rel = file.replace(/\.js$/, '.d.ts');
    const declarations = texts.get(rel);
    // A language without stories of a content type has no module for it: nothing to declare.
    return declarations === undefined ? [] : [{ name, file: rel, declarations }];
  });
  return contentDeclaration({ ...options, modules, references: ['stories.d.ts'], header: GENERATED_HEADER });
}

/** `./<path>/` from one directory to another, with `/` (an import path). */
function relativeDir(from: string, to: string): string {
  const rel = path.relative(from, to).split(path.sep).join('/');
  if (path.isAbsolute(rel)) return `${rel}/`;
  // `..` only as a whole segment: a directory named `..content` is below, and needs its `./`
  // (without it, `import("..content/...")` names a package).
  return rel === '' ? './' : rel === '..' || rel.startsWith('../') ? `${rel}/` : `./${rel}/`;
}

/** Writes a file unless it already holds `text`; true when it wrote. */
function writeIfChanged(file: string, text: string): boolean {
  try {
    if (readFileSync(file, 'utf8') === text) return false;
  } catch {
    // None yet.
  }
  // Renamed into place: tsc, an editor or another compile reading it meanwhile never sees half of it.
  writeWhole(file, text);
  return true;
}

/**
 * The generation of what a compile writes: raised with a change to the generated modules or
 * declarations (2: resolved relations typed `Related`, lean index modules in content.d.ts; 3: types.d.ts
 * and types.js in place of types.ts; 4: no language exported under a name its story modules declare; 5: modules
 * with functions marked @ts-nocheck), so that an output written before is compiled again in full rather than
 * found unchanged.
 */
const OUTPUT_VERSION = 5;

/** What the output depends on besides the snapshot: a state compiled with another fingerprint is not resumed from. */
function fingerprintOf(options: CompileOptions, setup: StorySetup, prefix: string): string {
  return sha256(
    JSON.stringify({
      view: setup.view,
      languages: setup.languages,
      r: options.resolveRelations ?? [],
      d: options.detectRelations ?? false,
      l: options.resolveLinks ?? null,
      depth: options.depth ?? 1,
      k: options.keepUnresolved ?? false,
      // Only when set: a fingerprint without them stays what it was before there were entry fields.
      ...(setup.entryFields.length ? { f: setup.entryFields } : {}),
      schema: options.schema ?? null,
      prefix,
      v: STATE_VERSION,
      output: OUTPUT_VERSION,
    }),
  );
}

/** The types of every story compiled, and the inferrer whose observations the state keeps. */
function typeModel(
  ctx: CompileContext,
  inferOptions: ConstructorParameters<typeof TypeInferrer>[0],
): { inferrer: TypeInferrer; model: ReturnType<TypeInferrer['model']> } {
  const model = ctx.inferrer.model();
  if (!model.undecided) return { inferrer: ctx.inferrer, model };
  // Rare: removed stories took literal values the counts held while others were past the cap,
  // and what is left may be few enough to print as literals. Every story is observed again, as
  // a full compile does (nothing is written), so the types are those of a full compile.
  const inferrer = new TypeInferrer(inferOptions);
  const observer = new StoryCompiler(ctx.setup, ctx.byUuid, inferrer, ctx.records);
  try {
    for (const e of ctx.index) observer.compile(e);
  } finally {
    ctx.records.release();
  }
  return { inferrer, model: inferrer.model() };
}
