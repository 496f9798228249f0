/**
 * The output directory of one compile: writes files, keeps those whose bytes
 * would not change (so bytes and mtime stay), records the digests the state
 * keeps and what was written, reads back chunks of the last compile, and at
 * the end removes what the last compile wrote that this one did not.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_NAMES, moduleId, rawModulePath, storyModulePath } from './emit.js';
import { FileWriter, fileDigest } from './story.js';

export class Output {
  /** The files this compile wrote (relative paths). */
  readonly written: string[] = [];
  /** The digest of every file this compile produced besides story modules, written or kept. */
  readonly files: Record<string, string> = {};
  readonly writer: FileWriter;
  /** The last compile's digests, of the files this compile may keep. */
  readonly #old: Readonly<Record<string, string>>;
  /** Chunks of the last compile found changed on disk since (or unreadable): written again even if their bytes are due unchanged. */
  readonly #altered = new Set<string>();
  /** Raw modules this compile replaced, as they were: previous story modules import them (see previousText). */
  readonly #replacedRaw = new Map<string, string>();

  constructor(
    readonly dir: string,
    oldFiles: Readonly<Record<string, string>>,
  ) {
    this.writer = new FileWriter(dir);
    this.#old = oldFiles;
  }

  /** The data of a chunk of the last compile, as it wrote it (see readJsonChunk); noted as altered when it is not. */
  readChunk(rel: string): unknown {
    const data = readJsonChunk(this.dir, rel, this.#old);
    if (data === undefined && this.#old[rel] !== undefined) this.#altered.add(rel);
    return data;
  }

  /** Writes a file whose digest the state keeps (the chunks and shared files, read back or compared later). */
  write(rel: string, text: string): void {
    const digest = fileDigest(text);
    this.files[rel] = digest;
    if (this.#old[rel] === digest && !this.#altered.has(rel)) return;
    this.put(rel, text);
  }

  /** A file a chunk's compile wrote through the writer (in this thread or another), with its digest. */
  wrote(rel: string, digest: string): void {
    this.files[rel] = digest;
    this.written.push(rel);
  }

  /**
   * Writes a story's two modules: the state only notes they exist; one of a story that had modules
   * (`had`) is compared with what is on disk, and not touched when its bytes are the same.
   */
  writeStory(id: number, compiled: { source: string; raw: string }, had: boolean): void {
    for (const [rel, text, isRaw] of [
      [rawModulePath(id), compiled.raw, true],
      [storyModulePath(id), compiled.source, false],
    ] as const) {
      if (had) {
        try {
          const before = readFileSync(path.join(this.dir, rel), 'utf8');
          if (before === text) continue;
          if (isRaw) this.#replacedRaw.set(rel, before);
        } catch {
          // Gone: write it.
        }
      }
      this.put(rel, text);
    }
  }

  /** The text of a module as the last compile wrote it (a raw module this compile replaced, as it was). */
  previousText(rel: string): string {
    return this.#replacedRaw.get(rel) ?? readFileSync(path.join(this.dir, rel), 'utf8');
  }

  /** An unchanged file of the last compile, kept as it is. */
  keep(rel: string): boolean {
    const digest = this.#old[rel];
    if (digest === undefined) return false;
    this.files[rel] = digest;
    return true;
  }

  put(rel: string, text: string): void {
    this.written.push(rel);
    this.writer.put(rel, text);
  }

  /**
   * Removes the files the last compile wrote that this one did not: `lastFiles` and the modules of
   * `goneModules`; `leftovers`, the generated files found in the directory when the last compile's
   * list is unknown, unless this compile wrote them (`withModules`: the stories that have modules).
   * Returns what it removed, sorted.
   */
  removeStale(
    lastFiles: Readonly<Record<string, string>> | undefined,
    goneModules: Iterable<number>,
    leftovers: readonly string[] | undefined,
    withModules: ReadonlySet<number>,
  ): string[] {
    const stale: string[] = [];
    for (const rel of Object.keys(lastFiles ?? {})) if (!(rel in this.files)) stale.push(rel);
    for (const id of goneModules) stale.push(storyModulePath(id), rawModulePath(id));
    for (const rel of leftovers ?? []) {
      const id = moduleId(rel);
      if (id === undefined ? !(rel in this.files) : !withModules.has(id)) stale.push(rel);
    }
    const deleted: string[] = [];
    for (const rel of stale) {
      if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) continue;
      deleted.push(rel);
      rmSync(path.join(this.dir, rel), { force: true });
    }
    return deleted.sort();
  }
}

/** The modules of stories and the chunks in an output directory, as paths relative to it (none when it does not exist). */
export function generatedFiles(out: string): string[] {
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

/** The data of a generated chunk (`export default <json>;`) if it is still as the last compile wrote it. */
function readJsonChunk(out: string, rel: string, digests: Readonly<Record<string, string>>): unknown {
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
