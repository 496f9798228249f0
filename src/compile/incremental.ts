/**
 * An incremental compile: the stories a change reaches (see invalidation) are
 * compiled again, their previous type observations taken out first (from the
 * modules the last compile wrote); a chunk none of whose stories changed is
 * kept as it is. The last compile's stories and set of modules become this
 * one's: what changes is changed in them, and noted (`StoryChanges`), so the
 * backlinks of what changed are patched.
 */
import path from 'node:path';
import type { Story } from '../api/index.js';
import type { IndexRow } from '../snapshot/stories-index.js';
import { type PreviousBacklinks, patchBacklinks, type StoryChanges } from './backlinks.js';
import type { CompileContext, CompiledStories } from './context.js';
import {
  CHUNKS,
  chunkOfId,
  chunkFiles,
  chunkMembers,
  languageExports,
  storyModulePath,
  validMetas,
  type DeclaredModule,
  type EntryMeta,
} from './emit.js';
import type { Invalidation } from './invalidation.js';
import { evaluateModule } from './serialize.js';
import type { CompileLedger } from './state.js';
import type { LedgerEntry } from './story.js';
import { chunkOfView, viewChunkFiles } from './views.js';

export interface IncrementalCompile extends CompiledStories {
  /** The stories whose modules this compile removed from the last compile's set. */
  droppedModules: number[];
}

/** The last compile's `state` (changed in place) after the changes `invalid` found; `backlinks`: the last compile's. */
export function compileIncremental(
  ctx: CompileContext,
  state: CompileLedger,
  invalid: Invalidation,
  backlinks: PreviousBacklinks,
): IncrementalCompile {
  const { index, chunkTotal, output, inferrer } = ctx;
  const languages = ctx.setup.languages;
  const { affected, removed } = invalid;
  const stories = state.stories;
  /** The stories that have modules after this compile: the last compile's set, changed in place. */
  const withModules = state.modules;
  const changes = { stories, replaced: new Map<number, LedgerEntry>(), added: [] as number[] };
  const droppedModules: number[] = [];
  const exportNames = languageExports(languages);
  /** Sets a story's state, noting what it replaces. */
  const setStory = (id: number, s: LedgerEntry): void => {
    const old = stories.get(id);
    if (old === s) return;
    if (!old) changes.added.push(id);
    else if (!changes.replaced.has(id)) changes.replaced.set(id, old);
    stories.set(id, s);
  };
  /** A story without modules any more (gone, or compiled to nothing). */
  const dropStory = (id: number): void => {
    const old = stories.get(id);
    if (old && !changes.replaced.has(id)) changes.replaced.set(id, old);
    stories.delete(id);
    if (withModules.delete(id)) droppedModules.push(id);
  };
  /** Takes a story's previous contribution out of the type counts, from its previous module. */
  const forget = (id: number): void => {
    const rel = storyModulePath(id);
    if (!withModules.has(id)) return;
    try {
      // Evaluated from its text and the raw modules it imports as the last compile wrote them.
      const mod = readModule(rel) as Record<string, Story>;
      // As they were added: the story's languages at once (a value counts once per story).
      inferrer.removeVariants(
        languages.map((lang) => mod[exportNames.get(lang)!]).filter((story) => story !== undefined),
      );
    } catch {
      throw new Error(`cannot read the previous module ${rel}; run a full compile (--full)`);
    }
  };
  const readModule = (rel: string): Record<string, unknown> =>
    evaluateModule(output.previousText(rel), (from) => {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), from));
      if (!target.startsWith('raw/')) throw new Error(`unexpected import ${from}`);
      return readModule(target);
    });
  /** Compiles one story: its modules, and its metadata in every language. */
  const compileStory = (e: IndexRow, old: LedgerEntry | undefined): EntryMeta[] | undefined => {
    if (old) forget(e.id);
    const compiled = ctx.compiler.compile(e);
    if (!compiled) {
      dropStory(e.id);
      return undefined;
    }
    ctx.missing.push(...compiled.missing);
    setStory(e.id, compiled.state);
    output.writeStory(e.id, compiled, withModules.has(e.id));
    withModules.add(e.id);
    return compiled.metas;
  };

  // Stories that are gone leave the type counts, then the stories.
  for (const [id] of removed) forget(id);
  for (const [id] of removed) dropStory(id);
  let modules = 0;
  let compiled = 0;
  const removedChunks = new Set(removed.map(([id]) => chunkOfId(id, chunkTotal)));
  const members = chunkMembers(index, chunkTotal);
  /** The last compile's view chunks (see views.ts), by chunk: kept with the chunk. */
  const views = new Map<number, string[]>();
  for (const rel of Object.keys(state.files)) {
    const b = chunkOfView(rel);
    if (b !== undefined) (views.get(b) ?? views.set(b, []).get(b)!).push(rel);
  }
  for (let b = 0; b < chunkTotal; b++) {
    const rows = members[b]!;
    // (Each story is changed only when its chunk is compiled: what the state held is still there for the others.)
    const touched = removedChunks.has(b) || rows.some((e) => affected.has(e.id) || !stories.has(e.id));
    if (
      !touched &&
      [CHUNKS.entries(b), CHUNKS.entriesTypes(b), CHUNKS.stories(b), ...(views.get(b) ?? [])].every((rel) =>
        output.keep(rel),
      )
    ) {
      // Not one story of the chunk changed: their digests are the state's, their modules kept.
      modules += rows.length * languages.length;
      continue;
    }
    // The metadata of the chunk's unchanged stories, as the last compile wrote it.
    const kept = new Map<number, EntryMeta[]>();
    const previousMetas = output.readChunk(CHUNKS.entries(b));
    for (const m of (Array.isArray(previousMetas) ? validMetas(previousMetas) : undefined) ?? []) {
      (kept.get(m.id) ?? kept.set(m.id, []).get(m.id)!).push(m);
    }
    const metas: EntryMeta[] = [];
    const declared: DeclaredModule[] = [];
    for (const e of rows) {
      const old = stories.get(e.id);
      const keptMetas = kept.get(e.id);
      let storyMetas: EntryMeta[] | undefined;
      if (old && !affected.has(e.id) && keptMetas && keptMetas.length === languages.length && withModules.has(e.id)) {
        // Unchanged (its digest is the state's, or it would be affected): its module, metadata and
        // references stay as the state holds them.
        storyMetas = keptMetas;
      } else {
        storyMetas = compileStory(e, old);
        compiled++;
      }
      if (!storyMetas) continue;
      metas.push(...storyMetas);
      declared.push({ id: e.id, langs: languages, component: stories.get(e.id)!.component });
      modules += languages.length;
    }
    for (const [rel, text] of [...chunkFiles(b, metas, declared, ctx.prefix), ...viewChunkFiles(b, metas)])
      output.write(rel, text);
  }
  const patched = patchBacklinks(backlinks, changes satisfies StoryChanges, index);
  return { stories, withModules, modules, compiled, backlinks: patched, droppedModules };
}
