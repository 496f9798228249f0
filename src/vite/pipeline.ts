/**
 * Sync and compile, one run at a time: what the plugin does at build start,
 * on a webhook and on a poll. Runs asked for while one is under way are
 * coalesced into a single next run (their events merged; no events means
 * everything).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ContentApiError, retryLine, UNPACED } from '../client/index.js';
import { CompileCache, type CompileResult, compile, schemaProblem } from '../compile/index.js';
import type { RunningServer } from '../server/index.js';
import { hasSnapshot, type SyncOptions, type SyncResult, sync, type WebhookEvent } from '../sync/index.js';
import { Runner, Unsynced } from '../trigger/index.js';
import { EmbeddedService } from './embedded.js';
import { assetDownloads, type ResolvedOptions } from './options.js';
import { PipelineError } from './pipeline-error.js';
import type { ProjectEnv } from './project-env.js';
import { runningService, serviceFileOf } from './service-file.js';
import { count } from '../text/index.js';

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface RefreshResult {
  sync: SyncResult | undefined;
  compile: CompileResult;
  /** Absolute paths of the generated files written or deleted. */
  changedFiles: string[];
  offline: boolean;
}

export { PipelineError };

/** The CONTENT_* settings a pipeline of `options` reads from `env` (see #sync and start), by name. */
export function settingsRead(options: ResolvedOptions, env: ProjectEnv): Array<string | null> {
  const names = [
    'CONTENT_STORE',
    'CONTENT_REDIS_URL',
    ...(options.embedded ? [] : ['CONTENT_BASE_URL', 'CONTENT_TOKEN']),
  ];
  return names.map((name) => env[name] ?? null);
}

