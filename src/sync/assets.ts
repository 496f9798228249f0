/**
 * Localizing assets: every asset the synced stories reference is downloaded
 * into the snapshot (content-addressed, see src/snapshot/assets.ts), staged in
 * the sync's own transaction, so a snapshot is complete with its assets or not
 * at all.
 *
 * Incremental: the index remembers which stories use which assets. Only the
 * references of stories this sync changed are read; only assets not held are
 * downloaded; those no story uses any more are removed. A full sync also asks
 * the CDN whether each held file changed (`If-None-Match` with its ETag): an
 * asset replaced at the same URL is downloaded again, its old file removed.
 *
 * Downloads have their own queue and retries (the asset CDN is not the API and
 * spends nothing of its rate budget), are limited in size, and go only to the
 * space's asset hosts unless more are allowed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { assetContentType, assetReferences, parseAssetUrl } from '../api/assets.js';
import { withDeadline } from '../client/deadline.js';
import { errorText } from '../client/index.js';
import {
  ASSET_INDEX,
  assetFileName,
  assetIndexText,
  readAssetIndex,
  sha256,
  type AssetFile,
  type AssetIndex,
  type SnapshotTransaction,
  type StoryRecord,
} from '../snapshot/index.js';
import { count } from '../text/index.js';

export interface AssetSyncOptions {
  /** Downloads at once (default 8). */
  concurrency?: number;
  /** Retries of a failed download (default 4). */
  retries?: number;
  /** Largest file accepted, in bytes (default 50 MiB). */
  maxBytes?: number;
  /** Origins besides the API's own that assets may be downloaded from, e.g. `https://a.example-cdn.com`. */
  hosts?: string[];
  /** Leave out assets that cannot be downloaded (listed in the result) instead of failing the sync. */
  allowMissing?: boolean;
  /** Per-download timeout in ms (default 30 s). */
  timeoutMs?: number;
  /** First retry delay in ms (default 200). */
  minBackoffMs?: number;
}

export interface AssetSyncResult {
  /** Assets referenced by the snapshot's stories. */
  referenced: number;
  downloaded: number;
  /** Asset paths no story references any more, dropped from the index. */
  removed: number;
  /** Held files the CDN confirmed unchanged (a full sync asks for each). */
  unchanged: number;
  bytes: number;
  retries: number;
  /** Assets left out (only with allowMissing). */
  missing: AssetFailure[];
  /** Time spent on assets in this sync (references, downloads, staging), in ms. */
  durationMs: number;
}

export interface AssetFailure {
  url: string;
  storyId: number;
  field: string;
  reason: string;
}

export class AssetSyncError extends Error {
  override name = 'AssetSyncError';
}

/** What the sync hands over: the stories after this pass, and how to read one. */
export interface AssetSyncInput {
  txn: SnapshotTransaction;
  /** The snapshot directory (as committed). */
  out: string;
  spaceId: number;
  /** The API's base URL: its origin is an asset host. */
  baseUrl: string;
  /** Every story id the snapshot will hold. */
  storyIds: Iterable<number>;
  /** Stories whose record this pass wrote: their references are read again. */
  changed: ReadonlySet<number>;
  /** The asset references of a story as this pass leaves it. */
  references: (id: number) => Promise<AssetReference[]>;
  /** Ask the CDN whether each held file changed (a full sync); otherwise held files are trusted. */
  revalidate?: boolean;
  signal?: AbortSignal;
}

export interface AssetReference {
  url: string;
  storyId: number;
  field: string;
}
type Reference = AssetReference;

/** Every asset reference of a record (any view, release or language), with its field. */
export function recordAssetReferences(record: StoryRecord, spaceId: number): Reference[] {
  const out: Reference[] = [];
  const versions = [record.published, record.draft, ...Object.values(record.releases ?? {})];
  for (const version of versions) {
    if (!version) continue;
    const contents: Array<[string, unknown]> = [['content', version.story.content]];
    for (const [lang, overlay] of Object.entries(version.languages ?? {}))
      contents.push([`${lang}:content`, overlay.content]);
    for (const [prefix, content] of contents) {
      for (const ref of assetReferences(content, prefix)) {
        if (parseAssetUrl(ref.url)!.spaceId === spaceId)
          out.push({ url: ref.url, storyId: record.id, field: ref.field });
      }
    }
  }
  return out;
}

