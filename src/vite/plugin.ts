/**
 * `contentSync(options)`: content as typed imports that stay fresh.
 *
 * - buildStart: incremental sync and compile (one request when nothing changed).
 * - `import { getStory } from 'content:index'`, `import story, { de } from 'content:stories/<id>'`,
 *   `content:index/<lang>`, `content:index/<lang>/<component>`, `content:datasources`,
 *   `content:tags`, `content:backlinks`: the generated modules (see compile's `servedFile`).
 * - dev: `POST <webhook.path>` with a valid `webhook-signature` answers 202 at once, then
 *   syncs what the payload names, compiles, and reloads exactly the modules that changed in
 *   every environment (HMR where a boundary accepts them, a page reload otherwise).
 *
 * The hooks guard and delegate: the pipeline's lifecycle is pipeline-lease.ts's, a dev server's
 * updates dev-server.ts's, and which of the open servers gets the embedded service's changes
 * open-servers.ts's.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { DevEnvironment, Environment, Plugin, ResolvedConfig, UserConfig, Logger as ViteLogger } from 'vite';
import { MODULE_FORMS, servedFile } from '../compile/index.js';
import { count } from '../text/index.js';
import { AssetImports } from './assets.js';
import { devModule, devResolve, viewChunksAhead } from './dev-modules.js';
import { type DevPlugin, DevServer } from './dev-server.js';
import { OpenServers } from './open-servers.js';
import { assetDownloads, type ContentSyncOptions, parseOptions, type ResolvedOptions } from './options.js';
import type { ContentPipeline, Logger, RefreshResult } from './pipeline.js';
import { PipelineLease } from './pipeline-lease.js';
import { type ProjectEnv, projectEnv } from './project-env.js';
import { type RenditionCounts, Renditions } from './renditions.js';
import { externalModule, externalServerBuild, relativeImports, writeServerModules } from './server-modules.js';
import { holdPipeline } from './shared-pipeline.js';

/** A dev server's environment, which can transform a module ahead of its request. */
const isDevEnvironment = (env: Environment | undefined): env is DevEnvironment => env?.mode === 'dev';

/**
 * The server's module runner imports a view's chunks one after another: those of view `id` that
 * the environment never loaded are transformed ahead, together. Not one it knows: if a change
 * invalidated it, a runner must transform it again itself, as ssrLoadModule's runner (SvelteKit's)
 * re-evaluates a module only when its own request finds it untransformed, and otherwise keeps the
 * old one for good (the environment's runner, Astro's, empties its cache on the page reload).
 */
function warmViewChunks(env: DevEnvironment, modulesDir: string, id: string): void {
  for (const chunk of viewChunksAhead(modulesDir, id) ?? [])
    if (!env.moduleGraph.getModuleById(chunk)) void env.warmupRequest(chunk);
}

export const IMPORT_PREFIX = 'content:';

export const PLUGIN_NAME = 'vite-plugin-content-sync';

/** `plugin.api` of the content-sync plugin. */
export interface ContentSyncApi {
  /** Undefined until the first build or dev request starts it. */
  readonly pipeline: ContentPipeline | undefined;
  /**
   * Sync and compile once with the plugin's options, then stop the embedded service: what
   * `content-sync prepare` runs after Vite resolved the config (so after `configResolved`).
   */
  prepare(): Promise<RefreshResult>;
  /** Localized images resized by the builds of this plugin so far, and those found in the cache. */
  readonly images: RenditionCounts;
}

/**
 * The plugin as its users' configs see it. Declared without Vite's own types so that it is
 * assignable to `PluginOption` of every supported Vite major, whichever one the app installed.
 */
export interface ContentSyncPlugin {
  readonly name: typeof PLUGIN_NAME;
  readonly enforce: 'pre';
  readonly api: ContentSyncApi;
}

/** What Vite's resolved config tells an instance (configResolved): read when used, as a later config replaces it. */
interface Resolved {
  root: string;
  logger: Logger;
  /** Vite's dev server (or another server of Vite's, such as a test runner's), not a build. */
  serving: boolean;
  /** The server is Vitest's, running the project's unit tests: it serves no pages. */
  testRunner: boolean;
  /** CONTENT_* settings: the project's .env files for the mode, the environment over them. */
  env: ProjectEnv;
}

