/**
 * What changed in the embedded service's space directory since the snapshot was synced from it.
 *
 * When a sync takes the space as the directory has it (no edits through the control plane since
 * the service read it), the plugin keeps the digests of the directory's files beside the snapshot
 * (`Origin`). At the next start the service reads the directory again; the files whose digests
 * moved name what changed, as an editor's webhooks would: the first sync fetches those stories and
 * datasources instead of comparing the whole space (seconds at 10,000 stories). Whatever the
 * digests cannot tell apart goes to a full sync: the space's settings, folders, releases or
 * workflow stages changed, a datasource gone, most stories changed, or the service on another
 * origin (asset URLs carry it).
 */
import { readFileSync } from 'node:fs';
import type { SpaceData } from '../snapshot/index.js';
import type { WebhookEvent } from '../sync/index.js';
import { keepFile } from './kept-file.js';

/** The file the origin is kept in, in the content directory. */
export const ORIGIN_FILE = 'space-origin.json';

/** The space directory a snapshot was synced from. */
export interface Origin {
  /** The space's version (the cache version the service started at). */
  version: number;
  /** The service's origin: asset URLs in the content carry it. */
  service: string;
  /** Digests of the directory's files by path (readSpaceDirectory's). */
  files: Record<string, string>;
}

/** What the first sync after a start fetches: the whole space, or the stories and datasources `events` name. */
export interface StartSync {
  full: boolean;
  events: WebhookEvent[];
  /** Why the whole space, for the log (none when there is no snapshot yet: nothing to explain). */
  reason?: string;
}

/** The kept origin in `file`, or undefined when there is none or it cannot be read. */
export function readOrigin(file: string): Origin | undefined {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Partial<Origin> | null;
    if (typeof o?.version !== 'number' || typeof o.service !== 'string') return undefined;
    if (o.files === null || typeof o.files !== 'object') return undefined;
    return o as Origin;
  } catch {
    return undefined;
  }
}

/** Keeps `origin` in `file` (see kept-file.ts); not kept, the next start compares the whole space. */
export function writeOrigin(file: string, origin: Origin): void {
  keepFile(file, JSON.stringify(origin));
}

/** Story and datasource files of a space directory (readSpaceDirectory's paths). */
const STORY_FILE = /^stories\/(\d+)\.json$/;
const DATASOURCE_FILE = /^datasources\/(\d+)\.json$/;

/**
 * The first sync after a start: `kept` is the origin kept at the last sync, `cv` the snapshot's
 * cache version, `now` the directory as the service has just read it (`space`).
 */
export function startSync(kept: Origin | undefined, cv: number | undefined, now: Origin, space: SpaceData): StartSync {
  const full = (reason: string | undefined): StartSync => ({ full: true, events: [], ...(reason ? { reason } : {}) });
  if (cv === undefined) return full(undefined);
  // Nothing says which service the snapshot was synced from (an earlier version kept no origin, nor
  // its port): at the space's version, its asset URLs may still name a port nothing serves any more.
  if (!kept)
    return full(
      cv === now.version
        ? `nothing kept says which service the snapshot was synced from (its asset URLs carry it; no ${ORIGIN_FILE} beside it, as an earlier version kept none)`
        : 'the space directory changed since the snapshot was synced',
    );
  // Not known to have been synced from this directory: a full sync unless the snapshot is at the
  // space's version (edits through the control plane move it).
  if (kept.version !== cv) {
    if (cv === now.version) return { full: false, events: [] };
    return full(
      'the snapshot is at another version than the one kept of the space directory (it took edits made through the control plane, say)',
    );
  }
  if (kept.service !== now.service)
    return full(
      `the service is at ${now.service}, the snapshot's asset URLs at ${kept.service} ` +
        '(its port is another when that one is in use, by a dev server of this project, say)',
    );
  const events = changedFiles(kept.files, now.files, space);
  return typeof events === 'string' ? full(events) : { full: false, events };
}

/** Events for the files that differ, or why a full sync is needed. */
function changedFiles(
  before: Record<string, string>,
  after: Record<string, string>,
  space: SpaceData,
): WebhookEvent[] | string {
  const spaceId = space.space.id;
  const slugs = new Map(space.datasources.map((d) => [d.datasource.id, d.datasource.slug]));
  const events: WebhookEvent[] = [];
  let stories = 0;
  for (const rel of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[rel] === after[rel]) continue;
    const story = STORY_FILE.exec(rel);
    if (story) {
      stories++;
      const action = Object.hasOwn(after, rel) ? 'published' : 'deleted';
      events.push({ action, space_id: spaceId, story_id: Number(story[1]) });
      continue;
    }
    const datasource = DATASOURCE_FILE.exec(rel);
    if (!datasource) return `${rel} changed`;
    const slug = slugs.get(Number(datasource[1]));
    // A datasource gone (its slug is not known any more): not something events say.
    if (slug === undefined) return 'a datasource is gone';
    events.push({ action: 'entries_updated', space_id: spaceId, datasource_slug: slug });
  }
  // Most of the space changed (a demo generated again, say): one pass over everything costs less.
  if (stories > space.stories.length / 2) return 'most stories changed';
  return events;
}