/** The references of a record, none for a story without one. */
export function recordReferences(record: StoryRecord | undefined, spaceId: number): Reference[] {
  return record ? recordAssetReferences(record, spaceId) : [];
}

/** Downloads what is missing, drops what is unused, and stages the new index. */
export async function syncAssets(input: AssetSyncInput, options: AssetSyncOptions = {}): Promise<AssetSyncResult> {
  const started = performance.now();
  const old = (await readAssetIndex(input.out)) ?? { files: {}, stories: {} };
  const next: AssetIndex = { files: {}, stories: {} };
  // First reference of each asset path, for downloading it and for naming it in an error.
  const firstUse = new Map<string, Reference>();
  const ids = [...input.storyIds].sort((a, b) => a - b);
  for (const id of ids) {
    const known = old.stories[String(id)];
    let paths: string[];
    if (known && !input.changed.has(id)) paths = known;
    else {
      const refs = await input.references(id);
      for (const ref of refs) {
        const p = parseAssetUrl(ref.url)!.path;
        if (!firstUse.has(p)) firstUse.set(p, ref);
      }
      paths = [...new Set(refs.map((r) => parseAssetUrl(r.url)!.path))].sort();
    }
    if (paths.length) next.stories[String(id)] = paths;
  }

  const downloader = new Downloader(input, options);
  const referenced = new Set(Object.values(next.stories).flat());
  const toFetch: Array<{ ref: Reference; held?: AssetFile }> = [];
  let userIndex: Map<string, number[]> | undefined;
  const users = () => (userIndex ??= usersOf(next));
  for (const p of [...referenced].sort()) {
    const held = old.files[p];
    if (held && existsSync(path.join(input.out, held.file))) {
      next.files[p] = held;
      if (!input.revalidate) continue;
      // Asked at the URL a story has now: the one held may be of an origin the space left (an
      // index written before it followed the stories there).
      const ref =
        firstUse.get(p) ??
        (downloader.allows(held.url) ? heldReference(users(), p, held) : await findReference(input, users(), p));
      if (ref) toFetch.push({ ref, held });
    } else {
      const ref = firstUse.get(p) ?? (await findReference(input, users(), p));
      if (ref) toFetch.push({ ref });
    }
  }

  const results = await Promise.all(toFetch.map(({ ref, held }) => downloader.fetch(ref, held)));
  const missing: AssetFailure[] = [];
  for (const [i, result] of results.entries()) {
    const { ref, held } = toFetch[i]!;
    if ('reason' in result) {
      const named = held ? ((await findReference(input, users(), parseAssetUrl(ref.url)!.path)) ?? ref) : ref;
      missing.push({ ...named, reason: result.reason });
    } else next.files[parseAssetUrl(ref.url)!.path] = result.url === ref.url ? result : { ...result, url: ref.url };
  }
  if (missing.length && !options.allowMissing) {
    const lines = missing.slice(0, 10).map((m) => `  ${m.url} (story ${m.storyId}, field ${m.field}): ${m.reason}`);
    const more = missing.length > 10 ? `\n  ... and ${missing.length - 10} more` : '';
    throw new AssetSyncError(
      `${count(missing.length, 'asset')} could not be downloaded; the previous snapshot is untouched:\n${lines.join('\n')}${more}\n` +
        'Allow missing assets (--allow-missing-assets, or assets: { allowMissing: true }) to sync without them.',
    );
  }

  // Files no longer used by any asset path leave with the commit.
  const kept = new Set(Object.values(next.files).map((f) => f.file));
  for (const f of Object.values(old.files)) if (!kept.has(f.file)) input.txn.delete(f.file);
  const removed = Object.keys(old.files).filter((p) => !referenced.has(p)).length;
  const text = assetIndexText(next);
  if (text !== assetIndexText(old) || !existsSync(path.join(input.out, ASSET_INDEX)))
    await input.txn.put(ASSET_INDEX, text);
  return {
    referenced: referenced.size,
    downloaded: downloader.downloaded,
    removed,
    unchanged: downloader.unchanged,
    bytes: downloader.bytes,
    retries: downloader.retries,
    missing,
    durationMs: performance.now() - started,
  };
}