/** Each instance's options as its pipeline is keyed (see shared-pipeline.ts): instances of one config are compared. */
const optionsOf = new WeakMap<object, string>();

/**
 * Instances of the plugin in one config with different options (two spaces): every `content:`
 * import resolves through the first, so the others sync and compile for no page. Told by the
 * first, once.
 */
function warnOfOthers(config: ResolvedConfig, first: Plugin, logger: Logger): void {
  const instances = config.plugins.filter((p) => p.name === PLUGIN_NAME);
  if (instances[0] !== first || instances.every((p) => optionsOf.get(p) === optionsOf.get(first))) return;
  logger.warn(
    `contentSync() is in this config ${instances.length} times with different options: every content: import resolves through the first; the others sync and compile for nothing. Keep one instance per config.`,
  );
}

export function contentSync(input: ContentSyncOptions = {}): ContentSyncPlugin {
  const options = parseOptions(input);
  const resolved: Resolved = {
    root: process.cwd(),
    logger: console,
    serving: false,
    testRunner: false,
    env: process.env,
  };
  const servers = new OpenServers(() => lease.pipeline);
  const lease = new PipelineLease(
    // A build (or a test run) syncs from the service a dev server of the project runs, when there is
    // one; a dev server runs its own.
    () =>
      holdPipeline(options, resolved.root, resolved.logger, {
        borrow: !resolved.serving || resolved.testRunner,
        env: resolved.env,
      }),
    () => servers.route(),
  );
  const dev: DevPlugin = {
    options,
    lease,
    servers,
    awaited: new Set(),
    get logger() {
      return resolved.logger;
    },
    get testRunner() {
      return resolved.testRunner;
    },
    get env() {
      return resolved.env;
    },
  };
  /** A watching build (`vite build --watch`) ended a build: the next one syncs again. */
  let rebuild = false;
  let assetImports: AssetImports | undefined;
  /** Made only by a build, once the root is known. */
  let renditions: Renditions | undefined;
  /** With localized assets, the generated modules' imports of the snapshot's files (one for the plugin's life). */
  const importsOf = (pipeline: ContentPipeline): AssetImports =>
    (assetImports ??= new AssetImports(pipeline.snapshotDir, renditions));

  /** A dev server's environment closed: no more updates for its server, and the pipeline goes once none is open. */
  const closeServer = async (environment: object): Promise<void> => {
    const left = servers.close(environment);
    if (left === 'others open') servers.route();
    // Another server of this plugin started later (a framework may start one after a first) starts its own.
    else if (left === 'none open') await lease.end();
  };

  const plugin: Plugin<ContentSyncApi> = {
    name: PLUGIN_NAME,
    enforce: 'pre',

    /** For other plugins and scripts: the pipeline (and through it the embedded service) once started. */
    api: {
      get pipeline(): ContentPipeline | undefined {
        return lease.pipeline;
      },
      get images(): RenditionCounts {
        return { ...(renditions?.counts ?? { resized: 0, cached: 0 }) };
      },
      async prepare() {
        try {
          return await lease.ensureReady();
        } finally {
          await lease.letGo();
        }
      },
    },

    config(config) {
      return watchIgnored(config, options);
    },

    async configResolved(config) {
      resolved.root = config.root;
      resolved.serving = config.command === 'serve';
      resolved.testRunner = isTestRunner(config);
      resolved.logger = timestamped(config.logger);
      if (config.command === 'build') renditions ??= buildRenditions(config.root, options);
      warnOfOthers(config, plugin, resolved.logger);
      resolved.env = await projectEnv(config);
    },

    async buildStart() {
      await lease.ensureReady();
      // The first sync is shared by a build's environments; a watching build's later builds each sync what changed since.
      if (rebuild) {
        rebuild = false;
        await lease.pipeline?.refreshAll();
      }
      // A dev server's: the embedded space directory exists now (the demo written into it), to be watched.
      const dir = resolved.serving ? lease.pipeline?.embeddedDirectory : undefined;
      if (dir) servers.watchSpace(dir);
    },

    async resolveId(id, importer) {
      const generated = resolved.serving && lease.pipeline && devResolve(lease.pipeline.modulesDir, id, importer);
      if (generated) return generated;
      if (!id.startsWith(IMPORT_PREFIX)) return null;
      // Vite's scan for dependencies to pre-bundle: the generated modules import none, and a scan
      // alone (`vite optimize`) ends with no hook that would stop a service started for it.
      if (this.environment?.mode === 'scan') return { id, external: true };
      await lease.ensureReady();
      const server = externalServerBuild(options.ssrModules, this.environment);
      const found = resolveImport(id, lease.pipeline!.modulesDir, server);
      if ('to' in found) return found.to;
      // A module a later change may write (a content type's first story): the page asks again then.
      if (found.missing && resolved.serving) dev.awaited.add(found.missing);
      return this.error(found.error);
    },

    /** On the dev server, some generated modules load in forms Vite transforms faster (dev-modules.ts). */
    load(id) {
      const { pipeline } = lease;
      if (!resolved.serving || !pipeline) return null;
      const server = this.environment?.config.consumer === 'server';
      if (server && isDevEnvironment(this.environment)) warmViewChunks(this.environment, pipeline.modulesDir, id);
      return devModule(pipeline.modulesDir, id, {
        server,
        assetImports: assetDownloads(options) !== undefined,
      });
    },

    /** With localized assets, generated modules import the snapshot's files instead of remote URLs. */
    async transform(code, id) {
      const { pipeline } = lease;
      if (!assetDownloads(options) || !pipeline || !id.startsWith(pipeline.modulesDir + path.sep)) return null;
      const rewritten = await importsOf(pipeline).rewrite(code);
      return rewritten === undefined ? null : { code: rewritten, map: null };
    },

    configureServer(server) {
      servers.add(new DevServer(server, dev));
      servers.route();
    },

    renderChunk(code, chunk) {
      const server = externalServerBuild(options.ssrModules, this.environment);
      const relative = server && relativeImports(server, code, chunk.fileName);
      return relative === undefined ? null : { code: relative, map: null };
    },

    /** `ssrModules: 'external'`: the content modules go beside the server bundle instead of into it. */
    async writeBundle(_output, bundle) {
      const server = externalServerBuild(options.ssrModules, this.environment);
      const { pipeline } = lease;
      if (!server || !pipeline) return;
      const imports = assetDownloads(options) ? importsOf(pipeline) : undefined;
      const { modulesDir, snapshotDir } = pipeline;
      const written = await writeServerModules(server, modulesDir, snapshotDir, imports, new Set(Object.keys(bundle)));
      resolved.logger.info(
        `content-sync: ${count(written.modules, 'content module')} and ${count(written.assets, 'asset')} beside the server bundle`,
      );
    },

    async buildEnd() {
      // The dev server closing (or a build ending): let a sync or compile in flight finish, so
      // that nothing writes into the output after the server is gone.
      await lease.pipeline?.idle();
    },

    async closeBundle() {
      // A dev server closing (whether it listened or ran as middleware; each of its environments
      // calls this): no more updates for it. The pipeline goes on while another server is open.
      if (resolved.serving) return closeServer(this.environment);
      // A build ends here (a watching one goes on): say what it resized, stop the embedded service.
      if (this.meta.watchMode) {
        rebuild = true;
        return;
      }
      if (renditions && lease.pipeline) await tellRenditions(renditions, lease.pipeline.snapshotDir, resolved);
      await lease.letGo();
    },

    /** A watching build stops (`watcher.close()`): its pipeline goes, and the embedded service that kept the process alive. */
    async closeWatcher() {
      if (resolved.serving) return;
      rebuild = false;
      await lease.end();
    },
  };
  optionsOf.set(plugin, JSON.stringify(options));
  return plugin as ContentSyncPlugin;
}

