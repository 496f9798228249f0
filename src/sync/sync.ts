/**
 * Full and incremental sync of a space into a snapshot directory.
 *
 * Full: the space, every story of the chosen views in every language, every
 * datasource in every dimension and the tags, staged and committed at once.
 * Incremental (a snapshot exists):
 * - the cache version did not move: one request, nothing written;
 * - webhook events given: only what they name is fetched;
 * - otherwise the changes are found by asking for stories published since the
 *   last sync and by a census of the rest (how many of a batch of known ids
 *   still sit at their known slugs; batches that lost some are bisected).
 * Published content that moves while a pass reads it is detected (a newer
 * cache version in a redirect or a body) and the pass is redone.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { ApiVersion, Space, Story } from '../api/index.js';
import { ContentClient, UntrustedCount, type ClientOptions } from '../client/index.js';
import {
  ASSET_INDEX,
  DEFAULT_LANG,
  assetIndexText,
  readAssetIndex,
  FILES,
  INDEX_FILES,
  StoryRecord,
  SnapshotTransaction,
  canonicalJson,
  committedStamps,
  datasourceFile,
  datasourceIndexEntry,
  forgetState,
  indexEntry,
  indexEntryText,
  indexRowsText,
  isStackOverflow,
  loadState,
  nestingDepth,
  readText,
  rememberState,
  scanIndexRows,
  sha256,
  sortedIndex,
  sortedIndexPieces,
  storyFile,
  type DatasourceIndexEntry,
  type DatasourceRecord,
  type IndexLayout,
  type Manifest,
  type LastComplete,
  lastCompleteOf,
  type SnapshotState,
  type StoryIndexEntry,
  type StoryVersion,
} from '../snapshot/index.js';
import {
  recordAssetReferences,
  recordReferences,
  syncAssets,
  type AssetReference,
  type AssetSyncOptions,
  type AssetSyncResult,
} from './assets.js';
import { SpaceFetcher, type StoryGroup } from './fetcher.js';
import { InconsistentListing } from './inconsistent-listing.js';
import { MismatchedAnswer } from './mismatched-answer.js';
import { buildManifest, buildRecord, buildVersion, publicationTime, type TagsSnapshot } from './records.js';
import type { View } from '../api/index.js';
import { isAssetEvent, type WebhookEvent } from './events.js';
import { refuseForeignDirectory } from './destination.js';
import { SyncError } from './sync-error.js';

export interface SyncOptions {
  baseUrl: string;
  token: string;
  /** Snapshot directory. */
  out: string;
  api?: 'v1' | 'v2';
  /** Views to hold (default published; draft needs a preview token). */
  views?: View[];
  /**
   * Webhook payloads: fetch only the stories and datasources they name. Such a sync vouches for
   * nothing else: the manifest keeps where the last sync that read every change was
   * (`last_complete`), and the next sync without events takes up from there. Asset events have
   * the held asset files asked after again (with `assets`) and, in the published view, narrow
   * nothing: with no other event, the sync looks for changes as one without events would (in the
   * draft view, where that is a full sync, and with `eventsNameEverything`, they narrow to nothing).
   */
  events?: readonly WebhookEvent[];
  /**
   * The events name every change since the snapshot's version: a service that posts a webhook
   * for each change (the embedded one), or the changes of its space directory. The sync then
   * vouches for them as a census would.
   */
  eventsNameEverything?: boolean;
  /** Ignore the existing snapshot and read everything. */
  full?: boolean;
  client?: Partial<Omit<ClientOptions, 'baseUrl' | 'token' | 'api'>>;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  /** Passes before giving up when content keeps moving (default 5). */
  maxPasses?: number;
  now?: () => Date;
  /** Download every referenced asset into the snapshot (see assets.ts); absent: assets stay remote. */
  assets?: AssetSyncOptions;
}

export interface SyncProgress {
  /** `waiting`: for another writer of the snapshot (`waitingFor`) to finish, before anything is asked. */
  phase: 'waiting' | 'space' | 'stories' | 'census' | 'datasources' | 'tags' | 'commit';
  waitingFor?: string;
  stories: number;
  storiesTotal: number | undefined;
  requests: number;
  startedAt: number;
}

export interface SyncResult {
  mode: 'full' | 'incremental' | 'unchanged';
  /** Why a sync over an existing snapshot read the whole space although not asked to (another API, views or languages; a version gone back). */
  fullBecause?: string;
  space: Space;
  cv: number;
  counts: { stories: number; datasources: number };
  changed: { stories: number[]; removed: number[]; datasources: number[]; tags: boolean };
  files: { written: number; deleted: number };
  requests: number;
  retries: number;
  throttled: number;
  redirects: number;
  bytes: number;
  passes: number;
  durationMs: number;
  /** With the assets option, unless the sync found nothing changed. */
  assets?: AssetSyncResult;
}

/** How long a sync waits for another writer of its snapshot to finish before it fails, naming it. */
const WAIT_FOR_WRITER_MS = 120_000;

class Moved extends Error {}

