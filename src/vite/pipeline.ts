/**
 * Sync and compile, one run at a time: what the plugin does at build start,
 * on a webhook and on a poll. Runs asked for while one is under way are
 * coalesced into a single next run (their events merged; no events means
 * everything).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ContentApiError, UNPACED } from '../client/index.js';
import { CompileCache, type CompileResult, compile } from '../compile/index.js';
import { writeDemoSpace } from '../demo/index.js';
import { type RunningServer, startServer } from '../server/index.js';
import { type FileDigests, readSpaceDirectory, type SpaceData } from '../snapshot/index.js';
import { hasSnapshot, type SyncOptions, type SyncResult, sync, type WebhookEvent } from '../sync/index.js';
import { Runner, Unsynced } from '../trigger/index.js';
import { assetDownloads, type ResolvedOptions } from './options.js';
import { announceService, runningService, withdrawService } from './service-file.js';
import { onKeptPort } from './service-port.js';
import { type Origin, readOrigin, type StartSync, startSync, writeOrigin } from './space-origin.js';

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

export class PipelineError extends Error {
  override name = 'PipelineError';
}

/** The cache version a snapshot was synced at, if it has a readable manifest. */
function snapshotCv(dir: string): number | undefined {
  try {
    const cv: unknown = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).cv;
    return typeof cv === 'number' ? cv : undefined;
  } catch {
    return undefined;
  }
}