/**
 * Vitest's server (its plugins are named `vitest` and `vitest:*`): the project's unit tests, run while
 * its dev server may run, as a build may. Not the dev servers a test of the user's creates.
 */
const isTestRunner = (config: ResolvedConfig): boolean =>
  config.plugins.some((p) => p.name === 'vitest' || p.name.startsWith('vitest:'));

/** Vite's logger, each line with its time. */
function timestamped(logger: ViteLogger): Logger {
  return {
    info: (m) => logger.info(m, { timestamp: true }),
    warn: (m) => logger.warn(m, { timestamp: true }),
    error: (m) => logger.error(m, { timestamp: true }),
  };
}

/** A build's renditions of localized images (dev serves the originals): none without downloads or widths. */
function buildRenditions(root: string, options: ResolvedOptions): Renditions | undefined {
  if (!assetDownloads(options) || !options.images.widths.length) return undefined;
  const cacheDir = path.resolve(root, options.images.cacheDir ?? path.join(options.dir, 'image-cache'));
  return new Renditions(cacheDir, options.images);
}

/**
 * Vite's watcher ignores what the plugin writes (it reloads the generated modules itself), and the
 * embedded space directory (watched by the plugin: space-watch.ts).
 */
function watchIgnored(config: UserConfig, options: ResolvedOptions): UserConfig | undefined {
  // `server.watch: null` turns watching off: an object merged into it would turn it on again.
  if (config.server?.watch === null) return;
  const viteRoot = path.resolve(config.root ?? process.cwd());
  const dir = path.resolve(viteRoot, options.dir);
  const ignored = config.server?.watch?.ignored;
  const list = Array.isArray(ignored) ? ignored : ignored ? [ignored] : [];
  // What it writes there, not the whole directory: `dir` may hold the app's own files (`dir: 'src'`).
  const dirs = ['snapshot', 'modules', 'image-cache'].map((sub) => path.join(dir, sub));
  if (options.embedded) dirs.push(path.resolve(viteRoot, options.embedded.data));
  return { server: { watch: { ignored: [...list, ...dirs.map(under)] } } };
}