interface Pass {
  client: ContentClient;
  fetcher: SpaceFetcher;
  space: Space;
  views: View[];
  txn: SnapshotTransaction;
  /** The index being built: starts as the old one for incremental passes. */
  stories: Map<number, StoryIndexEntry>;
  datasources: Map<number, DatasourceIndexEntry>;
  changed: Set<number>;
  removed: Set<number>;
  changedDatasources: Set<number>;
  progress: SyncProgress;
  report: () => void;
  /** Digest of the stories index as it stands on disk (undefined: write it). */
  previousIndexDigest: string | undefined;
  /** Layout of the stories index on disk, when this process wrote it. */
  previousIndex: IndexLayout | undefined;
  /**
   * Asked for a full sync (`--full`): a record the index already has is still compared with the
   * file on disk, and written when that differs (a file damaged or edited by hand is put right).
   */
  verify: boolean;
  /** The index entries of the snapshot as this pass found it. */
  committed: ReadonlyMap<number, StoryIndexEntry>;
  /** With assets: the asset references of each record written, taken while it is in memory. */
  assetRefs: Map<number, AssetReference[]> | undefined;
  /** A pass that fetched only what events named: the last sync that read every change (kept in the manifest). */
  lastComplete?: LastComplete | undefined;
  /** When the pass began, by the sync's clock. */
  now: Date;
}

/** Whether the snapshot's file `rel` does not hold `text` (a missing or unreadable file does not). */
async function differsOnDisk(pass: Pass, rel: string, text: string): Promise<boolean> {
  return (await readText(path.join(pass.txn.dir, rel))) !== text;
}

function languagesOf(space: Space): string[] {
  return [DEFAULT_LANG, ...space.language_codes];
}

/** Writes one story record unless its bytes are already on disk. */
async function putStory(pass: Pass, record: StoryRecord): Promise<void> {
  const story = (record.published ?? record.draft)?.story;
  const text = story ? refusingDeepContent(story, () => canonicalJson(record)) : canonicalJson(record);
  const entry = indexEntry(record, text, languagesOf(pass.space));
  // Its index text made now, while the network is awaited, so the commit only joins texts.
  indexEntryText(entry);
  const old = pass.stories.get(record.id);
  pass.stories.set(record.id, entry);
  if (old?.digest === entry.digest) {
    // Unchanged. With --full the file is checked too, and put right if it is not what the index says.
    if (pass.verify && (await differsOnDisk(pass, storyFile(record.id), text)))
      await pass.txn.put(storyFile(record.id), text);
    return;
  }
  if (old && pass.committed.get(record.id)?.digest === entry.digest) {
    // Back to the record the snapshot holds, after another this pass: with both views, the
    // published pass stages a story without its draft, and the draft pass puts the draft back.
    // Not a change; with --full a file on disk that is not that record is still put right.
    pass.changed.delete(record.id);
    if (pass.verify && (await differsOnDisk(pass, storyFile(record.id), text)))
      await pass.txn.put(storyFile(record.id), text);
    else await pass.txn.unstage(storyFile(record.id));
    return;
  }
  pass.changed.add(record.id);
  pass.assetRefs?.set(record.id, recordAssetReferences(record, pass.space.id));
  await pass.txn.put(storyFile(record.id), text);
}

/**
 * `walk` over a story's content (building its version, writing its record). Content nested
 * thousands of levels deep overflows a recursive walk: refused naming the story (the pass fails,
 * the snapshot stays as it was), not with a bare "Maximum call stack size exceeded".
 */
function refusingDeepContent<T>(story: Pick<Story, 'id' | 'full_slug' | 'content'>, walk: () => T): T {
  try {
    return walk();
  } catch (err) {
    if (!isStackOverflow(err)) throw err;
    throw new SyncError(
      `story ${story.id} (${story.full_slug}): its content is nested ${nestingDepth(story.content)} levels deep, more than a ` +
        `sync can store; nothing was written, the snapshot is as it was. Flatten the story in the space.`,
    );
  }
}

/** The version a sync stores for one story. */
function versionOf(group: StoryGroup): StoryVersion {
  return refusingDeepContent(group.base, () => buildVersion(group.base, group.variants));
}

/** The record of a story as the snapshot (or this pass's staging) holds it. */
async function currentRecord(pass: Pass, id: number): Promise<StoryRecord | undefined> {
  const staged = await readText(path.join(pass.txn.dir, '.txn', 'files', storyFile(id)));
  const text = staged ?? (await readText(path.join(pass.txn.dir, storyFile(id))));
  if (!text) return undefined;
  const record: unknown = JSON.parse(text);
  // Checked, and kept as written (zod's copy would drop a content field named __proto__).
  return StoryRecord.safeParse(record).success ? (record as StoryRecord) : undefined;
}

/** How the snapshot differs from what this sync reads (API, views, languages), if it does: a snapshot of another shape is read anew. */
function shapeChange(manifest: Manifest, api: string, views: readonly string[], space: Space): string | undefined {
  if (manifest.api !== api) return `the snapshot was synced with the ${manifest.api} API, this sync uses ${api}`;
  if (canonicalJson(manifest.views) !== canonicalJson(views))
    return `the snapshot held the ${manifest.views.join(' and ')} view, this sync asks for ${views.join(' and ')}`;
  if (canonicalJson(manifest.languages) !== canonicalJson(languagesOf(space))) return "the space's languages changed";
  return undefined;
}

function checkMoved(pass: Pass): void {
  if (pass.client.movedTo !== undefined) throw new Moved();
}

