/**
 * `ssrModules: 'external'`: the content modules of a server build (SSR, prerender) are left out of
 * its bundle and written beside it, under `<outDir>/content/`, for Node to import at run time.
 * A space of 10,000 stories is 20,000 modules: bundling them is most of a large site's server build,
 * while Node loads only what the pages import. The copies keep their relative imports, so the
 * output is self-contained; with localized assets, their asset URLs (and those of the resized
 * renditions) point at the files written beside them under `<outDir>/<assetsDir>/` (the way
 * `ssrEmitAssets` would), at `<base><assetsDir>/<file name>`.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { SERVER_CONTENT_DIR as CONTENT_DIR } from '../prerender/index.js';
import { ASSET_INDEX } from '../snapshot/index.js';
import type { AssetImports } from './assets.js';

/** Files read, rewritten and written at once: enough to keep the disk busy, few enough for any file limit. */
const COPY_CONCURRENCY = 32;

/** What the plugin hooks see of a build environment (Vite 7 and 8 alike). */
interface Environment {
  mode: string;
  config: { consumer: string; root: string; base: string; build: { outDir: string; assetsDir: string } };
}

/** The environment, when it is a server build whose content modules stay external. */
export function externalServerBuild(
  ssrModules: 'bundle' | 'external',
  environment: Environment | undefined,
): Environment | undefined {
  return ssrModules === 'external' && environment?.mode === 'build' && environment.config.consumer === 'server'
    ? environment
    : undefined;
}

const outDirOf = (environment: Environment): string =>
  path.resolve(environment.config.root, environment.config.build.outDir);

/**
 * An asset file's name in the output, as the bundle names its own: `assetsDir` may be '' (files at
 * the output's root), './' or end in '/', which a plain `${assetsDir}/` turns into `//` (a URL of
 * another host, under the base '/').
 */
const assetName = (assetsDir: string, name: string): string => path.posix.join(assetsDir, name).replace(/^\/+/, '');

/**
 * How the bundle imports a generated file: from its copy in the output, by its absolute path until
 * `relativeImports` makes that relative to the chunk. Undefined for what Node cannot import as it
 * is (declarations, TypeScript).
 */
export function externalModule(
  environment: Environment,
  file: string,
): { id: string; external: 'absolute' } | undefined {
  if (!file.endsWith('.js')) return undefined;
  return { id: path.join(outDirOf(environment), CONTENT_DIR, file), external: 'absolute' };
}

/**
 * A chunk's imports of the content modules made relative to the chunk, so that the output can move.
 * (Rolldown's `external: 'relative'` makes them relative to the importing source file instead.)
 */
export function relativeImports(environment: Environment, code: string, chunkFile: string): string | undefined {
  const outDir = outDirOf(environment);
  const absolute = `${path.join(outDir, CONTENT_DIR)}/`;
  // As the bundler writes it in a string: a path holding `"` or `\` has them escaped there.
  const escaped = JSON.stringify(absolute).slice(1, -1);
  if (!code.includes(absolute) && !code.includes(escaped)) return undefined;
  let relative = path.relative(path.dirname(path.join(outDir, chunkFile)), path.join(outDir, CONTENT_DIR));
  relative = relative.split(path.sep).join('/');
  if (!relative.startsWith('.')) relative = `./${relative}`;
  let out = code;
  for (const written of new Set([absolute, escaped]))
    out = out.replaceAll(`"${written}`, `"${relative}/`).replaceAll(`'${written}`, `'${relative}/`);
  return out;
}

/** Every generated `.js` file under `dir`, relative to it. */
async function modulesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Beside the copies: what they were made with and when, so that a rebuild copies only what changed since. */
const STAMP_FILE = '.content-sync.json';

/**
 * Beside the copies: says they are ES modules. Without it, Node takes the module type from the
 * project's package.json; where that does not say `"type": "module"`, Node parses each of them
 * twice to find out (or refuses them, where it does not detect module syntax).
 */
const PACKAGE_FILE = 'package.json';
const PACKAGE_TEXT = `${JSON.stringify({ type: 'module' })}\n`;

interface Stamp {
  /**
   * Where assets are served from, the asset index the copies were localized with and the sizes of
   * their renditions: a change rewrites all.
   */
  key: string;
  /** When the last copy started (ms since the epoch): a module modified before it was copied then. */
  started: number;
  /** The asset files the copies show (names in the assets directory), so that those no copy shows any more go. */
  assets?: string[];
}

/**
 * The generation of how copies are made, raised when a copy an earlier version made of the same module
 * differs (2: asset URLs joined as Vite joins its own, where `build.assetsDir` '' made them `//<file>`):
 * copies kept from before are then all made again, not only those whose modules changed since.
 */
const COPIES_VERSION = 2;

async function keyOf(environment: Environment, snapshotDir: string, assets: AssetImports | undefined): Promise<string> {
  const { base, build } = environment.config;
  const index = assets ? await fs.stat(path.join(snapshotDir, ASSET_INDEX)).catch(() => undefined) : undefined;
  return JSON.stringify({
    base,
    assetsDir: build.assetsDir,
    assetIndex: index?.mtimeMs ?? null,
    renditions: assets?.renditionKey ?? null,
    copies: COPIES_VERSION,
  });
}

async function readStamp(file: string): Promise<Stamp | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

