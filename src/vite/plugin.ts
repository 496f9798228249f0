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
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { DevEnvironment, Environment, Plugin, ViteDevServer } from 'vite';
import { MODULE_FORMS, servedFile } from '../compile/index.js';
import type { WebhookPayload, WebhookTarget } from '../server/index.js';
import { parseWebhookEvent, type WebhookEvent } from '../sync/index.js';
import { answer, Batcher, webhookEndpoint } from '../trigger/index.js';
import { AssetImports } from './assets.js';
import { devModule, devResolve, viewChunksAhead } from './dev-modules.js';
import { assetDownloads, type ContentSyncOptions, parseOptions } from './options.js';
import type { ContentPipeline, Logger, RefreshResult } from './pipeline.js';
import { type RenditionCounts, Renditions } from './renditions.js';
import { externalModule, externalServerBuild, relativeImports, writeServerModules } from './server-modules.js';
import { type HeldPipeline, holdPipeline } from './shared-pipeline.js';
import { watchSpaceDirectory } from './space-watch.js';
import { count } from '../text/index.js';

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

/**
 * A dev server of the plugin: its environments (closeBundle tells by them which server closes), what
 * stops its updates, and its webhook URL once it listens.
 */
interface OpenServer {
  environments: ReadonlySet<object>;
  stop: () => void;
  /** Starts watching the embedded space directory `dir` for this server, once (the service has started). */
  watchSpace: (dir: string) => void;
  webhook?: WebhookTarget;
  /** Takes a change the embedded service made to a story's draft alone (the draft view only). */
  drafts?: (event: WebhookEvent) => void;
}