/** Every story of every view, streamed to the staging area page by page. */
async function fetchAllStories(pass: Pass): Promise<void> {
  const seen = new Set<number>();
  pass.progress.phase = 'stories';
  const both = pass.views.includes('published') && pass.views.includes('draft');
  for (const view of pass.views) {
    const draftPass = view === 'draft';
    const listed = new Set<number>();
    const total = await pass.fetcher.eachPage(view, async (groups) => {
      for (const g of groups) {
        listed.add(g.base.id);
        const version = versionOf(g);
        let record: StoryRecord;
        if (draftPass && both) {
          const published = seen.has(g.base.id)
            ? ((await currentRecord(pass, g.base.id))?.published ?? undefined)
            : undefined;
          record = buildRecord(published, version);
        } else {
          record = draftPass ? buildRecord(undefined, version) : buildRecord(version, undefined);
        }
        seen.add(g.base.id);
        await putStory(pass, record);
        pass.progress.stories++;
      }
      pass.report();
      checkMoved(pass);
    });
    // What this listing did not name is removed below: only when it names as many as it counts.
    if (listed.size !== total) throw new InconsistentListing(`${view} stories`, listed.size, total);
    pass.progress.storiesTotal = (pass.progress.storiesTotal ?? 0) + total;
  }
  for (const id of [...pass.stories.keys()]) {
    if (!seen.has(id)) removeStory(pass, id);
  }
}

/**
 * The records of a snapshot read whole without its indexes that the space no longer lists: no index
 * names them for removal, and serve would go on serving a story deleted since.
 */
async function removeUnlisted(pass: Pass, out: string): Promise<void> {
  const unlisted = async (folder: string, listed: ReadonlyMap<number, unknown>): Promise<number[]> => {
    const names = await fs.readdir(path.join(out, folder)).catch(() => [] as string[]);
    return names.flatMap((name) => {
      const id = /^(\d+)\.json$/.exec(name)?.[1];
      return id !== undefined && !listed.has(Number(id)) ? [Number(id)] : [];
    });
  };
  for (const id of await unlisted(FILES.stories, pass.stories)) {
    pass.removed.add(id);
    pass.txn.delete(storyFile(id));
  }
  for (const id of await unlisted(FILES.datasources, pass.datasources)) {
    pass.changedDatasources.add(id);
    pass.txn.delete(datasourceFile(id));
  }
}

function removeStory(pass: Pass, id: number): void {
  if (!pass.stories.has(id)) return;
  pass.stories.delete(id);
  pass.removed.add(id);
  pass.txn.delete(storyFile(id));
}

async function putDatasource(pass: Pass, record: DatasourceRecord): Promise<void> {
  const text = canonicalJson(record);
  const entry = datasourceIndexEntry(record, text);
  const old = pass.datasources.get(entry.id);
  pass.datasources.set(entry.id, entry);
  if (old?.digest === entry.digest) {
    if (pass.verify && (await differsOnDisk(pass, datasourceFile(entry.id), text)))
      await pass.txn.put(datasourceFile(entry.id), text);
    return;
  }
  pass.changedDatasources.add(entry.id);
  await pass.txn.put(datasourceFile(entry.id), text);
}

/** Every datasource (or only those named), in every dimension. */
async function fetchDatasources(pass: Pass, only?: ReadonlySet<string>): Promise<void> {
  const list = await pass.fetcher.datasources();
  const wanted = only ? list.filter((d) => only.has(d.slug)) : list;
  await Promise.all(wanted.map(async (d) => putDatasource(pass, await pass.fetcher.datasource(d))));
  const present = new Set(list.map((d) => d.id));
  for (const id of [...pass.datasources.keys()]) {
    if (!present.has(id)) {
      pass.datasources.delete(id);
      pass.changedDatasources.add(id);
      pass.txn.delete(datasourceFile(id));
    }
  }
  checkMoved(pass);
}

async function fetchTags(pass: Pass): Promise<string> {
  const tags: TagsSnapshot = {};
  for (const view of pass.views) tags[view] = await pass.fetcher.tags(view);
  return canonicalJson(tags);
}

/**
 * Parts of a pass run side by side. Every part settles before a failure is thrown (the first
 * part's first: the stories say most), so nothing is still staging into the transaction the
 * failure aborts.
 */
