/**
 * Reading a space directory into memory, validating every file against the
 * format. A malformed file is an error that names the file and what is wrong.
 */
import fsSync, { promises as fs, readFileSync, readdirSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Space } from '../api/index.js';
import { MAX_CONTENT_NESTING, canonicalJson, deeperThan, nestingDepth, sha256 } from './json.js';
import {
  DatasourceRecord,
  FILES,
  Folder,
  Manifest,
  Release,
  StoryRecord,
  WorkflowStage,
  newerFormatReason,
  type SpaceData,
} from './format.js';
import { type AssetIndex, readAssetIndex } from './assets.js';
import { SnapshotBusyError, openForReading } from './transaction.js';

export class SpaceDirectoryError extends Error {
  override name = 'SpaceDirectoryError';
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new SpaceDirectoryError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return parseJson(text, file);
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SpaceDirectoryError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * A JSON file our own writers produced (indexes, state): one synchronous
 * read, several times faster than the chunked reads of fs.promises for
 * megabytes. Errors are the caller's to word.
 */
export async function readJsonFile(file: string): Promise<unknown> {
  return JSON.parse(fsSync.readFileSync(file, 'utf8'));
}

/**
 * Identity of a file's bytes as far as the file system tells it: renaming a
 * new file into place gives a new inode, an edit in place moves the
 * modification time.
 */
export const stampOfStats = (st: BigIntStats): string => `${st.ino}:${st.size}:${st.mtimeNs}`;

/** `stampOfStats` of a file, or undefined if it cannot be read (one stat, made synchronously: see readOptional). */
export async function fileStamp(file: string): Promise<string | undefined> {
  try {
    return stampOfStats(fsSync.statSync(file, { bigint: true }));
  } catch {
    return undefined;
  }
}

/** Parse options for a value read once: zod's generated fast path costs more to build than it saves (milliseconds, before every compile). */
const ONE = { jitless: true } as const;

/** `one`: the only value of this schema read here (parsed with ONE). */
function check<T extends z.ZodType>(schema: T, value: unknown, file: string, one = false): z.output<T> {
  const result = schema.safeParse(value, one ? ONE : undefined);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(root)';
    throw new SpaceDirectoryError(`${file}: ${where}: ${issue.message}`);
  }
  return result.data;
}

/**
 * A small file read synchronously: on the thread pool, its access, open, stat, read and close
 * would each wait for a round trip (milliseconds apiece on a loaded machine, before every compile).
 */
async function readOptional<T extends z.ZodType>(
  dir: string,
  name: string,
  schema: T,
  digests?: FileDigests,
): Promise<z.output<T> | undefined> {
  const file = path.join(dir, name);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SpaceDirectoryError(`cannot read ${file}: ${(err as Error).message}`);
  }
  digests?.set(name, digestOf(bytes));
  return check(schema, parseJson(bytes.toString('utf8'), file), file, true);
}

/** Digests of a space directory's files by their path in it (see readSpaceDirectory). */
export type FileDigests = Map<string, string>;

const digestOf = (bytes: Uint8Array | string): string => sha256(bytes).slice(0, 32);

/** What a read took of one record file: its digest and its record, checked. */
interface KeptFile {
  digest: string;
  value: unknown;
}

/**
 * Longest a file's modification time can trail the clock of the read that took it (file systems
 * keep it coarsely, FAT in 2 s steps): a file changed later than this before a read may change again
 * within the same stamp, so it is not kept.
 */
const SETTLED_NS = 2_000_000_000n;

/**
 * The record files a read of a space directory took, for the next read of the same directory: a
 * file of the same stamp (inode, size, modification and change times) is taken as read then, its
 * record as checked, not read again. A dev server reads its embedded directory again after each
 * file saved there: read whole, that was 6 s at 20,000 stories per save. Only files settled before
 * the read are kept (SETTLED_NS); a read that fails leaves what was kept as it was.
 */
export class RecordFileCache {
  #dir: string | undefined;
  #files = new Map<string, KeptFile & { stamp: string }>();

  /** One read of `dir`; what it keeps replaces this cache's when it is done. */
  begin(dir: string): KeptRead {
    const before = this.#dir === dir ? this.#files : new Map<string, KeptFile & { stamp: string }>();
    const after = new Map<string, KeptFile & { stamp: string }>();
    const settled = BigInt(Date.now()) * 1_000_000n - SETTLED_NS;
    return {
      stampOf: (file) => {
        try {
          const st = fsSync.statSync(file, { bigint: true });
          return st.mtimeNs < settled && st.ctimeNs < settled ? `${stampOfStats(st)}:${st.ctimeNs}` : undefined;
        } catch {
          return undefined;
        }
      },
      earlier: (rel, stamp) => {
        const file = before.get(rel);
        if (file?.stamp !== stamp) return undefined;
        after.set(rel, file);
        return file;
      },
      keep: (rel, stamp, file) => void after.set(rel, { ...file, stamp }),
      done: () => {
        this.#dir = dir;
        this.#files = after;
      },
    };
  }
}

