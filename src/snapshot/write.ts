/**
 * Writing a whole space directory. The new directory is built beside the
 * target and swapped in with renames, so a reader sees the old directory or
 * the new one, and a crash leaves the old one in place.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import fse from 'fs-extra';
import { FILES, FORMAT_VERSION, SPACE_DIRECTORY_NAMES, type Manifest, type SpaceData } from './format.js';
import { canonicalJson, sha256 } from './json.js';
import { DEFAULT_LANG } from './format.js';

export interface WriteOptions {
  /** Extra manifest fields (api version, sync time, ...). */
  manifest?: Partial<Manifest>;
}

/** The manifest that describes `data`. */
export function buildManifest(
  data: SpaceData,
  fileDigests: Map<string, string>,
  extra: Partial<Manifest> = {},
): Manifest {
  const digests: Record<string, string> = {};
  for (const [name, digest] of [...fileDigests].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    digests[name] = digest;
  const languages = [DEFAULT_LANG, ...data.space.language_codes];
  const published = data.stories.filter((s) => s.published).length;
  return {
    format: FORMAT_VERSION,
    space: data.space,
    cv: data.space.version,
    views: data.views ?? ['published', 'draft'],
    languages,
    counts: {
      stories: data.stories.length,
      published,
      folders: data.folders.length,
      datasources: data.datasources.length,
      datasource_entries: data.datasources.reduce((n, d) => n + d.entries.length, 0),
    },
    digests: {
      all: sha256(
        Object.entries(digests)
          .map(([k, v]) => `${k} ${v}\n`)
          .join(''),
      ),
    },
    ...extra,
  } as Manifest;
}

/** Serializes every file of the directory: relative path -> text. */
export function* spaceFiles(data: SpaceData): Generator<[string, string]> {
  yield [FILES.space, canonicalJson(data.space)];
  if (data.folders.length) yield [FILES.folders, canonicalJson([...data.folders].sort((a, b) => a.id - b.id))];
  if (data.releases.length) yield [FILES.releases, canonicalJson([...data.releases].sort((a, b) => a.id - b.id))];
  if (data.workflowStages.length)
    yield [FILES.workflowStages, canonicalJson([...data.workflowStages].sort((a, b) => a.id - b.id))];
  for (const record of data.stories) yield [`${FILES.stories}/${record.id}.json`, canonicalJson(record)];
  for (const ds of data.datasources) yield [`${FILES.datasources}/${ds.datasource.id}.json`, canonicalJson(ds)];
}

/** Writes `data` as a complete space directory at `dir`, replacing what was there. */
export async function writeSpaceDirectory(dir: string, data: SpaceData, options: WriteOptions = {}): Promise<Manifest> {
  const target = path.resolve(dir);
  await finishSwap(target);
  const hidden = await replaceable(target);
  const parent = path.dirname(target);
  await fs.mkdir(parent, { recursive: true });
  // Made with mkdir (not mkdtemp, whose directories are private): the mode is the umask's, as for any directory.
  const staging = path.join(parent, `.${path.basename(target)}.staging-${randomBytes(6).toString('hex')}`);
  await fs.mkdir(staging);
  try {
    await fs.mkdir(path.join(staging, FILES.stories));
    await fs.mkdir(path.join(staging, FILES.datasources));
    const digests = new Map<string, string>();
    const pending: Promise<void>[] = [];
    for (const [name, text] of spaceFiles(data)) {
      digests.set(name, sha256(text));
      pending.push(fs.writeFile(path.join(staging, name), text));
      if (pending.length >= 64) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
    const manifest = buildManifest(data, digests, options.manifest);
    await fs.writeFile(path.join(staging, FILES.manifest), canonicalJson(manifest));
    await swapIn(staging, target, hidden);
    return manifest;
  } catch (err) {
    await fse.remove(staging);
    throw err;
  }
}

/**
 * A space directory replaces what is at `target` whole: nothing, a directory holding only hidden
 * entries (a .gitkeep), or another space directory; its hidden entries (a .git, a .gitignore) are
 * kept. Anything else (someone's files, a folder of recordings, a project's own directory) is
 * refused, naming it. Returns the hidden entries to keep.
 */
async function replaceable(target: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await fs.readdir(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR')
      throw new Error(`${fileOnTheWay(target)} is a file: a space directory is written only where there is none`);
    throw err;
  }
  const hidden = entries.filter((e) => e.startsWith('.'));
  if (hidden.length === entries.length) return hidden;
  if (!entries.includes(FILES.space))
    throw new Error(
      `${target} holds other files and is not a space directory (no ${FILES.space}): a space directory replaces only an empty directory or another space directory; choose a new directory`,
    );
  // A space.json beside someone's files (a project's own directory, notes kept with a space) is no
  // space directory: the files would be removed with the old tree.
  const foreign = entries.filter((e) => !e.startsWith('.') && !SPACE_DIRECTORY_NAMES.has(e));
  if (foreign.length === 0) return hidden;
  throw new Error(
    `${target} holds files that are not a space directory's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}): a space directory replaces only an empty directory or another space directory; choose a new directory`,
  );
}

/** Replaces `target` by `staging` with two renames; the `hidden` entries of the old tree move over, the rest is removed after. */
async function swapIn(staging: string, target: string, hidden: readonly string[]): Promise<void> {
  const exists = await fse.pathExists(target);
  if (!exists) {
    await fs.rename(staging, target);
    return;
  }
  const old = `${staging}.old`;
  await fs.rename(target, old);
  await fs.rename(staging, target);
  for (const entry of hidden) await fs.rename(path.join(old, entry), path.join(target, entry));
  await fse.remove(old);
}

/**
 * Finishes what a write killed inside swapIn left: the old tree aside (`.<name>.staging-<hex>.old`)
 * and no target is put back (the previous directory stands); beside a target already swapped in,
 * the hidden entries it kept (a .git) are moved over and the rest removed.
 */
async function finishSwap(target: string): Promise<void> {
  const parent = path.dirname(target);
  const prefix = `.${path.basename(target)}.staging-`;
  const names = await fs.readdir(parent).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(prefix) && n.endsWith('.old'))) {
    const old = path.join(parent, name);
    if (!(await fse.pathExists(target))) {
      await fs.rename(old, target);
      continue;
    }
    const present = new Set(await fs.readdir(target));
    for (const entry of await fs.readdir(old))
      if (entry.startsWith('.') && !present.has(entry))
        await fs.rename(path.join(old, entry), path.join(target, entry));
    await fse.remove(old);
  }
}

/** The path itself or the first of its parents that exists, for a path that ENOTDIR says goes through a file. */
function fileOnTheWay(target: string): string {
  let at = target;
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}