async function settleAll<T extends readonly unknown[]>(parts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(parts);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Stages the small files (space, tags, indexes, manifest) and commits. */
async function finish(
  pass: Pass,
  out: string,
  tagsText: string | undefined,
  now: Date,
): Promise<{ tagsChanged: boolean }> {
  pass.progress.phase = 'commit';
  pass.report();
  const spaceText = canonicalJson(pass.space);
  const oldTags = await readText(path.join(out, FILES.tags));
  const tags = tagsText ?? oldTags ?? canonicalJson({});
  // The stories index can be tens of megabytes: it is streamed, and staged only when its digest changed.
  // Entries unchanged since this process last wrote it are copied from the file rather than serialized again.
  let layout: Omit<IndexLayout, 'stamp'> | undefined;
  const previous = pass.previousIndex && { layout: pass.previousIndex, file: path.join(out, INDEX_FILES.stories) };
  const pieces = sortedIndexPieces(pass.stories, previous, (l) => (layout = l));
  const storiesIndexDigest = await pass.txn.putPieces(INDEX_FILES.stories, pieces, pass.previousIndexDigest);
  const datasourcesIndex = sortedIndex(pass.datasources);
  const manifest = buildManifest({
    api: pass.client.api,
    space: pass.space,
    views: pass.views,
    stories: [...pass.stories.values()],
    datasources: [...pass.datasources.values()],
    texts: { datasourcesIndex, tags, space: spaceText },
    storiesIndexDigest,
    syncedAt: now.toISOString(),
    lastComplete: pass.lastComplete,
  });
  const small: Array<[string, string]> = [
    [FILES.space, spaceText],
    [FILES.tags, tags],
    [INDEX_FILES.datasources, datasourcesIndex],
  ];
  // What a compile needs of each story, beside the stories index (which it scans when this is missing or describes another).
  const rowsText = layout && indexRowsText(layout, storiesIndexDigest);
  if (rowsText) small.push([INDEX_FILES.storyRows, rowsText]);
  else if (existsSync(path.join(out, INDEX_FILES.storyRows))) pass.txn.delete(INDEX_FILES.storyRows);
  for (const [rel, text] of small) {
    if ((await readText(path.join(out, rel))) !== text) await pass.txn.put(rel, text);
  }
  await pass.txn.put(FILES.manifest, canonicalJson(manifest));
  const stamps = await committedStamps(pass.txn);
  await pass.txn.commit();
  // The next sync of this directory by this process starts from here, unless someone else writes it meanwhile.
  rememberState(
    out,
    { manifest: manifest as SnapshotState['manifest'], stories: pass.stories, datasources: pass.datasources },
    layout,
    stamps,
  );
  return { tagsChanged: oldTags !== tags };
}

/**
 * The rows file of a snapshot that has none (written by an older version), for an unchanged
 * sync: read off the stories index as it stands, in the sync's transaction. Compiles read it
 * instead of scanning the index; nothing else changes.
 */
async function addMissingRows(txn: SnapshotTransaction, state: SnapshotState): Promise<void> {
  const text = await missingRowsText(txn.dir, state);
  if (text === undefined) return txn.abort();
  await txn.put(INDEX_FILES.storyRows, text);
  await txn.commit();
}

async function missingRowsText(out: string, state: SnapshotState): Promise<string | undefined> {
  const digest = (state.manifest.digests as Record<string, string> | undefined)?.stories;
  if (!digest || existsSync(path.join(out, INDEX_FILES.storyRows))) return;
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path.join(out, INDEX_FILES.stories));
  } catch {
    return;
  }
  // Only an index as sync writes it, the one the manifest names.
  const rows = sha256(bytes) === digest ? scanIndexRows(bytes.toString('latin1'), bytes) : undefined;
  if (!rows || rows.some((r) => !state.stories.has(r.id)) || rows.length !== state.stories.size) return;
  const text = indexRowsText(
    {
      entries: state.stories,
      ids: Float64Array.from(rows, (r) => r.id),
      starts: Float64Array.from(rows, (r) => r.at! - 2),
      ends: Float64Array.from(rows, (r) => r.at! + r.size!),
    },
    digest,
  );
  return text;
}

/** The last segment of a story's path ('' for a start page): a moved folder changes the others, never this one. */
const ownSlug = (fullSlug: string) => fullSlug.slice(fullSlug.lastIndexOf('/') + 1);

/**
 * Splits entries into batches whose by_ids + by_slugs fit a URL comfortably, as many as their
 * length needs. No two stories of a batch end in the same segment: folders that swap names (or
 * paths) have such stories trade paths without an update of their own, and a count of a batch
 * holding both could not tell. Those that find no batch without their last segment (a space's
 * many start pages) are `listed`: their paths are read, not counted.
 */
function censusBatches(
  entries: StoryIndexEntry[],
  api: ApiVersion,
  maxChars = 6000,
): { batches: StoryIndexEntry[][]; listed: StoryIndexEntry[] } {
  // Named by id in v2, by uuid in v1 (see SpaceFetcher.byIdentity). The slug's length as the query
  // string carries it: encodeURIComponent throws on a lone surrogate, which JSON and a slug can hold.
  const costOf = (e: StoryIndexEntry) =>
    (api === 'v2' ? String(e.id) : e.uuid).length + new URLSearchParams({ s: e.full_slug }).toString().length + 4;
  const limit = Math.ceil(entries.reduce((n, e) => n + costOf(e), 0) / maxChars) + 1;
  const batches: Array<{ entries: StoryIndexEntry[]; size: number }> = [];
  const listed: StoryIndexEntry[] = [];
  /** By last segment: the first batch that holds no story ending in it. */
  const free = new Map<string, number>();
  /** The batches before it have no room left to speak of: not looked through again. */
  let open = 0;
  for (const e of entries) {
    const cost = costOf(e);
    const slug = ownSlug(e.full_slug);
    let b = Math.max(open, free.get(slug) ?? 0);
    while (b < batches.length && batches[b]!.entries.length && batches[b]!.size + cost > maxChars) b++;
    if (b === batches.length) {
      if (b >= limit) {
        listed.push(e);
        continue;
      }
      batches.push({ entries: [], size: 0 });
    }
    batches[b]!.entries.push(e);
    batches[b]!.size += cost;
    free.set(slug, b + 1);
    while (open < batches.length && batches[open]!.size > maxChars - 64) open++;
  }
  return { batches: batches.map((b) => b.entries), listed };
}

/** The entries no longer at their id and slug among those the census reads (see censusBatches). */
async function movedListed(pass: Pass, listed: StoryIndexEntry[]): Promise<StoryIndexEntry[]> {
  const found = new Map<number, string>();
  for (let i = 0; i < listed.length; i += 100) {
    const part = pass.fetcher.byIdentity(listed.slice(i, i + 100));
    for (const s of await pass.fetcher.bases('published', part)) found.set(s.id, s.full_slug);
  }
  return listed.filter((e) => found.get(e.id) !== e.full_slug);
}