export function contentSync(input: ContentSyncOptions = {}): ContentSyncPlugin {
  const options = parseOptions(input);
  let pipeline: ContentPipeline | undefined;
  let ready: Promise<RefreshResult> | undefined;
  let logger: Logger = console;
  let root = process.cwd();
  /** Vite's dev server (or another server of Vite's, such as a test runner's), not a build. */
  let serving = false;
  /** The dev servers of this plugin that are open (frameworks may start a second before the first closes). */
  const openServers: OpenServer[] = [];
  /** Environments of the servers that closed: each calls closeBundle, the first one closes its server. */
  const closedEnvironments = new WeakSet<object>();
  let assetImports: AssetImports | undefined;
  /** Made only by a build (dev serves the originals), once the root is known. */
  let renditions: Renditions | undefined;

  /** The embedded service posts its changes to the newest open server that listens (none: to no one). */
  const routeWebhook = (): void => {
    const service = pipeline?.server?.service;
    if (!service) return;
    service.setWebhook(openServers.findLast((s) => s.webhook)?.webhook);
    // A draft saved posts no webhook (none is posted for it by the real service either); a dev
    // server of the draft view shows it all the same, told in this process.
    const drafts = openServers.findLast((s) => s.drafts)?.drafts;
    service.setDraftListener(
      drafts && ((id) => drafts({ action: 'published', space_id: service.store.space.id, story_id: id })),
    );
  };
  /** This instance's hold on its pipeline, which other instances over the same directory may share. */
  let hold: Promise<HeldPipeline> | undefined;
  const setup = (): Promise<ContentPipeline> => {
    if (!hold) {
      // A build syncs from the service a dev server of the project runs, when there is one; a dev server runs its own.
      const attempt = holdPipeline(options, root, logger, { borrow: !serving });
      hold = attempt;
      attempt.then(
        (held) => {
          pipeline = held.pipeline;
          routeWebhook();
        },
        // A start that failed is tried again by the next caller.
        () => hold === attempt && (hold = undefined),
      );
    }
    return hold.then((held) => held.pipeline);
  };
  /** Lets go of the pipeline: it closes (its embedded service stops) once no instance holds it. */
  const letGo = async (): Promise<void> => {
    const held = hold;
    hold = undefined;
    await (await held?.catch(() => undefined))?.release();
  };
  /** The first sync and compile of this process; later builds (SSR after client) reuse it. */
  const ensureReady = (): Promise<RefreshResult> => (ready ??= setup().then((p) => p.refresh()));

  async function reloadChanged(server: ViteDevServer, files: readonly string[]): Promise<number> {
    let reloaded = 0;
    let serverOnly = false;
    for (const env of Object.values(server.environments)) {
      for (const file of files) {
        const mods = env.moduleGraph.getModulesByFile(file);
        if (!mods) continue;
        for (const mod of mods) {
          await env.reloadModule(mod);
          reloaded++;
          if (env.name !== 'client' && !server.environments.client?.moduleGraph.getModulesByFile(file)?.size)
            serverOnly = true;
        }
      }
    }
    // Pages rendered on the server (SSR) show content the browser never imported: Vite
    // updates the server's modules but tells the browser nothing, so reload it.
    if (serverOnly) server.environments.client?.hot.send({ type: 'full-reload', path: '*' });
    return reloaded;
  }

  /**
   * The generated files to reload after `result`: those it changed, and when another process (a
   * build of the project) compiled into the same directory since, every one the server loaded, as
   * that compile may have changed them already (this one then finds nothing left to write).
   */
  function filesToReload(server: ViteDevServer, result: RefreshResult, modulesDir: string): readonly string[] {
    if (!result.compile.writtenElsewhere) return result.changedFiles;
    const files = new Set(result.changedFiles);
    for (const env of Object.values(server.environments))
      for (const file of env.moduleGraph.fileToModulesMap.keys())
        if (file.startsWith(modulesDir + path.sep)) files.add(file);
    return [...files];
  }

  const plugin: Plugin<ContentSyncApi> = {
    name: PLUGIN_NAME,
    enforce: 'pre',

    /** For other plugins and scripts: the pipeline (and through it the embedded service) once started. */
    api: {
      get pipeline(): ContentPipeline | undefined {
        return pipeline;
      },
      get images(): RenditionCounts {
        return { ...(renditions?.counts ?? { resized: 0, cached: 0 }) };
      },
      async prepare() {
        try {
          return await ensureReady();
        } finally {
          await letGo();
        }
      },
    },

    config(config) {
      // The plugin writes the generated modules itself and reloads them: the watcher need not.
      // `server.watch: null` turns watching off: an object merged into it would turn it on again.
      if (config.server?.watch === null) return;
      const viteRoot = path.resolve(config.root ?? process.cwd());
      const dir = path.resolve(viteRoot, options.dir);
      const ignored = config.server?.watch?.ignored;
      const list = Array.isArray(ignored) ? ignored : ignored ? [ignored] : [];
      // What it writes there, not the whole directory: `dir` may hold the app's own files (`dir: 'src'`).
      const written = ['snapshot', 'modules', 'image-cache'].map((sub) => `${path.join(dir, sub)}/**`);
      // The embedded space directory too: the plugin watches it itself (space-watch.ts).
      if (options.embedded) written.push(`${path.resolve(viteRoot, options.embedded.data)}/**`);
      return { server: { watch: { ignored: [...list, ...written] } } };
    },

    configResolved(config) {
      root = config.root;
      serving = config.command === 'serve';
      logger = {
        info: (m) => config.logger.info(m, { timestamp: true }),
        warn: (m) => config.logger.warn(m, { timestamp: true }),
        error: (m) => config.logger.error(m, { timestamp: true }),
      };
      if (config.command === 'build' && assetDownloads(options) && options.images.widths.length) {
        const cacheDir = path.resolve(root, options.images.cacheDir ?? path.join(options.dir, 'image-cache'));
        renditions ??= new Renditions(cacheDir, options.images);
      }
    },

    async buildStart() {
      await ensureReady();
      // A dev server's: the embedded space directory exists now (the demo written into it), to be watched.
      const dir = serving ? pipeline?.embeddedDirectory : undefined;
      if (dir) for (const s of openServers) s.watchSpace(dir);
    },

    async resolveId(id, importer) {
      if (serving && pipeline) {
        const generated = devResolve(pipeline.modulesDir, id, importer);
        if (generated) return generated;
      }
      if (!id.startsWith(IMPORT_PREFIX)) return null;
      await ensureReady();
      const rest = id.slice(IMPORT_PREFIX.length);
      const modules = pipeline!.modulesDir;
      const file = servedFile(rest);
      // A module of a story, language or content type the snapshot does not have is none either.
      if (file !== undefined && existsSync(path.join(modules, file))) {
        const server = externalServerBuild(options.ssrModules, this.environment);
        return (server && externalModule(server, file)) ?? path.join(modules, file);
      }
      this.error(
        `vite-plugin-content-sync: unknown import "${id}"; use ${MODULE_FORMS.map((f) => `${IMPORT_PREFIX}${f}`).join(', ')}` +
          (file === undefined ? '' : ' (the snapshot has no such story, language or content type)'),
      );
    },

    /** On the dev server, some generated modules load in forms Vite transforms faster (dev-modules.ts). */
    load(id) {
      if (!serving || !pipeline) return null;
      const server = this.environment?.config.consumer === 'server';
      if (server && isDevEnvironment(this.environment)) warmViewChunks(this.environment, pipeline.modulesDir, id);
      return devModule(pipeline.modulesDir, id, {
        server,
        assetImports: assetDownloads(options) !== undefined,
      });
    },

    /** With localized assets, generated modules import the snapshot's files instead of remote URLs. */
    async transform(code, id) {
      if (!assetDownloads(options) || !pipeline || !id.startsWith(pipeline.modulesDir + path.sep)) return null;
      assetImports ??= new AssetImports(pipeline.snapshotDir, renditions);
      const rewritten = await assetImports.rewrite(code);
      return rewritten === undefined ? null : { code: rewritten, map: null };
    },

    configureServer(server) {
      // Without a secret of the user's, the embedded service's control plane still reaches this server:
      // through a secret made here, which only the service in this process is given. An empty
      // CONTENT_WEBHOOK_SECRET is no secret (as an empty CONTENT_STORE is no store).
      const secret =
        options.webhook.secret ??
        (process.env.CONTENT_WEBHOOK_SECRET || undefined) ??
        (options.embedded?.admin ? randomBytes(24).toString('hex') : undefined);
      /** The server closed: an update that began just before does not start a pipeline or sync again. */
      let stopped = false;
      /**
       * Runs (results and failures) already applied: requests merged into one run (webhooks that
       * arrived while another run was under way) share its result, which is applied and told once.
       */
      const applied = new WeakSet<object>();
      const firstTime = (outcome: unknown): boolean => {
        if (typeof outcome !== 'object' || outcome === null) return true;
        if (applied.has(outcome)) return false;
        applied.add(outcome);
        return true;
      };
      const apply = async (run: (p: ContentPipeline) => Promise<RefreshResult>) => {
        try {
          if (stopped) return;
          const p = await setup();
          await ensureReady();
          if (stopped) return;
          const started = performance.now();
          const result = await run(p);
          if (!firstTime(result)) return;
          const reloaded = await reloadChanged(server, filesToReload(server, result, p.modulesDir));
          if (result.changedFiles.length) {
            logger.info(
              `content-sync: ${count(result.changedFiles.length, 'generated file')} changed, ${count(reloaded, 'module')} reloaded in ${Math.round(performance.now() - started)} ms`,
            );
          }
        } catch (err) {
          if (firstTime(err)) logger.error(`content-sync: update failed: ${(err as Error).message}`);
        }
      };
      const batcher = new Batcher<WebhookEvent>(
        options.webhook.coalesceMs,
        options.webhook.maxWaitMs,
        (events) => void apply((p) => p.refresh(events)),
      );
      const endpoint = secret
        ? webhookEndpoint({
            secret,
            maxBytes: options.webhook.maxBytes,
            accept: (events) => {
              if (events.length) batcher.add(events);
            },
            log: (line) => logger.warn(`content-sync: ${line}`),
          })
        : undefined;

      // Its path alone (connect's mount would also take every path under it: every POST, at "/").
      server.middlewares.use((req, res, next) => {
        if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== options.webhook.path) return next();
        if (!endpoint)
          return answer(res, 404, {
            error: 'webhooks are off: set the webhook.secret option or CONTENT_WEBHOOK_SECRET',
          });
        endpoint(req, res);
      });

      const poll = options.pollMs ? setInterval(() => void apply((p) => p.refresh()), options.pollMs) : undefined;
      let unwatch: (() => void) | undefined;
      const open: OpenServer = {
        environments: new Set(Object.values(server.environments)),
        stop: () => {
          stopped = true;
          batcher.cancel();
          clearInterval(poll);
          unwatch?.();
        },
        // The directory edited by hand or by a script: the service serves it as it is now, the page shows it.
        watchSpace: (dir) => {
          if (stopped || unwatch) return;
          unwatch = watchSpaceDirectory(
            dir,
            () => void apply((p) => p.reloadEmbedded()),
            (m) => logger.warn(m),
          );
        },
      };
      openServers.push(open);

      // The embedded service announces its own changes to this dev server: as signed webhooks to its
      // endpoint once it listens, or, in middleware mode (no server of Vite's, no URL to post to),
      // handed over in this process.
      if (!server.httpServer) open.webhook = { deliver: (payload) => deliverInProcess(payload, batcher, logger) };
      if (options.version === 'draft') open.drafts = (event) => batcher.add([event]);
      routeWebhook();
      server.httpServer?.once('listening', () => {
        const url = server.resolvedUrls?.local[0];
        if (!secret) return;
        // Over https (a certificate Node need not trust) or with no loopback URL (a LAN address alone), a post
        // of the service could not reach this server: its changes are handed over in this process instead.
        open.webhook = url?.startsWith('http:')
          ? { url: new URL(options.webhook.path, url).toString(), secret }
          : { deliver: (payload) => deliverInProcess(payload, batcher, logger) };
        routeWebhook();
      });
    },

    renderChunk(code, chunk) {
      const server = externalServerBuild(options.ssrModules, this.environment);
      const relative = server && relativeImports(server, code, chunk.fileName);
      return relative === undefined ? null : { code: relative, map: null };
    },

    /** `ssrModules: 'external'`: the content modules go beside the server bundle instead of into it. */
    async writeBundle(_output, bundle) {
      const server = externalServerBuild(options.ssrModules, this.environment);
      if (!server || !pipeline) return;
      if (assetDownloads(options)) assetImports ??= new AssetImports(pipeline.snapshotDir, renditions);
      const written = await writeServerModules(
        server,
        pipeline.modulesDir,
        pipeline.snapshotDir,
        assetImports,
        new Set(Object.keys(bundle)),
      );
      logger.info(
        `content-sync: ${count(written.modules, 'content module')} and ${count(written.assets, 'asset')} beside the server bundle`,
      );
    },

    async buildEnd() {
      // The dev server closing (or a build ending): let a sync or compile in flight finish, so
      // that nothing writes into the output after the server is gone.
      await pipeline?.idle();
    },

    async closeBundle() {
      // A dev server closing (whether it listened or ran as middleware; each of its environments
      // calls this): no more updates for it. The pipeline goes on while another server is open.
      if (serving) {
        const environment: object = this.environment;
        if (closedEnvironments.has(environment)) return;
        const at = openServers.findIndex((s) => s.environments.has(environment));
        // An environment no open server had when it was configured (none known to do that): which
        // server closes cannot be told, so every one stops, as when there was one.
        const closed = at >= 0 ? openServers.splice(at, 1) : openServers.splice(0);
        for (const s of closed) {
          s.stop();
          for (const e of s.environments) closedEnvironments.add(e);
        }
        if (openServers.length) {
          routeWebhook();
          return;
        }
        // Another server of this plugin started later (a framework may start one after a first) starts its own.
        pipeline = undefined;
        ready = undefined;
        await letGo();
        return;
      }
      // A build ends here (a watching one goes on): say what it resized, stop the embedded service.
      if (this.meta.watchMode) return;
      if (renditions && pipeline) {
        const { resized, cached } = await renditions.settle(pipeline.snapshotDir);
        for (const [url, why] of renditions.unreadable)
          logger.warn(`content-sync: images: ${url} is shown without resized copies: ${why}`);
        if (resized + cached) {
          const dir = path.relative(root, renditions.cacheDir) || '.';
          logger.info(`content-sync: images: ${resized} resized, ${cached} from the cache (${dir})`);
        }
      }
      await letGo();
    },
  };
  return plugin as ContentSyncPlugin;
}

/** A change the embedded service hands over in this process (middleware mode), taken as its webhook would be. */
function deliverInProcess(payload: WebhookPayload, batcher: Batcher<WebhookEvent>, logger: Logger): void {
  try {
    const event = parseWebhookEvent(payload);
    if (event) batcher.add([event]);
  } catch (err) {
    logger.warn(`content-sync: a change of the embedded service was not understood: ${(err as Error).message}`);
  }
}