export class ContentPipeline {
  /** The content directory (the `dir` option). */
  readonly #dir: string;
  readonly snapshotDir: string;
  readonly modulesDir: string;
  #server: RunningServer | undefined;
  #closed: Promise<void> | undefined;
  #baseUrl: string | undefined;
  #token: string | undefined;
  readonly #runner = new Runner<WebhookEvent[] | undefined, RefreshResult>(
    (events) => this.#refresh(events),
    (queued, later) => (queued && later ? [...queued, ...later] : undefined),
  );
  #schema: unknown;
  /**
   * What the next sync takes besides what it is asked for: the embedded space directory's changes
   * since the last run, or everything (the snapshot may hold content the directory no longer has).
   */
  #startSync: StartSync | undefined;
  /** The embedded space directory as the service read it: kept once a sync takes the space as it is (see space-origin.ts). */
  #origin: Origin | undefined;
  /** The embedded service's space directory, how a service over it starts, and its tokens. */
  #embedded:
    | {
        data: string;
        startAt: (space: SpaceData, port: number) => Promise<RunningServer>;
        tokens: { publicToken: string; previewToken: string };
      }
    | undefined;
  /** The service is a local one (this pipeline's, or another's it syncs from): no rate limit to keep to. */
  #local = false;
  /** This pipeline, as the owner of its embedded service in the project's service file. */
  readonly #owner = randomBytes(8).toString('hex');
  /** The space directory changed: the next run reads it again first (reloadEmbedded). */
  #reloadAsked = false;
  /** What syncs that failed were asked for: the next sync fetches it too. */
  readonly #unsynced = new Unsynced();
  /** The last compile's state, kept for the next (a compile after a webhook need not read it back). */
  readonly #compileCache = new CompileCache();
  /** How long the demo space took to write (when this process wrote it), the last sync and the last compile, in ms. */
  readonly durations: { demo?: number; sync?: number; compile?: number } = {};

  constructor(
    readonly options: ResolvedOptions,
    readonly root: string,
    readonly log: Logger,
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
    const store = this.options.store ?? (process.env.CONTENT_STORE || undefined);
    const redis = this.options.redis ?? (process.env.CONTENT_REDIS_URL || undefined);
    if (!store && !redis) return sync(options);
    const { fleetSync } = await import('../store/index.js');
    const shared = await fleetSync({ ...options, store, redis, log: (m) => this.log.warn(m) });
    if (shared.pulled)
      this.log.info(
        `content-sync: took cv ${shared.pulled.cv} from ${store} (${shared.pulled.objects} files downloaded)`,
      );
    if (shared.pushed)
      this.log.info(
        `content-sync: published cv ${shared.pushed.cv} to ${store} (${shared.pushed.objects} files uploaded)`,
      );
    return shared.sync;
  }

  /** The embedded service, when the plugin runs one. */
  get server(): RunningServer | undefined {
    return this.#server;
  }

  /** The embedded service's space directory, once the service has started. */
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
      if (!(options.borrow && (await this.#borrowService(data)))) await this.#startEmbedded(embedded, data);
    } else {
      this.#baseUrl = this.options.baseUrl ?? process.env.CONTENT_BASE_URL;
      this.#token = this.options.token ?? process.env.CONTENT_TOKEN;
    }
  }

  #readSchema(option: string): unknown {
    const file = path.resolve(this.root, option);
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new PipelineError(
        `vite-plugin-content-sync: option "schema": cannot read ${file}: ${(err as Error).message}`,
      );
    }
  }

  /** Syncs from the service another pipeline runs over `data` (see service-file.ts), when there is one: true then. */
  async #borrowService(data: string): Promise<boolean> {
    const running = await runningService(this.#serviceFile, data, this.#owner);
    if (!running) return false;
    this.#baseUrl = running.url;
    this.#token = this.options.version === 'draft' ? running.previewToken : running.publicToken;
    this.#local = true;
    this.log.info(
      `content-sync: syncing from the local Content Delivery Service of process ${running.pid} at ${running.url} ` +
        `over ${path.relative(this.root, data) || '.'} (a dev server of this project, say)`,
    );
    return true;
  }

  /** Starts the embedded service over its space directory `data` (the demo written there first when asked) and plans the first sync. */
  async #startEmbedded(embedded: NonNullable<ResolvedOptions['embedded']>, data: string): Promise<void> {
    if (embedded.demo && !existsSync(path.join(data, 'manifest.json'))) {
      this.log.info(
        `content-sync: writing the demo space (${embedded.demo.stories} stories) to ${path.relative(this.root, data)}`,
      );
      const started = performance.now();
      await writeDemoSpace(data, {
        stories: embedded.demo.stories,
        ...(embedded.demo.seed !== undefined ? { seed: embedded.demo.seed } : {}),
      });
      this.durations.demo = performance.now() - started;
    }
    // Tokens live only in this process: nothing to configure, nothing to leak.
    const publicToken = randomBytes(12).toString('hex');
    const previewToken = randomBytes(12).toString('hex');
    const startAt = (space: SpaceData, port: number) =>
      startServer({
        space,
        publicToken,
        previewToken,
        rateLimit: false,
        admin: embedded.admin,
        port,
        assetUrls: 'self',
        log: (line) => this.log.warn(`content-sync service: ${line}`),
      });
    this.#embedded = { data, startAt, tokens: { publicToken, previewToken } };
    const { space, digests } = await this.#readEmbedded();
    // A port of its own when one is asked for; else the one it had last time (see service-port.ts).
    this.#server = embedded.port
      ? await startAt(space, embedded.port).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EADDRINUSE') throw err;
          throw new PipelineError(
            `vite-plugin-content-sync: option "embedded.port": port ${embedded.port} is in use (by a dev server of this project, say); stop what holds it, or leave the port to the plugin (0, the default)`,
          );
        })
      : await onKeptPort(path.join(this.#dir, 'service-port'), (port) => startAt(space, port));
    this.#baseUrl = this.#server.url;
    this.#token = this.options.version === 'draft' ? previewToken : publicToken;
    this.#local = true;
    this.#announce();
    this.#planFromDirectory(space, digests);
    this.log.info(
      `content-sync: local Content Delivery Service over ${path.relative(this.root, data) || '.'} at ${this.#server.url}` +
        (embedded.admin ? ` (its control plane: ${this.#server.url}/__admin/)` : ''),
    );
    if (this.#startSync?.reason) this.log.info(`content-sync: reading the whole space: ${this.#startSync.reason}`);
  }

  /** The embedded space directory as it is now, with the digests of its files. */
  async #readEmbedded(): Promise<{ space: SpaceData; digests: FileDigests }> {
    const digests: FileDigests = new Map();
    const space = await readSpaceDirectory(this.#embedded!.data, digests);
    return { space, digests };
  }

  /**
   * What the next sync fetches, the service having just read the directory: what changed since the
   * snapshot was synced from it, else everything. (The service starts without the edits made through
   * its control plane; a snapshot synced from those has another cache version.)
   */
  #planFromDirectory(space: SpaceData, digests: FileDigests): void {
    this.#origin = { version: space.space.version, service: this.#server!.url, files: Object.fromEntries(digests) };
    this.#startSync = startSync(readOrigin(this.#originFile), snapshotCv(this.snapshotDir), this.#origin, space);
  }

  /**
   * The embedded space directory changed while the service ran (a dev server watches it): the next
   * run serves it as it is now (a new service on the same port, the control plane's edits gone, as at
   * a start) and syncs what changed in it. A directory that cannot be read fails that run and the
   * service goes on serving what it had.
   */
  reloadEmbedded(): Promise<RefreshResult> {
    this.#reloadAsked = true;
    // No events: nothing beyond what the directory's changes name (see #syncNow).
    return this.#runner.request([]);
  }

  async #reloadEmbedded(): Promise<void> {
    const running = this.#server!;
    const { space, digests } = await this.#readEmbedded();
    const webhook = running.service.webhook;
    await running.service.settled();
    await running.close();
    this.#server = await this.#embedded!.startAt(space, running.port).catch((err: NodeJS.ErrnoException) => {
      // Taken in the moment it was free: any other (the sync then reads the whole space, its asset URLs moved).
      if (err.code !== 'EADDRINUSE') throw err;
      return this.#embedded!.startAt(space, 0);
    });
    this.#server.service.setWebhook(webhook);
    this.#baseUrl = this.#server.url;
    this.#announce();
    this.#planFromDirectory(space, digests);
    // Without the digests of the directory the snapshot was last synced from, what changed cannot be told.
    if (!this.#startSync!.full && !readOrigin(this.#originFile))
      this.#startSync = { full: true, events: [], reason: 'the directory the snapshot was synced from is not known' };
    const { full, events, reason } = this.#startSync!;
    const what = events.length === 1 ? 'one story or datasource' : `${events.length} stories and datasources`;
    // Files written again as they were: nothing to say, nothing to fetch.
    if (full || events.length)
      this.log.info(
        `content-sync: the space directory changed: ${full ? `reading the whole space${reason ? `: ${reason}` : ''}` : `fetching ${what}`}`,
      );
  }

  /** Tells the project's other processes where this pipeline's embedded service is (see service-file.ts). */
  #announce(): void {
    const { data, tokens } = this.#embedded!;
    const url = this.#server!.url;
    announceService(this.#serviceFile, { url, ...tokens, data, pid: process.pid, owner: this.#owner });
  }

  /** Where the embedded service is kept for the project's other processes. */
  get #serviceFile(): string {
    return path.join(this.#dir, 'service.json');
  }

  /** Where the embedded space directory's origin is kept (beside the snapshot, in the content directory). */
  get #originFile(): string {
    return path.join(this.#dir, 'space-origin.json');
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
    await this.idle();
    if (this.#server) withdrawService(this.#serviceFile, this.#owner);
    await this.#server?.service.settled();
    await this.#server?.close();
    this.#server = undefined;
  }

  /** Sync (incrementally; narrowed to `events` when given) and compile. */
  refresh(events?: WebhookEvent[]): Promise<RefreshResult> {
    return this.#runner.request(events);
  }

  async #refresh(events: WebhookEvent[] | undefined): Promise<RefreshResult> {
    if (this.#reloadAsked && this.#embedded) {
      this.#reloadAsked = false;
      await this.#reloadEmbedded();
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
        `content-sync: compiled ${compiled.stories} stories: ${compiled.written.length} files written, ${compiled.deleted.length} deleted`,
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
    if (!this.#baseUrl || !this.#token) {
      const missing = [
        !this.#baseUrl && 'CONTENT_BASE_URL (or the baseUrl option)',
        !this.#token && 'CONTENT_TOKEN (or the token option)',
      ]
        .filter(Boolean)
        .join(' and ');
      if (!(await hasSnapshot(this.snapshotDir))) {
        throw new PipelineError(
          `vite-plugin-content-sync: set ${missing}, or use the embedded option to build against a local space`,
        );
      }
      this.log.warn(`content-sync: ${missing} not set: building from the existing snapshot, which may be stale`);
      return { offline: true };
    }
    try {
      return { result: await this.#syncNow(this.#baseUrl, this.#token, events), offline: false };
    } catch (err) {
      const unreachable = err instanceof ContentApiError && (err.status === undefined || err.status >= 500);
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
    const start = this.#startSync;
    const asked = this.#unsynced.with(start?.events.length ? [...start.events, ...(events ?? [])] : events);
    // Asked for nothing in particular (a reload of an unchanged directory): nothing to fetch.
    if (asked?.length === 0 && !start?.full) {
      this.#startSync = undefined;
      return undefined;
    }
    const result = await this.#sync({
      baseUrl,
      token,
      out: this.snapshotDir,
      api: this.options.api,
      views: [this.options.version],
      ...(asked?.length ? { events: asked } : {}),
      ...(start?.full ? { full: true } : {}),
      // A local service has no rate limit to keep to.
      ...(this.#local ? { client: { pacer: UNPACED } } : {}),
      ...(assetDownloads(this.options) ? { assets: assetDownloads(this.options) } : {}),
    }).catch((err: unknown) => {
      this.#unsynced.failed(asked);
      throw err;
    });
    this.#unsynced.succeeded();
    this.#startSync = undefined;
    if (!result) return undefined;
    // The snapshot now holds the space as the directory has it: what changes there next is told
    // from this (kept once: later syncs in this run take edits made through the control plane).
    if (this.#origin && result.cv === this.#origin.version) {
      writeOrigin(this.#originFile, this.#origin);
      this.#origin = undefined;
    }
    this.durations.sync = result.durationMs;
    this.log.info(
      `content-sync: ${result.mode} sync (cv ${result.cv}): ${result.changed.stories.length} stories written, ` +
        `${result.changed.removed.length} removed; ${result.requests} requests in ${(result.durationMs / 1000).toFixed(1)}s` +
        (result.assets?.downloaded ? `; ${result.assets.downloaded} assets downloaded` : ''),
    );
    return result;
  }
}