/** The entries of a batch no longer at their id and slug, by bisection. */
async function missing(pass: Pass, batch: StoryIndexEntry[], known?: number): Promise<StoryIndexEntry[]> {
  const inPlace = known ?? (await pass.fetcher.stillInPlace('published', batch));
  if (inPlace >= batch.length) return [];
  if (inPlace === 0 || batch.length === 1) return batch;
  // Ask for the first half only: the second half holds the rest of the count.
  const half = Math.ceil(batch.length / 2);
  const first = batch.slice(0, half);
  const firstInPlace = await pass.fetcher.stillInPlace('published', first);
  if (firstInPlace > inPlace || inPlace - firstInPlace > batch.length - half) {
    // Published content changed between the two counts (stories deleted meanwhile): another pass.
    checkMoved(pass);
    // Counts that contradict each other: no story may be called gone on their word.
    throw new SyncError(
      `the census counted ${inPlace} of ${batch.length} stories in place, then ${firstInPlace} of the first ${half}: the service's counts contradict each other, so no deletion is concluded from them; try again, or sync with --full`,
    );
  }
  const [a, b] = await Promise.all([
    missing(pass, first, firstInPlace),
    missing(pass, batch.slice(half), inPlace - firstInPlace),
  ]);
  return [...a, ...b];
}