/**
 * Writes the generated modules into the server output, after the bundle (writeBundle), and the
 * asset files they show. When the output kept the copies of the last build (`emptyOutDir: false`),
 * only the modules changed since are written again and those of removed stories deleted, and the
 * asset files the last copies showed that none shows now are deleted (unless the bundle, `emitted`,
 * wrote them): an image taken out of the space leaves the output as it leaves a build from nothing.
 * Returns how many modules and assets it wrote.
 */
export async function writeServerModules(
  environment: Environment,
  modulesDir: string,
  snapshotDir: string,
  assets: AssetImports | undefined,
  /** The files the bundle wrote, relative to the output directory. */
  emitted: ReadonlySet<string> = new Set(),
): Promise<{ modules: number; assets: number }> {
  const outDir = outDirOf(environment);
  const target = path.join(outDir, CONTENT_DIR);
  const { assetsDir } = environment.config.build;
  const stampFile = path.join(target, STAMP_FILE);
  const stamp: Stamp = { key: await keyOf(environment, snapshotDir, assets), started: Date.now() };
  const last = await readStamp(stampFile);
  const rewriteAll = last?.key !== stamp.key;
  // Until this copy is done, a stamp no key matches (copies a killed build left half-written are
  // never trusted), which still names the asset files the last copies showed: written before
  // anything is removed, and kept while the old copies go.
  const owned = last?.assets ?? [];
  await fs.mkdir(target, { recursive: true });
  await fs.writeFile(stampFile, JSON.stringify({ key: '', started: 0, assets: owned } satisfies Stamp));
  if (rewriteAll)
    for (const entry of await fs.readdir(target))
      if (entry !== STAMP_FILE) await fs.rm(path.join(target, entry), { recursive: true, force: true });
  const [files, copies] = await Promise.all([modulesUnder(modulesDir), modulesUnder(target).catch(() => [])]);
  const current = new Set(files);
  const copied = new Set(copies);
  const queue = new PQueue({ concurrency: COPY_CONCURRENCY });
  await queue.addAll(copies.filter((f) => !current.has(f)).map((f) => () => fs.rm(path.join(target, f))));
  for (const dir of new Set(files.map((f) => path.dirname(f))))
    await fs.mkdir(path.join(target, dir), { recursive: true });
  await fs.writeFile(path.join(target, PACKAGE_FILE), PACKAGE_TEXT);
  const shown = new Set<string>();
  const urlOf = (file: string) => {
    shown.add(file);
    return `${environment.config.base}${assetName(assetsDir, path.basename(file))}`;
  };
  let modules = 0;
  await queue.addAll(
    files.map((file) => async () => {
      const source = path.join(modulesDir, file);
      if (!rewriteAll && copied.has(file) && (await fs.stat(source)).mtimeMs < last!.started) return;
      const code = await fs.readFile(source, 'utf8');
      const localized = assets && (await assets.localize(code, urlOf));
      await fs.writeFile(path.join(target, file), localized ?? code);
      modules++;
    }),
  );
  const placed = await placeAssets(shown, {
    assetsOut: path.join(outDir, assetsDir),
    owned,
    // Every copy was localized again: what they show now is all they show. (With the same key the
    // asset index is the one the copies kept were localized with: nothing left it.)
    complete: rewriteAll,
    emitted: (name) => emitted.has(assetName(assetsDir, name)),
    stampFile,
    queue,
  });
  await fs.writeFile(stampFile, JSON.stringify({ ...stamp, assets: placed.assets } satisfies Stamp));
  return { modules, assets: placed.written };
}

/**
 * Copies the asset files the copies show (`shown`) into the assets directory, and, when `shown` is
 * all they show (`complete`), removes the ones the last copies showed (`owned`) and these do not,
 * unless the bundle wrote them. The unfinished stamp names every file copied before it is: a build
 * killed meanwhile leaves none that the next one does not know of. Returns how many it copied, and
 * the names the copies show from now on.
 */
async function placeAssets(
  shown: ReadonlySet<string>,
  o: {
    assetsOut: string;
    owned: readonly string[];
    complete: boolean;
    emitted: (name: string) => boolean;
    stampFile: string;
    queue: PQueue;
  },
): Promise<{ written: number; assets: string[] }> {
  const names = new Set([...shown].map((file) => path.basename(file)));
  const known = new Set([...o.owned, ...names]);
  await fs.writeFile(o.stampFile, JSON.stringify({ key: '', started: 0, assets: [...known].sort() } satisfies Stamp));
  await fs.mkdir(o.assetsOut, { recursive: true });
  let written = 0;
  await o.queue.addAll(
    [...shown].map((file) => async () => {
      const to = path.join(o.assetsOut, path.basename(file));
      // Named by its digest (and a rendition's width): one of the same size is the same file.
      const [from, there] = await Promise.all([fs.stat(file), fs.stat(to).catch(() => undefined)]);
      if (there?.size === from.size) return;
      await fs.copyFile(file, to);
      written++;
    }),
  );
  if (!o.complete) return { written, assets: [...known].sort() };
  const gone = o.owned.filter((name) => !names.has(name) && !o.emitted(name));
  await o.queue.addAll(gone.map((name) => () => fs.rm(path.join(o.assetsOut, path.basename(name)), { force: true })));
  return { written, assets: [...names].sort() };
}
