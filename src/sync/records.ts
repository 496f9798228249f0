/**
 * From delivered stories to snapshot records and the manifest, as pure
 * functions: the same content always gives the same bytes, whether it came
 * from a full sync or an incremental one. (The index entries of a record are
 * the snapshot's: see src/snapshot/index-entries.ts.)
 */
import type { Space, Story, Tag, View } from '../api/index.js';
import {
  DEFAULT_LANG,
  FORMAT_VERSION,
  type LanguageOverlay,
  type Manifest,
  type StoryRecord,
  type StoryVersion,
} from '../snapshot/format.js';
import type { DatasourceIndexEntry, StoryIndexEntry } from '../snapshot/index-entries.js';
import { sameJson, sha256 } from '../snapshot/json.js';
import type { LastComplete } from '../snapshot/state.js';
import { materialize, overlayOf, setOverlay, untranslated } from '../snapshot/languages.js';

/**
 * A version from the default-language story and its variants. A variant that
 * is exactly what the service would deliver untranslated is left out; any
 * other is stored as an overlay, checked to rebuild the variant exactly.
 */
export function buildVersion(base: Story, variants: ReadonlyMap<string, Story>): StoryVersion {
  const languages: Record<string, LanguageOverlay> = {};
  for (const lang of [...variants.keys()].sort()) {
    const variant = variants.get(lang)!;
    // Compared as their canonical texts would be, without building them (the bulk of a sync's work otherwise).
    if (sameJson(variant, materialize({ story: base, languages: { [lang]: untranslated(base, lang) } }, lang)))
      continue;
    let overlay = overlayOf(base, variant);
    if (!sameJson(materialize({ story: base, languages: { [lang]: overlay } }, lang), variant)) {
      // Keys the variant lacks cannot be expressed as a merge: keep its content whole.
      overlay = {
        ...overlay,
        content: variant.content as Record<string, unknown>,
        $replace_content: true,
      } as LanguageOverlay;
    }
    setOverlay(languages, lang, overlay);
  }
  return Object.keys(languages).length ? { story: base, languages } : { story: base };
}

/** A record from the versions a sync saw. A draft equal to the published version is left out. */
export function buildRecord(published: StoryVersion | undefined, draft: StoryVersion | undefined): StoryRecord {
  const any = (published ?? draft)!;
  const record: StoryRecord = { id: any.story.id, uuid: any.story.uuid };
  record.published = published ?? null;
  if (draft && (!published || !sameJson(draft, published))) record.draft = draft;
  return record;
}

export interface TagsSnapshot {
  published?: Tag[];
  draft?: Tag[];
}

export interface ManifestInput {
  api: 'v1' | 'v2';
  space: Space;
  views: View[];
  stories: readonly StoryIndexEntry[];
  datasources: readonly DatasourceIndexEntry[];
  texts: { datasourcesIndex: string; tags: string; space: string };
  /** sha256 of indexes/stories.json (written in pieces, never held whole). */
  storiesIndexDigest: string;
  syncedAt: string;
  /** Set by a sync that fetched only what events named (see LastComplete). */
  lastComplete?: LastComplete | undefined;
}

/** How far a publication may lie ahead of the sync's clock (the two clocks differ) and count for the watermark. */
const CLOCK_SKEW_MS = 60 * 60 * 1000;

/**
 * When a publication was, in ms, if it can be a watermark at `now`: a date, and not later than
 * `now` beyond clock skew. Undefined for anything else: one such value would make every later
 * census look past the publications that follow (or fail on it).
 */
export function publicationTime(published: string | null | undefined, now: number): number | undefined {
  const ms = published ? Date.parse(published) : Number.NaN;
  return Number.isFinite(ms) && ms <= now + CLOCK_SKEW_MS ? ms : undefined;
}

/** The newest publication that can be a watermark (see publicationTime), from which the next census asks what was published since. */
function newestPublication(stories: readonly StoryIndexEntry[], syncedAt: string): string | null {
  const now = Date.parse(syncedAt);
  let newest: string | null = null;
  let newestMs = Number.NEGATIVE_INFINITY;
  for (const s of stories) {
    const ms = publicationTime(s.published_at, now);
    if (ms !== undefined && ms > newestMs) {
      newest = s.published_at!;
      newestMs = ms;
    }
  }
  return newest;
}

export function buildManifest(input: ManifestInput): Manifest & Record<string, unknown> {
  const maxPublished = newestPublication(input.stories, input.syncedAt);
  const digests = {
    space: sha256(input.texts.space),
    stories: input.storiesIndexDigest,
    datasources: sha256(input.texts.datasourcesIndex),
    tags: sha256(input.texts.tags),
  };
  return {
    format: FORMAT_VERSION,
    api: input.api,
    space: input.space,
    cv: input.space.version,
    views: input.views,
    languages: [DEFAULT_LANG, ...input.space.language_codes],
    counts: {
      stories: input.stories.length,
      published: input.stories.filter((s) => s.published).length,
      datasources: input.datasources.length,
      datasource_entries: input.datasources.reduce((n, d) => n + d.entries, 0),
    },
    digests: { ...digests, all: sha256(Object.values(digests).join('\n')) },
    max_published_at: maxPublished,
    synced_at: input.syncedAt,
    ...(input.lastComplete ? { last_complete: input.lastComplete } : {}),
  };
}