/**
 * The stories (in the index's order) that use each asset path. Made once: a search of every story
 * for each asset took minutes at 20,000 stories, each with an asset of its own.
 */
function usersOf(next: AssetIndex): Map<string, number[]> {
  const users = new Map<string, number[]>();
  for (const [id, paths] of Object.entries(next.stories))
    for (const p of paths) {
      const ids = users.get(p);
      if (ids) ids.push(Number(id));
      else users.set(p, [Number(id)]);
    }
  return users;
}

/** A held asset's reference without reading a record: its URL and a story that uses it (the field, only on failure). */
function heldReference(users: ReadonlyMap<string, readonly number[]>, p: string, held: AssetFile): Reference {
  return { url: held.url, storyId: users.get(p)?.[0] ?? Number.NaN, field: '(held)' };
}

/** A held story that references `p` but whose file is gone: read its record to learn the URL. */
async function findReference(
  input: AssetSyncInput,
  users: ReadonlyMap<string, readonly number[]>,
  p: string,
): Promise<Reference | undefined> {
  for (const id of users.get(p) ?? []) {
    const ref = (await input.references(id)).find((r) => parseAssetUrl(r.url)!.path === p);
    if (ref) return ref;
  }
  return undefined;
}

class DownloadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

class Downloader {
  readonly #input: AssetSyncInput;
  readonly #options: AssetSyncOptions;
  readonly #queue: PQueue;
  readonly #hosts: Set<string>;
  readonly #maxBytes: number;
  /** Digests staged by this sync: a file is stored once however many paths share its bytes. */
  readonly #staged = new Set<string>();
  downloaded = 0;
  unchanged = 0;
  bytes = 0;
  retries = 0;

  constructor(input: AssetSyncInput, options: AssetSyncOptions) {
    this.#input = input;
    this.#options = options;
    this.#queue = new PQueue({ concurrency: options.concurrency ?? 8 });
    this.#hosts = new Set([new URL(input.baseUrl).origin, ...(options.hosts ?? []).map((h) => new URL(h).origin)]);
    this.#maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  }

  /** Whether `url` is at one of the hosts assets are downloaded from. */
  allows(url: string): boolean {
    return this.#hosts.has(new URL(url).origin);
  }

  /** Downloads the asset; with `held`, only when the CDN says it changed (else `held` comes back). */
  async fetch(ref: Reference, held?: AssetFile): Promise<AssetFile | { reason: string }> {
    const url = new URL(ref.url);
    if (!this.allows(ref.url)) {
      return {
        reason: `${url.origin} is not one of the space's asset hosts (${[...this.#hosts].join(', ')}); allow it with the asset hosts option`,
      };
    }
    try {
      const got = await this.#queue.add(() =>
        pRetry(() => this.#get(ref.url, held?.etag), {
          retries: this.#options.retries ?? 4,
          minTimeout: this.#options.minBackoffMs ?? 200,
          factor: 2,
          randomize: true,
          ...(this.#input.signal ? { signal: this.#input.signal } : {}),
          onFailedAttempt: () => {
            this.retries++;
          },
          shouldRetry: ({ error }) => !(error instanceof DownloadError) || error.retryable,
        }),
      );
      if (got === 'not-modified') {
        this.unchanged++;
        return held!;
      }
      return await this.#stage(ref, got!.bytes, got!.etag);
    } catch (err) {
      if (this.#input.signal?.aborted) throw err;
      return { reason: (err as Error).message };
    }
  }

  async #get(url: string, etag: string | undefined): Promise<{ bytes: Buffer; etag?: string } | 'not-modified'> {
    const ms = this.#options.timeoutMs ?? 30_000;
    return withDeadline(
      ms,
      this.#input.signal,
      (signal) => this.#fetch(url, etag, signal),
      () => new Error(`no complete answer within ${ms / 1000} s`),
    );
  }