/** One read's use of a RecordFileCache. */
interface KeptRead {
  /** The stamp of a file settled before the read, else undefined (read it, keep nothing). */
  stampOf(file: string): string | undefined;
  /** What an earlier read took of `rel` at the same stamp. */
  earlier(rel: string, stamp: string): KeptFile | undefined;
  keep(rel: string, stamp: string, file: KeptFile): void;
  done(): void;
}

/**
 * Reads every `<id>.json` in a folder, in id order. Small files are read
 * synchronously in batches (much faster than one thread-pool job each),
 * yielding to the event loop between batches.
 */
async function readEntries<T extends z.ZodType>(
  dir: string,
  name: string,
  schema: T,
  digests?: FileDigests,
  kept?: KeptRead,
): Promise<z.output<T>[]> {
  const folder = path.join(dir, name);
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => /^\d+\.json$/.test(n));
  } catch (err) {
    // None is a space without any (a directory made by hand); one that cannot be listed is not.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new SpaceDirectoryError(`cannot read ${folder}: ${(err as Error).message}`);
  }
  names.sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
  const out: z.output<T>[] = new Array(names.length);
  for (let i = 0; i < names.length; i++) {
    if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    const file = path.join(folder, names[i]!);
    const rel = `${name}/${names[i]}`;
    const stamp = kept?.stampOf(file);
    const earlier = stamp === undefined ? undefined : kept!.earlier(rel, stamp);
    if (earlier) {
      digests?.set(rel, earlier.digest);
      out[i] = earlier.value as z.output<T>;
      continue;
    }
    let value: unknown;
    let digest: string;
    try {
      const bytes = readFileSync(file);
      digest = digestOf(bytes);
      digests?.set(rel, digest);
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new SpaceDirectoryError(`cannot read ${file}: ${(err as Error).message}`);
    }
    const checked = check(schema, value, file);
    const id = (checked as { id?: unknown }).id ?? (checked as { datasource?: { id?: unknown } }).datasource?.id;
    // Exactly `<id>.json`: `012.json` beside `12.json` would be a second record of story 12.
    if (`${String(id)}.json` !== names[i]) {
      throw new SpaceDirectoryError(`${file}: the file name must be the entry's id (found id ${String(id)})`);
    }
    if (stamp !== undefined) kept!.keep(rel, stamp, { digest, value: checked });
    out[i] = checked;
  }
  return out;
}

export async function readManifest(dir: string): Promise<Manifest | undefined> {
  return readOptional(dir, FILES.manifest, Manifest);
}

/** Throws when a newer version wrote the directory (see newerFormatReason); a manifest missing or unreadable is left to its reader. */
export function refuseNewerFormat(dir: string, hint = ''): void {
  let format: unknown;
  try {
    format = (JSON.parse(readFileSync(path.join(dir, FILES.manifest), 'utf8')) as { format?: unknown } | null)?.format;
  } catch {
    return;
  }
  const reason = newerFormatReason(dir, format);
  if (reason) throw new SpaceDirectoryError(`${reason}${hint}`);
}

/**
 * Loads a whole space directory. `digests`, when given, receives a digest of each file read, of
 * the bytes read (so of the content loaded), by its path in the directory: the space's file
 * without its version (which every write moves), then every other file but the manifest (which
 * only describes the others).
 */
export async function readSpaceDirectory(
  dir: string,
  digests?: FileDigests,
  cache?: RecordFileCache,
): Promise<SpaceData> {
  // A commit under way is waited for (one a killed writer left, finished), and none starts until the whole directory is read.
  const reading = await openForReading(dir).catch((err: unknown) => {
    throw err instanceof SnapshotBusyError ? new SpaceDirectoryError(err.message) : err;
  });
  try {
    const kept = cache?.begin(dir);
    const data = await readOpened(dir, digests, kept);
    kept?.done();
    return data;
  } finally {
    await reading.close();
  }
}

