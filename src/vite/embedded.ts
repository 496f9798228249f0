/**
 * The plugin's embedded Content Delivery Service: the local service over a space directory, in
 * this process, with tokens that never leave it but for the project's service file. It starts on
 * the port it had last time (asset URLs carry it), plans what the first sync after reading the
 * directory fetches (space-origin.ts), tells the project's other processes where it is
 * (service-file.ts), and serves the directory again when it changed (a dev server watches it).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeDemoSpace } from '../demo/index.js';
import { type RunningServer, startServer } from '../server/index.js';
import { type FileDigests, RecordFileCache, readSpaceDirectory, type SpaceData } from '../snapshot/index.js';
import type { ResolvedOptions } from './options.js';
import type { Logger } from './pipeline.js';
import { PipelineError } from './pipeline-error.js';
import { announceService, serviceFileOf, withdrawService } from './service-file.js';
import { onKeptPort } from './service-port.js';
import { ORIGIN_FILE, type Origin, readOrigin, type StartSync, startSync, writeOrigin } from './space-origin.js';

type EmbeddedOptions = NonNullable<ResolvedOptions['embedded']>;

/** Where a service of this project is: what a sync needs of it. */
export interface ServiceAddress {
  url: string;
  /** The token of the view synced. */
  token: string;
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

export class EmbeddedService {
  #server: RunningServer;
  /** What the next sync fetches besides what it is asked for, until one succeeds. */
  #plan: StartSync | undefined;
  /** The directory as the service read it: kept once a sync takes the space as it is. */
  #origin: Origin | undefined;
  /** This service, as its owner in the project's service file. */
  readonly #owner = randomBytes(8).toString('hex');

  /** The content directory: the service file, the kept port and the origin are there. */
  readonly #dir: string;
  readonly #snapshotDir: string;
  /** The store's generation when the running service started: another one means the control plane edited it. */
  #generation: number;
  /** What shapes the snapshot synced from it (see ServiceEntry.shape). */
  readonly #shape: string;
  readonly #start: (space: SpaceData, port: number) => Promise<RunningServer>;
  /** The directory's record files as last read: a reload reads again only those that changed. */
  readonly #files: RecordFileCache;

  private constructor(
    readonly data: string,
    readonly tokens: { publicToken: string; previewToken: string },
    paths: { contentDir: string; snapshotDir: string; shape: string },
    start: (space: SpaceData, port: number) => Promise<RunningServer>,
    server: RunningServer,
    files: RecordFileCache,
  ) {
    this.#files = files;
    this.#shape = paths.shape;
    this.#dir = paths.contentDir;
    this.#snapshotDir = paths.snapshotDir;
    this.#start = start;
    this.#server = server;
    this.#generation = server.service.store.generation;
  }

  /**
   * A service over `data` (the demo written there first when asked), on the port asked for or
   * kept; `demoMs` is how long the demo took to write, when this call wrote it.
   */
  static async start(
    embedded: EmbeddedOptions,
    paths: { data: string; contentDir: string; snapshotDir: string; root: string; shape: string },
    log: Logger,
  ): Promise<{ service: EmbeddedService; demoMs?: number }> {
    const { data, contentDir, root } = paths;
    let demoMs: number | undefined;
    // Not a space directory yet (a space directory made by hand, without a manifest, is one).
    if (embedded.demo && !existsSync(path.join(data, 'space.json'))) {
      log.info(
        `content-sync: writing the demo space (${embedded.demo.stories} stories) to ${path.relative(root, data)}`,
      );
      const started = performance.now();
      await writeDemoSpace(data, {
        stories: embedded.demo.stories,
        ...(embedded.demo.seed !== undefined ? { seed: embedded.demo.seed } : {}),
      }).catch((err: Error) => {
        throw new PipelineError(`vite-plugin-content-sync: option "embedded.data": ${err.message}`);
      });
      demoMs = performance.now() - started;
    }
    const tokens = { publicToken: randomBytes(12).toString('hex'), previewToken: randomBytes(12).toString('hex') };
    const startAt = (space: SpaceData, port: number) =>
      startServer({
        space,
        ...tokens,
        rateLimit: false,
        admin: embedded.admin,
        port,
        assetUrls: 'self',
        log: (line) => log.warn(`content-sync service: ${line}`),
      });
    const files = new RecordFileCache();
    const { space, digests } = await readDirectory(data, files).catch((err: Error) => {
      throw new PipelineError(`vite-plugin-content-sync: option "embedded.data": ${err.message}`, { cause: err });
    });
    // A port of its own when one is asked for; else the one it had last time (see service-port.ts).
    const server = embedded.port
      ? await startAt(space, embedded.port).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EADDRINUSE') throw err;
          throw new PipelineError(
            `vite-plugin-content-sync: option "embedded.port": port ${embedded.port} is in use (by a dev server of this project, say); stop what holds it, or leave the port to the plugin (0, the default)`,
          );
        })
      : await onKeptPort(path.join(contentDir, 'service-port'), (port) => startAt(space, port));
    const service = new EmbeddedService(data, tokens, paths, startAt, server, files);
    service.#announce();
    service.#planFrom(space, digests);
    log.info(
      `content-sync: local Content Delivery Service over ${path.relative(root, data) || '.'} at ${server.url}` +
        (embedded.admin ? ` (its control plane: ${server.url}/__admin/)` : ''),
    );
    if (service.#plan?.reason) log.info(`content-sync: reading the whole space: ${service.#plan.reason}`);
    return { service, ...(demoMs !== undefined ? { demoMs } : {}) };
  }

