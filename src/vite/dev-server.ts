/**
 * One dev server of the plugin: the updates that reach it (webhooks, polling, the embedded space
 * directory edited), each synced and compiled, and the modules that changed reloaded, until it stops.
 */
import { existsSync } from 'node:fs';
import type { ViteDevServer } from 'vite';
import type { WebhookTarget } from '../server/index.js';
import type { WebhookEvent } from '../sync/index.js';
import type { ProjectEnv } from './project-env.js';
import { count } from '../text/index.js';
import { Batcher } from '../trigger/index.js';
import { deliverInProcess, serveWebhooks, webhookSecret } from './dev-webhook.js';
import type { OpenServer, OpenServers } from './open-servers.js';
import type { ResolvedOptions } from './options.js';
import type { ContentPipeline, Logger, RefreshResult } from './pipeline.js';
import type { PipelineLease } from './pipeline-lease.js';
import { filesToReload, reloadChanged, reportToWatcher } from './reload-changed.js';
import { watchSpaceDirectory } from './space-watch.js';

/** What a dev server takes from its plugin instance. */
export interface DevPlugin {
  readonly options: ResolvedOptions;
  readonly lease: PipelineLease;
  readonly servers: OpenServers;
  /** Read at each line: a config resolved later replaces it. */
  readonly logger: Logger;
  /**
   * Generated files a `content:` import named before any compile wrote them (the page failed on an
   * unknown import): Vite records no module for them, so nothing reloads the page when they appear.
   */
  readonly awaited: Set<string>;
  /** The server is Vitest's (read at each update: known once the config is resolved). */
  readonly testRunner: boolean;
  /** CONTENT_* settings: the project's .env files for the mode, the environment over them. */
  readonly env: ProjectEnv;
}

/**
 * Whether one of the `awaited` files exists now (this run wrote it, or a build beside the server did
 * before it); those are awaited no longer.
 */
function appeared(awaited: Set<string>): boolean {
  let found = false;
  for (const file of awaited) if (existsSync(file)) found = awaited.delete(file);
  return found;
}

export class DevServer implements OpenServer {
  readonly environments: ReadonlySet<object>;
  webhook?: WebhookTarget;
  drafts?: (event: WebhookEvent) => void;
  /** The server closed: an update that began just before does not start a pipeline or sync again. */
  #stopped = false;
  /**
   * Runs (results and failures) already applied: requests merged into one run (webhooks that
   * arrived while another run was under way) share its result, which is applied and told once.
   */
  readonly #applied = new WeakSet<object>();
  readonly #batcher: Batcher<WebhookEvent>;
  readonly #poll: NodeJS.Timeout | undefined;
  #unwatch: (() => void) | undefined;

  constructor(
    private readonly server: ViteDevServer,
    private readonly plugin: DevPlugin,
  ) {
    const { options } = plugin;
    const secret = webhookSecret(options, this.plugin.env);
    this.#batcher = new Batcher<WebhookEvent>(
      options.webhook.coalesceMs,
      options.webhook.maxWaitMs,
      (events) => void this.#apply((p) => p.refresh(events)),
    );
    serveWebhooks(
      server,
      options.webhook,
      secret,
      (events) => this.#batcher.add(events),
      (line) => plugin.logger.warn(line),
    );
    this.#poll = options.pollMs ? setInterval(() => void this.#apply((p) => p.refresh()), options.pollMs) : undefined;
    this.environments = new Set(Object.values(server.environments));

    // The embedded service announces its own changes to this dev server: as signed webhooks to its
    // endpoint once it listens, or, in middleware mode (no server of Vite's, no URL to post to),
    // handed over in this process.
    if (!server.httpServer) this.webhook = this.#inProcess();
    if (options.version === 'draft') this.drafts = (event) => this.#batcher.add([event]);
    server.httpServer?.once('listening', () => this.#listening(secret));
  }

  stop(): void {
    this.#stopped = true;
    this.#batcher.cancel();
    clearInterval(this.#poll);
    this.#unwatch?.();
  }

  /** The directory edited by hand or by a script: the service serves it as it is now, the page shows it. */
  watchSpace(dir: string): void {
    if (this.#stopped || this.#unwatch) return;
    this.#unwatch = watchSpaceDirectory(
      dir,
      () => void this.#apply((p) => p.reloadEmbedded()),
      (m) => this.plugin.logger.warn(m),
    );
  }

  #listening(secret: string | undefined): void {
    const url = this.server.resolvedUrls?.local[0];
    if (!secret) return;
    // Over https (a certificate Node need not trust) or with no loopback URL (a LAN address alone), a post
    // of the service could not reach this server: its changes are handed over in this process instead.
    this.webhook = url?.startsWith('http:')
      ? { url: new URL(this.plugin.options.webhook.path, url).toString(), secret }
      : this.#inProcess();
    this.plugin.servers.route();
  }

  #inProcess(): WebhookTarget {
    return { deliver: (payload) => deliverInProcess(payload, this.#batcher, this.plugin.logger) };
  }

  /** Runs an update on the pipeline (started by the first), then reloads the generated files it changed. */
  async #apply(run: (p: ContentPipeline) => Promise<RefreshResult>): Promise<void> {
    const { lease } = this.plugin;
    try {
      if (this.#stopped) return;
      const p = await lease.setup();
      await lease.ensureReady();
      if (this.#stopped) return;
      const started = performance.now();
      const result = await run(p);
      if (!this.#firstTime(result)) return;
      const files = filesToReload(this.server, result, p.modulesDir);
      const reloaded = await reloadChanged(this.server, files);
      if (this.plugin.testRunner) reportToWatcher(this.server, files);
      // A page that failed on an import of a module this run wrote asks for it again.
      if (appeared(this.plugin.awaited)) this.server.environments.client?.hot.send({ type: 'full-reload', path: '*' });
      if (result.changedFiles.length) {
        this.plugin.logger.info(
          `content-sync: ${count(result.changedFiles.length, 'generated file')} changed, ${count(reloaded, 'module')} reloaded in ${Math.round(performance.now() - started)} ms`,
        );
      }
    } catch (err) {
      if (this.#firstTime(err)) this.plugin.logger.error(`content-sync: update failed: ${(err as Error).message}`);
    }
  }

  #firstTime(outcome: unknown): boolean {
    if (typeof outcome !== 'object' || outcome === null) return true;
    if (this.#applied.has(outcome)) return false;
    this.#applied.add(outcome);
    return true;
  }
}