async function readOpened(
  dir: string,
  digests: FileDigests | undefined,
  kept: KeptRead | undefined,
): Promise<SpaceData> {
  const spaceFile = path.join(dir, FILES.space);
  try {
    await fs.access(spaceFile);
  } catch {
    throw new SpaceDirectoryError(
      `${dir} is not a space directory (no ${FILES.space}); create one with \`content-sync demo --out DIR\` (DIR new or empty) or \`content-sync sync\``,
    );
  }
  // Before its records, which a newer format may shape otherwise.
  refuseNewerFormat(dir);
  const space = check(Space, await readJson(spaceFile), spaceFile, true);
  if (digests) {
    const { version: _, ...unversioned } = space;
    digests.set(FILES.space, digestOf(canonicalJson(unversioned)));
  }
  const [stories, datasources, folders, releases, workflowStages, described] = await Promise.all([
    readEntries(dir, FILES.stories, StoryRecord, digests, kept),
    readEntries(dir, FILES.datasources, DatasourceRecord, digests, kept),
    readOptional(dir, FILES.folders, Folder.array(), digests),
    readOptional(dir, FILES.releases, Release.array(), digests),
    readOptional(dir, FILES.workflowStages, WorkflowStage.array(), digests),
    readOptional(dir, FILES.manifest, ManifestViews),
  ]);
  const assets = await readAssetIndex(dir);
  /** The story of each uuid: two stories of one uuid would be one story to every client. */
  const byUuid = new Map<string, number>();
  for (const record of stories) {
    const fileId = record.id;
    const file = () => path.join(dir, FILES.stories, `${fileId}.json`);
    const twin = byUuid.get(record.uuid);
    if (twin !== undefined)
      throw new SpaceDirectoryError(`${file()}: its uuid ${record.uuid} is also the uuid of story ${twin}`);
    byUuid.set(record.uuid, fileId);
    for (const v of [record.published, record.draft]) {
      if (v && (v.story.id !== fileId || v.story.uuid !== record.uuid))
        throw new SpaceDirectoryError(`${file()}: story id/uuid differ from the record's`);
    }
    // Content the control plane would refuse: the service could load it but not serve it (its walks
    // would overflow on every listing). A version holds its content two levels down, an overlay three.
    for (const v of [record.published, record.draft, ...Object.values(record.releases ?? {})]) {
      if (v && deeperThan(v, MAX_CONTENT_NESTING + 3))
        throw new SpaceDirectoryError(
          `${file()}: its content is nested ${nestingDepth(v) - 2} levels deep, more than the ${MAX_CONTENT_NESTING} ` +
            'the service accepts; flatten the story',
        );
    }
  }
  checkDatasourceSlugs(dir, datasources);
  assertOwnIdentities(path.join(dir, FILES.folders), folders ?? [], byUuid);
  return {
    space,
    stories,
    datasources,
    folders: folders ?? [],
    releases: releases ?? [],
    workflowStages: workflowStages ?? [],
    ...(described?.views ? { views: described.views } : {}),
    ...(assets ? { assetFiles: heldAssetFiles(dir, assets) } : {}),
  };
}

/**
 * What the manifest says of the views the directory holds: a snapshot synced with one view has no
 * other (its records lack drafts, or published versions), which the service must not serve as empty
 * or as the other view. Only this is read of it: a directory made by hand may have none.
 */
const ManifestViews = z.looseObject({ views: z.array(z.enum(['published', 'draft'])).optional() });

/** The file of each asset path the index names, in the directory (served for that asset's URL). */
function heldAssetFiles(dir: string, index: AssetIndex): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [assetPath, file] of Object.entries(index.files)) files[assetPath] = path.resolve(dir, file.file);
  return files;
}

/**
 * Each datasource slug once: clients address a datasource by its slug, so two of one slug would be
 * one datasource to every client (the service answers the entries of both for it).
 */
function checkDatasourceSlugs(dir: string, datasources: readonly DatasourceRecord[]): void {
  const bySlug = new Map<string, number>();
  for (const { datasource } of datasources) {
    const twin = bySlug.get(datasource.slug);
    if (twin !== undefined)
      throw new SpaceDirectoryError(
        `${path.join(dir, FILES.datasources, `${datasource.id}.json`)}: its slug ${JSON.stringify(datasource.slug)} is also the slug of datasource ${twin}`,
      );
    bySlug.set(datasource.slug, datasource.id);
  }
}

/**
 * Folders and stories are one kind to clients (a link names either by uuid, the control plane
 * either by id): a folder sharing a story's uuid or id, or another folder's, would be the other.
 */
function assertOwnIdentities(file: string, folders: readonly Folder[], storyUuids: ReadonlyMap<string, number>): void {
  const uuids = new Map<string, string>([...storyUuids].map(([uuid, id]) => [uuid, `story ${id}`]));
  const ids = new Set<number>(storyUuids.values());
  for (const f of folders) {
    const twin = uuids.get(f.uuid);
    if (twin !== undefined)
      throw new SpaceDirectoryError(`${file}: folder ${f.id}: its uuid ${f.uuid} is also the uuid of ${twin}`);
    if (ids.has(f.id))
      throw new SpaceDirectoryError(`${file}: folder ${f.id}: its id is also the id of another story or folder`);
    uuids.set(f.uuid, `folder ${f.id}`);
    ids.add(f.id);
  }
}

/** The text of a file of a snapshot (or of a transaction's staging), or undefined if it cannot be read. */
export async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}