/** Minute precision of the API's date filters: step back a minute to miss nothing. */
function minuteBefore(iso: string): string {
  const d = new Date(Date.parse(iso) - 60_000);
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

/** Finds what changed in the published view without events. */
async function census(pass: Pass, state: SnapshotState): Promise<void> {
  pass.progress.phase = 'census';
  // From the last sync that read every change: a sync of events since may have taken newer
  // publications while one whose event was lost is older. (A watermark that is no date, or lies
  // ahead, as an older version may have kept, starts the census from the beginning.)
  const mark = lastCompleteOf(state.manifest).max_published_at;
  const since = publicationTime(mark, pass.now.getTime()) === undefined ? null : mark;
  // Created, changed or re-published: published after the newest known publication.
  const listed = new Set<number>();
  const filter = since ? { published_at_gt: minuteBefore(since) } : {};
  const total = await pass.fetcher.eachPage(
    'published',
    async (groups) => {
      for (const g of groups) {
        listed.add(g.base.id);
        await putStory(pass, buildRecord(versionOf(g), undefined));
      }
      pass.report();
      checkMoved(pass);
    },
    filter,
  );
  // A publication listed twice hides another, which the watermark then passes for good.
  if (listed.size !== total) throw new InconsistentListing('stories published since the last sync', listed.size, total);
  // Moved without a new publication: a count cannot see two stories that swap their slugs,
  // so stories updated since are compared with their known slug.
  if (since) {
    const updated = await pass.fetcher.bases('published', { updated_at_gt: minuteBefore(since) });
    // (And one the snapshot lacks though it is published: a sync it was lost to reads it again.)
    const moved = updated.filter((s) => !pass.changed.has(s.id) && pass.stories.get(s.id)?.full_slug !== s.full_slug);
    for (const g of await pass.fetcher.byIds(
      'published',
      moved.map((s) => s.id),
    ))
      await putStory(pass, buildRecord(versionOf(g), undefined));
    checkMoved(pass);
  }
  // Unpublished, deleted or moved: no longer at their id and slug.
  const rest = [...state.stories.values()].filter((e) => e.published && !pass.changed.has(e.id));
  const { batches, listed: unbatched } = censusBatches(rest, pass.client.api);
  const lost = (await Promise.all([...batches.map((b) => missing(pass, b)), movedListed(pass, unbatched)])).flat();
  if (lost.length) {
    const found = await pass.fetcher.byIds(
      'published',
      lost.map((e) => e.id),
    );
    const back = new Set<number>();
    for (const g of found) {
      back.add(g.base.id);
      await putStory(pass, buildRecord(versionOf(g), undefined));
    }
    for (const e of lost) if (!back.has(e.id)) removeStory(pass, e.id);
  }
  checkMoved(pass);
}

/**
 * Applies webhook events: fetches exactly the stories and datasources they
 * name. `census` is set when an event names a change whose stories cannot be
 * told (a moved folder the snapshot cannot place and whose new path is not given).
 */
async function applyEvents(
  pass: Pass,
  state: SnapshotState,
  events: readonly WebhookEvent[],
): Promise<{ datasources: Set<string>; census: boolean }> {
  pass.progress.phase = 'stories';
  // Every story an event names is asked for, whatever the event says: what the service still
  // serves is written, what it does not is removed. An event can arrive late or out of order (an
  // unpublish delivered after the publish that followed it), and a story is never taken as gone
  // on an event's word alone.
  const refetch = new Set<number>();
  const datasources = new Set<string>();
  const movedFolders = new Set<string>();
  let unplaced = false;
  for (const e of events) {
    if ('datasource_slug' in e && typeof e.datasource_slug === 'string') {
      datasources.add(e.datasource_slug);
      continue;
    }
    if (!('story_id' in e) || typeof e.story_id !== 'number') continue;
    const id = e.story_id;
    if (e.action === 'published' || e.action === 'unpublished' || e.action === 'deleted') refetch.add(id);
    else if (e.action === 'moved') {
      // Asked for whatever the snapshot holds: a folder is delivered by no listing (nothing comes
      // back), a story the snapshot lacks (its publication's event lost) comes in.
      refetch.add(id);
      if (!state.stories.has(id)) {
        // A folder: what the snapshot holds under its old path, and what the service
        // lists under its new one (a folder holding only folders has no story that places it).
        const children = childrenOfFolder(state, id);
        for (const child of children ?? []) refetch.add(child);
        if (typeof e.full_slug === 'string' && e.full_slug !== '') movedFolders.add(e.full_slug.replace(/\/*$/, '/'));
        else if (!children) unplaced = true;
      }
    }
  }
  for (const prefix of movedFolders) {
    for (const view of pass.views) {
      for (const story of await pass.fetcher.bases(view, { starts_with: prefix }))
        if (story.full_slug.startsWith(prefix)) refetch.add(story.id);
    }
  }
  const ids = [...refetch];
  const groups = new Map<number, { published?: StoryVersion; draft?: StoryVersion }>();
  for (const view of pass.views) {
    for (const g of await pass.fetcher.byIds(view, ids)) {
      const slot = groups.get(g.base.id) ?? {};
      slot[view] = versionOf(g);
      groups.set(g.base.id, slot);
    }
  }
  for (const id of ids) {
    const slot = groups.get(id);
    if (slot && (slot.published || slot.draft)) await putStory(pass, buildRecord(slot.published, slot.draft));
    else removeStory(pass, id);
  }
  checkMoved(pass);
  return { datasources, census: unplaced };
}

/**
 * Stories inside a folder, by what the snapshot knows: the folder's path is
 * read off a story whose parent it is, and everything under that path moves.
 */
function childrenOfFolder(state: SnapshotState, folderId: number): number[] | undefined {
  const direct = [...state.stories.values()].find((s) => s.parent_id === folderId);
  if (!direct) return undefined;
  const prefix = direct.is_startpage ? direct.full_slug : `${direct.full_slug.split('/').slice(0, -1).join('/')}/`;
  return [...state.stories.values()].filter((s) => s.full_slug.startsWith(prefix)).map((s) => s.id);
}

/** The client a sync with these options reads the space through. */
export function syncClient(options: SyncOptions): ContentClient {
  return new ContentClient({
    baseUrl: options.baseUrl,
    token: options.token,
    api: options.api ?? 'v2',
    ...(options.signal ? { signal: options.signal } : {}),
    ...options.client,
  });
}

/** What every pass of one sync shares: its options, client, clock and progress. */
interface SyncRun {
  options: SyncOptions;
  /** The snapshot directory, absolute. */
  out: string;
  views: View[];
  client: ContentClient;
  started: number;
  now: () => Date;
  progress: SyncProgress;
  report: () => void;
}

/**
 * Refuses options a script without types can pass (the CLI and the plugin check theirs): a missing
 * `out` failed as a bare `paths[0]` TypeError, `api: 'v3'` as a 404 blaming the base URL.
 */
function checkOptions(options: SyncOptions): void {
  if (typeof options.out !== 'string' || options.out === '')
    throw new TypeError('sync needs out: the directory to write the snapshot into');
  if (options.api !== undefined && options.api !== 'v1' && options.api !== 'v2')
    throw new TypeError(`api must be 'v1' or 'v2', got ${String(options.api)}`);
  for (const view of options.views ?? [])
    if (view !== 'published' && view !== 'draft')
      throw new TypeError(`views must hold 'published' and/or 'draft', got ${String(view)}`);
}

export async function sync(options: SyncOptions): Promise<SyncResult> {
  const started = performance.now();
  checkOptions(options);
  const views: View[] = [...new Set(options.views ?? ['published'])].sort().reverse() as View[];
  if (!views.length) throw new SyncError('no view to sync; choose published, draft or both');
  const out = path.resolve(options.out);
  const client = syncClient(options);
  await refuseForeignDirectory(out);
  const maxPasses = options.maxPasses ?? 5;
  const progress: SyncProgress = {
    phase: 'space',
    stories: 0,
    storiesTotal: undefined,
    requests: 0,
    startedAt: started,
  };
  const report = () => {
    progress.requests = client.stats.requests;
    options.onProgress?.(progress);
  };
  const run: SyncRun = {
    options,
    out,
    views,
    client,
    started,
    now: options.now ?? (() => new Date()),
    progress,
    report,
  };

  for (let passNo = 1; ; passNo++) {
    // The lock first: the state read next is then the one this sync's commit replaces.
    // Another writer's sync (a dev server's, beside a build) is waited for, as a compile waits.
    const txn = await SnapshotTransaction.begin(out, WAIT_FOR_WRITER_MS, {
      ...(options.signal ? { signal: options.signal } : {}),
      onWait: (holder) => {
        progress.phase = 'waiting';
        progress.waitingFor = holder;
        report();
      },
    });
    try {
      return await syncPass(run, txn, passNo);
    } catch (err) {
      await txn.abort();
      if (passAgain(err) && passNo < maxPasses) continue;
      forgetState(out);
      throw givenUp(err, maxPasses, out);
    }
  }
}

/**
 * Whether a failed pass is worth another: published content moved while it was read, or answers
 * did not add up (content changed where no cache version tells, or a service that lies).
 */
function passAgain(err: unknown): boolean {
  return (
    err instanceof Moved ||
    err instanceof InconsistentListing ||
    err instanceof MismatchedAnswer ||
    err instanceof UntrustedCount
  );
}

/** The error a sync ends with when its last pass failed with `err`. */
function givenUp(err: unknown, maxPasses: number, out: string): unknown {
  if (err instanceof Moved) {
    return new SyncError(
      `published content kept changing during ${maxPasses} passes; the previous snapshot in ${out} is untouched; try again`,
    );
  }
  if (err instanceof InconsistentListing) {
    return new SyncError(
      `${err.message}, in each of ${maxPasses} passes (its pages overlap: the space kept changing, or the service repeats itself); nothing was concluded from it and the previous snapshot in ${out} is untouched; try again`,
    );
  }
  if (err instanceof MismatchedAnswer || err instanceof UntrustedCount) {
    return new SyncError(
      `${err.message}, in each of ${maxPasses} passes; nothing was concluded from it and the previous snapshot in ${out} is untouched; try again, and if it persists, what answers for the service (a proxy, a cache) is not answering what it is asked`,
    );
  }
  return err;
}

/** How a pass goes about the snapshot it found: see planPass. */
interface PassPlan {
  /** The snapshot is taken as the base (same shape, version not gone back, not --full; the draft view only with narrowing events). */
  incremental: boolean;
  /** Events narrow the pass to what they name. */
  narrowing: boolean;
  /** Asset events have the held asset files asked after again. */
  revalidating: boolean;
  /** The last sync that read every change is at the space's version: nothing changed since. */
  current: boolean;
  /** The snapshot's stories and datasources are the base of the index built (its shape is unchanged). */
  sameShape: boolean;
  /** Why a sync over an existing snapshot reads the whole space although not asked to. */
  fullBecause: string | undefined;
}

function planPass(run: SyncRun, state: SnapshotState | undefined, space: Space): PassPlan {
  const { options, views } = run;
  const changed = state && shapeChange(state.manifest, run.client.api, views, space);
  const sameShape = state !== undefined && changed === undefined;
  // A cache version lower than the snapshot's: the space went back (restored, or a local service
  // restarted without the edits made through its control plane). A census asks what was published
  // since, and events name what changed since: neither sees content that went back, so all is read.
  const wentBack = state !== undefined && space.version < state.manifest.cv;
  // Events naming stories or datasources narrow the sync to them. Asset events alone (a replaced
  // asset changes no story) have the held files asked after again, with asset downloads, and
  // narrow nothing: the sync looks for changes as one without events would (a census), except
  // where that would read the whole space (the draft view), where the events are known to name
  // every change there is, or where there is no change to look for and files to ask after (the
  // last complete sync is at the space's version).
  const events = options.events ?? [];
  const assetEvents = events.some(isAssetEvent);
  const revalidating = options.assets !== undefined && assetEvents;
  const current = state !== undefined && lastCompleteOf(state.manifest).cv === space.version;
  const narrowing =
    events.some((e) => !isAssetEvent(e)) ||
    (assetEvents && (views.includes('draft') || options.eventsNameEverything === true || (revalidating && current)));
  const incremental = !options.full && sameShape && !wentBack && !(views.includes('draft') && !narrowing);
  // Said with a full sync the snapshot did not ask for (its views, say, change with it).
  const why =
    changed ??
    (wentBack ? `the space's version went back (${space.version}, the snapshot's ${state!.manifest.cv})` : undefined);
  return {
    incremental,
    narrowing,
    revalidating,
    current,
    sameShape,
    fullBecause: state && !options.full ? why : undefined,
  };
}

async function syncPass(run: SyncRun, txn: SnapshotTransaction, passNo: number): Promise<SyncResult> {
  const { options, out, client, progress } = run;
  // Read even with --full: the old index names the files of stories that are gone.
  const state = await loadState(out);
  progress.phase = 'space';
  progress.stories = 0;
  progress.storiesTotal = undefined;
  const space = await client.space();
  run.report();
  if (state && state.manifest.space.id !== space.id) {
    throw new SyncError(
      `the token reads space ${space.id} (${space.name}) but ${out} holds a snapshot of space ${state.manifest.space.id} (${state.manifest.space.name}); use another --out directory or the token of that space`,
    );
  }
  const plan = planPass(run, state, space);
  // A snapshot there whose state cannot be read (its indexes deleted or damaged): read whole, saying so.
  const unindexed = !state && existsSync(path.join(out, FILES.manifest));
  if (unindexed && !options.full) plan.fullBecause = "the snapshot's indexes could not be read";
  // A snapshot synced without assets gets them on the first sync that asks, even when nothing else changed.
  const assetsMissing = options.assets !== undefined && !existsSync(path.join(out, ASSET_INDEX));
  // Unchanged only when the last sync that read every change is at the space's version (asset
  // events to revalidate by then narrow the sync).
  if (plan.incremental && !plan.narrowing && plan.current && !assetsMissing) {
    await addMissingRows(txn, state!);
    return syncResult(run, 'unchanged', passNo, space, plan, state!);
  }
  const pass = newPass(run, txn, space, state, plan);
  const tagsText = await readChanges(pass, state, plan, options);
  if (unindexed) await removeUnlisted(pass, out);
  checkMoved(pass);
  // v1 answers carry no cache version and never redirect: ask the space again before committing.
  if (client.api === 'v1' && (await client.space()).version !== space.version) throw new Moved();
  const assets = options.assets && (await localizeAssets(pass, out, options, plan.revalidating));
  if (!options.assets) await forgetAssetUses(pass, out);
  const { tagsChanged } = await finish(pass, out, tagsText, run.now());
  const mode = plan.incremental ? 'incremental' : 'full';
  return { ...syncResult(run, mode, passNo, space, plan, state, pass, tagsChanged), ...(assets ? { assets } : {}) };
}

/** A pass over `state` (the snapshot as found): the index it builds starts as the snapshot's. */
function newPass(
  run: SyncRun,
  txn: SnapshotTransaction,
  space: Space,
  state: SnapshotState | undefined,
  plan: PassPlan,
): Pass {
  const pass: Pass = {
    client: run.client,
    fetcher: new SpaceFetcher(run.client, space),
    space,
    views: run.views,
    txn,
    stories: new Map(state && plan.sameShape ? state.stories : []),
    datasources: new Map(state && plan.sameShape ? state.datasources : []),
    changed: new Set(),
    removed: new Set(),
    changedDatasources: new Set(),
    progress: run.progress,
    report: run.report,
    previousIndexDigest: (state?.manifest.digests as Record<string, string> | undefined)?.stories,
    previousIndex: state?.index,
    verify: run.options.full === true && state !== undefined,
    committed: state?.stories ?? new Map(),
    assetRefs: run.options.assets ? new Map() : undefined,
    now: run.now(),
  };
  if (!plan.incremental && state) {
    // A full pass over an existing snapshot still skips files whose bytes are unchanged.
    for (const [id, e] of state.stories) pass.stories.set(id, e);
    for (const [id, d] of state.datasources) pass.datasources.set(id, d);
  }
  return pass;
}

/**
 * Reads what changed into the pass: what events name, else a census of the snapshot, else the
 * whole space. The tags' text, when they were read.
 */
async function readChanges(
  pass: Pass,
  state: SnapshotState | undefined,
  plan: PassPlan,
  options: SyncOptions,
): Promise<string | undefined> {
  if (plan.narrowing && plan.incremental) {
    const named = await applyEvents(pass, state!, options.events!);
    if (named.census) await census(pass, state!);
    else
      pass.lastComplete = options.eventsNameEverything
        ? state!.manifest.last_complete
        : lastCompleteOf(state!.manifest);
    // After a census, every datasource and the tags as a sync without events reads them: the
    // snapshot is then taken as complete.
    if (named.census || named.datasources.size) {
      pass.progress.phase = 'datasources';
      await fetchDatasources(pass, named.census ? undefined : named.datasources);
    }
    if (!named.census && !pass.changed.size && !pass.removed.size) return undefined;
    pass.progress.phase = 'tags';
    return fetchTags(pass);
  }
  // Datasources and tags are a few requests: asked for beside the stories they take slots the
  // pacer has to spare, instead of adding a tail of round trips after the last page.
  const [, , tagsText] = await settleAll([
    plan.incremental ? census(pass, state!) : fetchAllStories(pass),
    fetchDatasources(pass),
    fetchTags(pass),
  ] as const);
  return tagsText;
}

/** What a pass did (`pass` absent: nothing changed, counted from `state`). */
function syncResult(
  run: SyncRun,
  mode: SyncResult['mode'],
  passNo: number,
  space: Space,
  plan: PassPlan,
  state: SnapshotState | undefined,
  pass?: Pass,
  tagsChanged = false,
): SyncResult {
  const stats = run.client.stats;
  return {
    mode,
    ...(mode === 'full' && plan.fullBecause ? { fullBecause: plan.fullBecause } : {}),
    space,
    cv: space.version,
    counts: {
      stories: pass ? pass.stories.size : state!.stories.size,
      datasources: pass ? pass.datasources.size : state!.datasources.size,
    },
    changed: {
      stories: pass ? [...pass.changed].sort((a, b) => a - b) : [],
      removed: pass ? [...pass.removed].sort((a, b) => a - b) : [],
      datasources: pass ? [...pass.changedDatasources].sort((a, b) => a - b) : [],
      tags: tagsChanged,
    },
    files: pass
      ? { written: pass.txn.changes.puts.length, deleted: pass.txn.changes.deletes.length }
      : { written: 0, deleted: 0 },
    requests: stats.requests,
    retries: stats.retries,
    throttled: stats.throttled,
    redirects: stats.redirects,
    bytes: stats.bytes,
    passes: passNo,
    durationMs: performance.now() - run.started,
  };
}

/** Stages the assets the stories of this pass reference, in the pass's transaction. */
function localizeAssets(
  pass: Pass,
  out: string,
  options: SyncOptions,
  /** Asset events asked for the held files to be checked again. */
  assetEvents: boolean,
): Promise<AssetSyncResult> {
  return syncAssets(
    {
      txn: pass.txn,
      out,
      spaceId: pass.space.id,
      baseUrl: options.baseUrl,
      storyIds: pass.stories.keys(),
      changed: pass.changed,
      references: async (id) =>
        pass.assetRefs?.get(id) ?? recordReferences(await currentRecord(pass, id), pass.space.id),
      // A replaced asset keeps its URL: a full sync, or an asset webhook, asks after every held file.
      revalidate: options.full === true || assetEvents,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    options.assets,
  );
}

/**
 * A sync without assets into a snapshot that has them (`watch --out` into the plugin's snapshot):
 * the asset index would go on naming what the stories it wrote used before, and a sync with assets
 * reads the references of the stories it writes itself only, so their new assets would never be
 * downloaded. Their entries are dropped: the next sync with assets reads their references again.
 */
async function forgetAssetUses(pass: Pass, out: string): Promise<void> {
  if (!pass.changed.size) return;
  const index = await readAssetIndex(out);
  if (!index) return;
  const stale = [...pass.changed].map(String).filter((id) => id in index.stories);
  if (!stale.length) return;
  for (const id of stale) delete index.stories[id];
  await pass.txn.put(ASSET_INDEX, assetIndexText(index));
}

/** Whether a snapshot directory holds a complete manifest. */
export async function hasSnapshot(dir: string): Promise<boolean> {
  try {
    await fs.access(path.join(dir, FILES.manifest));
    return true;
  } catch {
    return false;
  }
}