export class ContentPipeline {
  /** The content directory (the `dir` option). */
  readonly #dir: string;
  readonly snapshotDir: string;
  readonly modulesDir: string;
  /** The embedded service, when this pipeline runs one. */
  #embedded: EmbeddedService | undefined;
  #closed: Promise<void> | undefined;
  /** Stops a sync under way when the pipeline closes (its commit may wait minutes for another process's compile). */
  readonly #stopping = new AbortController();
  /** Where syncs read from when this pipeline runs no service: the one configured, or another process's embedded one. */
  #baseUrl: string | undefined;
  #token: string | undefined;
  readonly #runner = new Runner<WebhookEvent[] | undefined, RefreshResult>(
    (events) => this.#refresh(events),
    (queued, later) => (queued && later ? [...queued, ...later] : undefined),
  );
  #schema: unknown;
  /** The space directory changed: the next run reads it again first (reloadEmbedded). */
  #reloadAsked = false;
  /** What syncs that failed were asked for: the next sync fetches it too. */
  readonly #unsynced = new Unsynced();
  /** The last compile's state, kept for the next (a compile after a webhook need not read it back). */
  readonly #compileCache = new CompileCache();
  /** How long the demo space took to write (when this process wrote it), the last sync and the last compile, in ms. */
  readonly durations: { demo?: number; sync?: number; compile?: number } = {};

  /** The cache version the last sync's line named. */
  #toldCv: number | undefined;

  constructor(
    readonly options: ResolvedOptions,
    readonly root: string,
    readonly log: Logger,
    /** CONTENT_* settings (the project's .env files under the environment, see project-env.ts). */
    readonly env: ProjectEnv = process.env,
  ) {
    this.#dir = path.resolve(root, options.dir);
    this.snapshotDir = path.join(this.#dir, 'snapshot');
    this.modulesDir = path.join(this.#dir, 'modules');
  }

  /**
   * A sync, through the store and Redis when they are configured (their modules loaded only
   * then); undefined when the snapshot came from another builder instead.
   */
  async #sync(options: SyncOptions): Promise<SyncResult | undefined> {
    const store = this.options.store ?? (this.env.CONTENT_STORE || undefined);
    const redis = this.options.redis ?? (this.env.CONTENT_REDIS_URL || undefined);
    if (!store && !redis) return sync(options);
    const { fleetSync } = await import('../store/index.js');
    const shared = await fleetSync({ ...options, store, redis, log: (m) => this.log.warn(m) });
    if (shared.pulled)
      this.log.info(
        `content-sync: took cv ${shared.pulled.cv} from ${store} (${count(shared.pulled.objects, 'file')} downloaded)`,
      );
    if (shared.pushed)
      this.log.info(
        `content-sync: published cv ${shared.pushed.cv} to ${store} (${count(shared.pushed.objects, 'file')} uploaded)`,
      );
    return shared.sync;
  }

  /** The embedded service, when this pipeline runs one. */
  get server(): RunningServer | undefined {
    return this.#embedded?.server;
  }

  /** The embedded service's space directory, when this pipeline runs the service. */
  get embeddedDirectory(): string | undefined {
    return this.#embedded?.data;
  }

  /**
   * `borrow`: with the embedded option, sync from the service another process of the project runs
   * over the same directory (a dev server), when there is one, instead of starting another (a
   * build's pipeline; a dev server's owns its service).
   */
  async start(options: { borrow?: boolean } = {}): Promise<void> {
    if (this.options.schema) this.#schema = this.#readSchema(this.options.schema);
    const embedded = this.options.embedded;
    if (embedded) {
      const data = path.resolve(this.root, embedded.data);
      if (options.borrow) {
        if (!(await this.#borrowService(data))) await this.#startEmbedded(data);
      } else {
        await this.#refuseSecondService(data);
        await this.#startEmbedded(data);
      }
    } else {
      this.#baseUrl = this.options.baseUrl ?? this.env.CONTENT_BASE_URL;
      this.#token = this.options.token ?? this.env.CONTENT_TOKEN;
    }
  }

  #readSchema(option: string): unknown {
    const file = path.resolve(this.root, option);
    let schema: unknown;
    try {
      schema = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new PipelineError(
        `vite-plugin-content-sync: option "schema": cannot read ${file}: ${(err as Error).message}`,
      );
    }
    const problem = schemaProblem(schema);
    if (problem) throw new PipelineError(`vite-plugin-content-sync: option "schema": ${file}: ${problem}`);
    return schema;
  }

  /** Starts this pipeline's own embedded service over the space directory `data`. */
  async #startEmbedded(data: string): Promise<void> {
    const embedded = this.options.embedded!;
    const paths = { data, contentDir: this.#dir, snapshotDir: this.snapshotDir, root: this.root, shape: this.#shape };
    const { service, demoMs } = await EmbeddedService.start(embedded, paths, this.log);
    this.#embedded = service;
    if (demoMs !== undefined) this.durations.demo = demoMs;
  }

  /** Syncs from the service another pipeline runs over `data` (see service-file.ts), when there is one: true then. */
  async #borrowService(data: string): Promise<boolean> {
    const running = await runningService(serviceFileOf(this.#dir), data, this.#shape);
    if (!running) return false;
    this.#baseUrl = running.url;
    this.#token = this.options.version === 'draft' ? running.previewToken : running.publicToken;
    this.log.info(
      `content-sync: syncing from the local Content Delivery Service of process ${running.pid} at ${running.url} ` +
        `over ${path.relative(this.root, data) || '.'} (a dev server of this project, say)`,
    );
    return true;
  }

  /**
   * A dev server runs its own service, unless another process of the project already serves the
   * same directory into this content directory (a second dev server, or one started while a build
   * runs): started anyway, it would read the whole space again on another port, rewriting every
   * asset URL of the snapshot the other one serves to a port that closes with it, and dropping the
   * edits made through the other's control plane.
   */
  async #refuseSecondService(data: string): Promise<void> {
    const running = await runningService(serviceFileOf(this.#dir), data, this.#shape);
    if (!running || running.pid === process.pid) return;
    throw new PipelineError(
      `vite-plugin-content-sync: process ${running.pid} already serves ${path.relative(this.root, data) || '.'} at ${running.url} ` +
        `into ${path.relative(this.root, this.#dir) || '.'} (another dev server of this project, a build or a test run): stop it first, ` +
        `or give this one another "dir"`,
    );
  }

  /** What shapes the snapshot this pipeline syncs: another process's service is borrowed only when it is the same. */
  get #shape(): string {
    return JSON.stringify([this.options.version, this.options.api, assetDownloads(this.options) ?? null]);
  }

  /** Resolves once no sync or compile runs or waits to run. */
  idle(): Promise<void> {
    return this.#runner.idle();
  }

  /** Stops the embedded service once no sync or compile runs; every later call waits for the same. */
  close(): Promise<void> {
    return (this.#closed ??= this.#close());
  }

  async #close(): Promise<void> {
    // A sync stopped before its commit leaves the snapshot as it was; the next start syncs again.
    this.#stopping.abort(new PipelineError('vite-plugin-content-sync: the pipeline closed'));
    await this.idle().catch(() => undefined);
    await this.#embedded?.close();
    this.#embedded = undefined;
  }

  /**
   * The embedded space directory changed while the service ran (a dev server watches it): the next
   * run serves it as it is now and syncs what changed in it (EmbeddedService.reload). A directory
   * that cannot be read fails that run, and the service goes on serving what it had.
   */
  reloadEmbedded(): Promise<RefreshResult> {
    this.#reloadAsked = true;
    // No events: nothing beyond what the directory's changes name (see #syncNow).
    return this.#runner.request([]);
  }

  /**
   * Sync and compile what changed since the last run, in the embedded space directory too (read
   * again): a watching build's next build, which nothing told of those changes.
   */
  refreshAll(): Promise<RefreshResult> {
    return this.#embedded ? this.reloadEmbedded() : this.refresh();
  }

  /** Sync (incrementally; narrowed to `events` when given) and compile. */
  refresh(events?: WebhookEvent[]): Promise<RefreshResult> {
    return this.#runner.request(events);
  }

  async #refresh(events: WebhookEvent[] | undefined): Promise<RefreshResult> {
    if (this.#reloadAsked && this.#embedded) {
      this.#reloadAsked = false;
      await this.#embedded.reload(this.log);
    }
    const { result, offline } = await this.#syncStep(events);
    const compiled = await compile({
      snapshot: this.snapshotDir,
      out: this.modulesDir,
      view: this.options.version,
      ...(this.options.resolveRelations ? { resolveRelations: this.options.resolveRelations } : {}),
      detectRelations: this.options.detectRelations,
      ...(this.options.resolveLinks ? { resolveLinks: this.options.resolveLinks } : {}),
      depth: this.options.depth,
      keepUnresolved: this.options.keepUnresolved,
      entryFields: this.options.entryFields,
      ...(this.#schema !== undefined ? { schema: this.#schema } : {}),
      cache: this.#compileCache,
    });
    this.durations.compile = compiled.durationMs;
    for (const w of compiled.warnings) this.log.warn(`content-sync: ${w}`);
    if (compiled.written.length || compiled.deleted.length) {
      this.log.info(
        `content-sync: compiled ${count(compiled.stories, 'story', 'stories')}${compiled.fullBecause ? ` (in full: ${compiled.fullBecause})` : ''}: ${count(compiled.written.length, 'file')} written, ${compiled.deleted.length} deleted`,
      );
    }
    const changedFiles = [...compiled.written, ...compiled.deleted].map((rel) => path.join(this.modulesDir, rel));
    return { sync: result, compile: compiled, changedFiles, offline };
  }

  /** The sync of a refresh; `offline` when there is none and the snapshot is built as it is. */
  async #syncStep(events: WebhookEvent[] | undefined): Promise<{ result?: SyncResult; offline: boolean }> {
    if (this.options.offline === true) {
      if (!(await hasSnapshot(this.snapshotDir))) {
        throw new PipelineError(
          `vite-plugin-content-sync: offline is on but ${this.snapshotDir} holds no snapshot; sync once with the API reachable`,
        );
      }
      return { offline: true };
    }
    const { url, token } = this.#embedded?.address(this.options.version) ?? { url: this.#baseUrl, token: this.#token };
    if (!url || !token) {
      const missing = [
        !url && 'CONTENT_BASE_URL (or the baseUrl option)',
        !token && 'CONTENT_TOKEN (or the token option)',
      ]
        .filter(Boolean)
        .join(' and ');
      if (!(await hasSnapshot(this.snapshotDir))) {
        throw new PipelineError(
          `vite-plugin-content-sync: set ${missing} (in the environment or the project's .env files), or use the embedded option to build against a local space`,
        );
      }
      this.log.warn(`content-sync: ${missing} not set: building from the existing snapshot, which may be stale`);
      return { offline: true };
    }
    try {
      return { result: await this.#syncNow(url, token, events), offline: false };
    } catch (err) {
      // Refused before any request (no endpoint: a base URL or token the client cannot use) is a
      // mistake in the configuration, which no service coming back would mend: not out of reach.
      const unreachable =
        err instanceof ContentApiError && (err.status === undefined ? err.endpoint !== '' : err.status >= 500);
      // The other process's service went away (its dev server stopped): this pipeline runs its own.
      if (unreachable && this.options.embedded && !this.#embedded && !this.#closed) {
        this.log.warn(`content-sync: the service at ${url} went away (${(err as Error).message}): starting one here`);
        await this.#startEmbedded(path.resolve(this.root, this.options.embedded.data));
        return this.#syncStep(events);
      }
      if (this.options.offline === 'auto' && unreachable && (await hasSnapshot(this.snapshotDir))) {
        this.log.warn(
          `\n  content-sync: THE API CANNOT BE REACHED (${(err as Error).message}).\n  Building from the existing snapshot in ${this.snapshotDir}: content may be stale.\n`,
        );
        return { offline: true };
      }
      if (!(await hasSnapshot(this.snapshotDir))) {
        throw new PipelineError(
          `vite-plugin-content-sync: no snapshot yet and the sync failed: ${(err as Error).message}`,
        );
      }
      throw err;
    }
  }

  /** Syncs what `events` name (and, the first time, what changed in the embedded space directory), or everything. */
  async #syncNow(baseUrl: string, token: string, events: WebhookEvent[] | undefined): Promise<SyncResult | undefined> {
    const start = this.#embedded?.plan;
    const asked = this.#unsynced.with(start?.events.length ? [...start.events, ...(events ?? [])] : events);
    // Asked for nothing in particular (a reload of an unchanged directory): nothing to fetch.
    if (asked?.length === 0 && !start?.full) {
      this.#embedded?.synced(undefined);
      return undefined;
    }
    const result = await this.#sync({
      baseUrl,
      token,
      out: this.snapshotDir,
      signal: this.#stopping.signal,
      api: this.options.api,
      views: [this.options.version],
      // The embedded service posts a webhook for each change, and its directory's changes are
      // named at a start: its events name everything.
      ...(asked?.length ? { events: asked, eventsNameEverything: Boolean(this.options.embedded) } : {}),
      ...(start?.full ? { full: true } : {}),
      client: {
        // The embedded service (this pipeline's or another process's) has no rate limit to keep to.
        ...(this.options.embedded ? { pacer: UNPACED } : {}),
        // A build held up by a failing or silent service says why while it waits.
        onRetry: (r) => this.log.warn(`content-sync: ${retryLine(r)}`),
      },
      ...(assetDownloads(this.options) ? { assets: assetDownloads(this.options) } : {}),
    }).catch((err: unknown) => {
      this.#unsynced.failed(asked, err);
      // The failure is the last word until a sync succeeds: that one is told, whatever it found.
      this.#toldCv = undefined;
      throw err;
    });
    this.#unsynced.succeeded();
    this.#embedded?.synced(result?.cv);
    if (!result) return undefined;
    this.durations.sync = result.durationMs;
    // The same cache version again, nothing changed (a poll, say): said once.
    if (result.mode === 'unchanged' && result.cv === this.#toldCv) return result;
    this.#toldCv = result.cv;
    this.log.info(
      `content-sync: ${result.mode} sync (cv ${result.cv}${result.fullBecause ? `; ${result.fullBecause}` : ''}): ${count(result.changed.stories.length, 'story', 'stories')} written, ` +
        `${result.changed.removed.length} removed; ${count(result.requests, 'request')} in ${(result.durationMs / 1000).toFixed(1)}s` +
        (result.assets?.downloaded ? `; ${count(result.assets.downloaded, 'asset')} downloaded` : ''),
    );
    return result;
  }
}