  async #fetch(
    url: string,
    etag: string | undefined,
    signal: AbortSignal,
  ): Promise<{ bytes: Buffer; etag?: string } | 'not-modified'> {
    const headers: Record<string, string> = etag ? { 'if-none-match': etag } : {};
    const res = await fetch(url, { signal, redirect: 'manual', headers }).catch((err: unknown) => {
      if (this.#input.signal?.aborted) throw new AbortError(err as Error);
      throw new DownloadError(`the download failed: ${reasonOf(err, signal)}`, true);
    });
    if (res.status === 304 && etag) {
      await res.body?.cancel();
      return 'not-modified';
    }
    if ([301, 302, 303, 307, 308].includes(res.status)) {
      await res.body?.cancel();
      // Not followed: a redirect could lead anywhere (another host, the cloud's metadata address).
      throw new DownloadError(
        `answered ${res.status} to ${res.headers.get('location') ?? 'nowhere'}: asset downloads do not follow redirects`,
        false,
      );
    }
    if (!res.ok) {
      const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
      // What the CDN says goes with it (an image service without its library says what to install).
      const said = await errorText(res);
      throw new DownloadError(`answered ${res.status}${said ? ` (${said})` : ''}`, retryable);
    }
    // A web page where another file was asked for (a captive portal, a login page) is not the asset.
    if (/^text\/html\b/i.test(res.headers.get('content-type') ?? '') && !/\.html?$/i.test(new URL(url).pathname)) {
      await res.body?.cancel();
      throw new DownloadError('answered a web page (text/html), not the file', false);
    }
    // A compressed answer (a CDN's gzip) declares the length of what was sent, not of the file fetch
    // decodes: that is checked as it arrives, and a body cut short fails its decoding instead.
    const encoding = res.headers.get('content-encoding');
    const declared = !encoding || encoding === 'identity' ? Number(res.headers.get('content-length') ?? NaN) : NaN;
    if (declared > this.#maxBytes) {
      await res.body?.cancel();
      throw new DownloadError(
        `${declared} bytes is more than the largest asset allowed (${this.#maxBytes} bytes)`,
        false,
      );
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of (res.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > this.#maxBytes)
          throw new DownloadError(`more than the largest asset allowed (${this.#maxBytes} bytes)`, false);
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof DownloadError) throw err;
      if (this.#input.signal?.aborted) throw new AbortError(err as Error);
      throw new DownloadError(`the download broke off: ${reasonOf(err, signal)}`, true);
    }
    if (Number.isFinite(declared) && size !== declared)
      throw new DownloadError(`the download broke off after ${size} of ${declared} bytes`, true);
    const sent = res.headers.get('etag');
    return { bytes: Buffer.concat(chunks, size), ...(sent ? { etag: sent } : {}) };
  }

  async #stage(ref: Reference, bytes: Buffer, etag: string | undefined): Promise<AssetFile> {
    const asset = parseAssetUrl(ref.url)!;
    const digest = sha256(bytes);
    const file = assetFileName(digest, asset.name);
    if (!this.#staged.has(file) && !existsSync(path.join(this.#input.out, file))) {
      this.#staged.add(file);
      await this.#input.txn.putPieces(file, [bytes]);
    }
    this.downloaded++;
    this.bytes += bytes.length;
    return {
      url: ref.url,
      file,
      sha256: digest,
      bytes: bytes.length,
      type: assetContentType(asset.name),
      width: asset.width,
      height: asset.height,
      ...(etag ? { etag } : {}),
    };
  }
}

/** Why a download stopped: the timeout's own reason when it fired, else the error's. */
function reasonOf(err: unknown, signal: AbortSignal): string {
  if (signal.aborted && signal.reason instanceof Error) return signal.reason.message;
  return (err as Error).message;
}
