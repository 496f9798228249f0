/**
 * A full compile: every chunk compiled and written, in worker threads when
 * there are many. What this thread learns of each chunk is taken in as the
 * chunk finishes (a worker's chunk while this thread would otherwise wait for
 * it); what shows the chunks' order (files, warnings), in order.
 */
import { BacklinkGatherer } from './backlinks.js';
import type { CompileContext, CompiledStories } from './context.js';
import { chunkMembers } from './emit.js';
import { compileInThreads, type CompileWorkers } from './parallel.js';
import { encodeRefs, storedRefs, type EncodedIndex } from './state.js';
import { compileFullChunk, positionOfId, type ChunkResult, type LedgerEntry } from './story.js';

export interface FullCompile extends CompiledStories {
  /** The state's stored references, worked out as the chunks came in (see EncodedIndex). */
  encoded: EncodedIndex;
}

/** `threads`: this one included; `workers`: the pool to compile in when there is more than one. */
export async function compileFull(
  ctx: CompileContext,
  threads: number,
  workers: () => CompileWorkers,
): Promise<FullCompile> {
  const { index, chunkTotal, output } = ctx;
  const languages = ctx.setup.languages;
  const members = chunkMembers(index, chunkTotal);
  const stories = new Map<number, LedgerEntry>();
  const withModules = new Set<number>();
  /** The state's stored references (see stateText), by position in the index. */
  const encoded = { refs: new Array<string>(index.length), imports: new Array<string>(index.length), index };
  /** Backlinks, gathered as chunks finish (while the other threads still compile). */
  const gatherer = new BacklinkGatherer(index.map((e) => e.uuid));
  const filesOf: Array<ChunkResult['files']> = [];
  const missingOf: Array<ChunkResult['missing']> = [];
  let modules = 0;
  let compiled = 0;
  // Where each reference is in the index: where the state file will list it when every story of
  // the index has a module; so the state's references are worked out here too.
  // (Mapped when the first chunk is in, not before the other threads are given their work.)
  let positionOfUuid: Map<string, number> | undefined;
  const indexPosition = (u: string): number | undefined =>
    (positionOfUuid ??= new Map(index.map((e, at) => [e.uuid, at]))).get(u);
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
      stories.set(id, s);
      withModules.add(id);
      [encoded.refs[at], encoded.imports[at]] = encodeRefs(stored);
      s.references.forEach((u, k) => {
        gatherer.add(at, positions[k], u);
      });
    }
    modules += r.stories.length * languages.length;
    compiled += members[b]!.length;
    filesOf[b] = r.files;
    missingOf[b] = r.missing;
    ctx.onProgress?.(compiled, index.length);
  };
  const local = (b: number) => compileFullChunk(ctx.compiler, b, members[b]!, ctx.prefix, output.writer);
  if (threads > 1 && chunkTotal > 1) {
    const parallel = await compileInThreads(
      workers(),
      index,
      members,
      threads,
      (b) => local(b),
      (_done, b, r) => take(b, r),
    );
    for (const types of parallel.types) ctx.inferrer.merge(JSON.parse(types));
  } else {
    for (let b = 0; b < chunkTotal; b++) take(b, local(b));
  }
  for (let b = 0; b < chunkTotal; b++) {
    for (const [rel, digest] of filesOf[b]!) output.wrote(rel, digest);
    ctx.missing.push(...missingOf[b]!);
  }
  return { stories, withModules, modules, compiled, backlinks: gatherer.byChunk(chunkTotal), encoded };
}