/**
 * What matches `dir` and every path under it, as the watcher (chokidar) gives paths: with `/`. Not
 * a glob: a path holding glob syntax (`site (copy)`, `[draft]`) would not match itself, and the
 * watcher turns the escapes of a glob (`\(`) into separators.
 */
function under(dir: string): RegExp {
  const posix = dir.split(path.sep).join('/');
  return new RegExp(`^${posix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/|$)`);
}

/**
 * The file `id` (`content:<rest>`) imports, from beside the bundle of `server` (a server build of
 * `ssrModules: 'external'`) or from `modulesDir`; or the error that says why there is none.
 */
function resolveImport(
  id: string,
  modulesDir: string,
  server: ReturnType<typeof externalServerBuild>,
): { to: string | { id: string; external: 'absolute' } } | { error: string; missing?: string } {
  const file = servedFile(id.slice(IMPORT_PREFIX.length));
  // A module of a story, language or content type the snapshot does not have is none either.
  if (file !== undefined && existsSync(path.join(modulesDir, file)))
    return { to: (server && externalModule(server, file)) ?? path.join(modulesDir, file) };
  const error = `vite-plugin-content-sync: unknown import "${id}"; use ${MODULE_FORMS.map((f) => `${IMPORT_PREFIX}${f}`).join(', ')}`;
  if (file === undefined) return { error };
  return {
    error: `${error} (the snapshot has no such story, language or content type)`,
    missing: path.join(modulesDir, file),
  };
}

/** A build's end: what it resized and found in the cache, and the images shown without resized copies. */
async function tellRenditions(renditions: Renditions, snapshotDir: string, resolved: Resolved): Promise<void> {
  const { resized, cached } = await renditions.settle(snapshotDir);
  for (const [url, why] of renditions.unreadable)
    resolved.logger.warn(`content-sync: images: ${url} is shown without resized copies: ${why}`);
  if (resized + cached) {
    const dir = path.relative(resolved.root, renditions.cacheDir) || '.';
    resolved.logger.info(`content-sync: images: ${resized} resized, ${cached} from the cache (${dir})`);
  }
}