  get server(): RunningServer {
    return this.#server;
  }

  /** The service's address, with the token of `view`. */
  address(view: 'published' | 'draft'): ServiceAddress {
    return { url: this.#server.url, token: view === 'draft' ? this.tokens.previewToken : this.tokens.publicToken };
  }

  /** What the next sync fetches besides what it is asked for: the directory's changes, or everything. */
  get plan(): StartSync | undefined {
    return this.#plan;
  }

  /**
   * A sync succeeded, at `cv` (none: nothing was synced): the plan is done. When the snapshot now
   * holds the space as the directory has it, what changes there next is told from this (kept once:
   * later syncs take edits made through the control plane).
   */
  synced(cv: number | undefined): void {
    this.#plan = undefined;
    if (this.#origin && cv === this.#origin.version) {
      writeOrigin(this.#originFile, this.#origin);
      this.#origin = undefined;
    }
  }

  /**
   * The directory changed: a new service over it on the same port (same tokens, same webhook; the
   * control plane's edits gone, as at a start), and the next sync planned as a start plans it. A
   * directory that cannot be read throws, and the running service goes on serving what it had.
   * Says what changed through `log`.
   */
  async reload(log: Logger): Promise<void> {
    const running = this.#server;
    const { space, digests } = await readDirectory(this.data, this.#files);
    const webhook = running.service.webhook;
    const drafts = running.service.draftListener;
    // Edits made through the control plane, which the snapshot may hold and the new service has not.
    const edited = running.service.store.generation !== this.#generation;
    await running.service.settled();
    await running.close();
    try {
      this.#server = await this.#startAgain(space, running.port);
    } catch (err) {
      // The new one would not start: what the old one served is served again, and the update fails.
      this.#server = await this.#startAgain(running.service.store.toData(), running.port);
      this.#server.service.setWebhook(webhook);
      this.#server.service.setDraftListener(drafts);
      this.#generation = this.#server.service.store.generation;
      this.#announce();
      throw err;
    }
    this.#server.service.setWebhook(webhook);
    this.#server.service.setDraftListener(drafts);
    this.#generation = this.#server.service.store.generation;
    this.#announce();
    this.#planFrom(space, digests);
    // A draft saved through the control plane leaves the cache version as it was: the snapshot may
    // hold drafts the directory never had, which the directory's changes alone would not take out.
    if (!this.#plan!.full && edited)
      this.#plan = { full: true, events: [], reason: 'the edits made through the control plane are gone with it' };
    const { full, events, reason } = this.#plan!;
    const what = events.length === 1 ? 'one story or datasource' : `${events.length} stories and datasources`;
    // Files written again as they were: nothing to say, nothing to fetch.
    if (full || events.length)
      log.info(
        `content-sync: the space directory changed: ${full ? `reading the whole space${reason ? `: ${reason}` : ''}` : `fetching ${what}`}`,
      );
  }

  /**
   * A service over `space` on the port the last one had, or on any when another took it in the
   * moment it was free (the next sync then reads the whole space: its asset URLs moved).
   */
  #startAgain(space: SpaceData, port: number): Promise<RunningServer> {
    return this.#start(space, port).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE') throw err;
      return this.#start(space, 0);
    });
  }

  /** Stops the service (once every webhook it sent has been delivered). */
  async close(): Promise<void> {
    withdrawService(this.#serviceFile, this.#owner);
    await this.#server.service.settled();
    await this.#server.close();
  }

  /**
   * What the next sync fetches, the service having just read the directory: what changed since the
   * snapshot was synced from it, else everything. (The service starts without the edits made through
   * its control plane; a snapshot synced from those has another cache version.)
   */
  #planFrom(space: SpaceData, digests: FileDigests): void {
    this.#origin = { version: space.space.version, service: this.#server.url, files: Object.fromEntries(digests) };
    this.#plan = startSync(readOrigin(this.#originFile), snapshotCv(this.#snapshotDir), this.#origin, space);
  }

  /** Tells the project's other processes where this service is (see service-file.ts). */
  #announce(): void {
    const entry = {
      url: this.#server.url,
      ...this.tokens,
      data: this.data,
      pid: process.pid,
      owner: this.#owner,
      shape: this.#shape,
    };
    announceService(this.#serviceFile, entry);
  }

  get #serviceFile(): string {
    return serviceFileOf(this.#dir);
  }

  /** Where the directory's origin is kept (beside the snapshot, in the content directory). */
  get #originFile(): string {
    return path.join(this.#dir, ORIGIN_FILE);
  }
}

/**
 * The space directory `data` as it is now, with the digests of its files; the files `cache` holds
 * unchanged since the last read are not read again.
 */
async function readDirectory(
  data: string,
  cache: RecordFileCache,
): Promise<{ space: SpaceData; digests: FileDigests }> {
  const digests: FileDigests = new Map();
  const space = await readSpaceDirectory(data, digests, cache);
  return { space, digests };
}
