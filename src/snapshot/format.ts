/**
 * The space directory: the one on-disk format shared by the local service
 * (which serves it), the sync engine (which writes it) and the demo generator.
 *
 *   manifest.json            format version, space, cache version, views, languages, counts
 *   space.json               the space object as `spaces/me` delivers it
 *   stories/<id>.json        one story: its published and draft versions, per language
 *   folders.json             folders (structure only; never delivered by `stories`)
 *   datasources/<id>.json    one datasource with its entries in every dimension
 *   tags.json                tags as delivered (informative; the service derives them)
 *   releases.json            releases that stories may hold versions for
 *   workflow_stages.json     workflow stages stories may be in
 *
 * File names come from numeric ids, never from content.
 */
import { z } from 'zod';
import { Datasource, Space, Story, Tag, asSent, type View } from '../api/index.js';

export const FORMAT_VERSION = 1;
export const DEFAULT_LANG = 'default';

/**
 * Why a directory whose manifest has `format` is refused, when a newer version wrote it: this one
 * would misread it, or replace it in its own format. Undefined for a format this version reads.
 */
export function newerFormatReason(dir: string, format: unknown): string | undefined {
  if (typeof format !== 'number' || format <= FORMAT_VERSION) return undefined;
  return `${dir} holds a snapshot of format ${format}, written by a newer content-sync than this one (which reads format ${FORMAT_VERSION}): upgrade content-sync to use it`;
}

/**
 * What a language variant changes relative to the default-language story.
 * Top-level keys replace the default's; `content` is merged key by key into
 * the default content (a translated field replaces that field whole).
 */
export const LanguageOverlay = z.looseObject({
  full_slug: z.string(),
  // As sent: a content field named `__proto__` is kept (see asSent).
  content: asSent(z.record(z.string(), z.unknown())).optional(),
});
export type LanguageOverlay = z.infer<typeof LanguageOverlay>;

/** One view (published, draft or a release) of a story in every language. */
export const StoryVersion = z.object({
  story: Story,
  languages: z.record(z.string(), LanguageOverlay).optional(),
});
export type StoryVersion = z.infer<typeof StoryVersion>;

export const StoryRecord = z.object({
  id: z.number().int(),
  uuid: z.string(),
  /** Absent or null: never published, or unpublished. */
  published: StoryVersion.nullable().optional(),
  /** Absent: the draft equals the published version. */
  draft: StoryVersion.nullable().optional(),
  /** Versions staged in releases, by release id. */
  releases: z.record(z.string(), StoryVersion).optional(),
  workflow_stage_id: z.number().int().nullable().optional(),
  /** Time of the last change to the draft (not delivered; drives `updated_at_*`). */
  updated_at: z.string().optional(),
});
export type StoryRecord = z.infer<typeof StoryRecord>;

export const Folder = z.looseObject({
  id: z.number().int(),
  uuid: z.string(),
  name: z.string(),
  slug: z.string(),
  full_slug: z.string(),
  parent_id: z.number().int().nullable(),
  position: z.number().int(),
  translated_slugs: z
    .array(z.looseObject({ lang: z.string(), path: z.string(), name: z.string().nullable() }))
    .nullable()
    .optional(),
});
export type Folder = z.infer<typeof Folder>;

/**
 * An object of strings, kept as parsed: zod's record builds its output by assignment, which
 * drops a key named `__proto__` (a dimension may be named anything).
 */
const StringRecord = z.custom<Record<string, string>>(
  (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string'),
  { message: 'expected an object of strings' },
);

export const DatasourceRecordEntry = z.object({
  id: z.number().int(),
  name: z.string(),
  value: z.string(),
  /** Value per dimension, keyed by the dimension's `entry_value`. */
  dimension_values: StringRecord.optional(),
});
export type DatasourceRecordEntry = z.infer<typeof DatasourceRecordEntry>;

export const DatasourceRecord = z.object({
  datasource: Datasource,
  entries: z.array(DatasourceRecordEntry),
});
export type DatasourceRecord = z.infer<typeof DatasourceRecord>;

export const Release = z.looseObject({ id: z.number().int(), name: z.string() });
export type Release = z.infer<typeof Release>;
export const WorkflowStage = z.looseObject({ id: z.number().int(), name: z.string() });
export type WorkflowStage = z.infer<typeof WorkflowStage>;

export const TagsFile = z.object({
  published: z.array(Tag),
  draft: z.array(Tag).optional(),
});
export type TagsFile = z.infer<typeof TagsFile>;

export const Manifest = z.looseObject({
  format: z.literal(FORMAT_VERSION),
  api: z.enum(['v1', 'v2']).optional(),
  space: Space,
  cv: z.number().int(),
  views: z.array(z.enum(['published', 'draft'])),
  languages: z.array(z.string()),
  counts: z.record(z.string(), z.number().int()),
  digests: z.record(z.string(), z.string()).optional(),
});
export type Manifest = z.infer<typeof Manifest>;

/** The whole space in memory. */
export interface SpaceData {
  space: Space;
  stories: StoryRecord[];
  folders: Folder[];
  datasources: DatasourceRecord[];
  releases: Release[];
  workflowStages: WorkflowStage[];
  /** The views it holds (a snapshot synced with one view has only that one); absent: both. */
  views?: View[];
  /** The file holding each asset's bytes, by asset path (a snapshot synced with `--assets`). */
  assetFiles?: Record<string, string>;
}

export const FILES = {
  manifest: 'manifest.json',
  space: 'space.json',
  stories: 'stories',
  folders: 'folders.json',
  datasources: 'datasources',
  tags: 'tags.json',
  releases: 'releases.json',
  workflowStages: 'workflow_stages.json',
} as const;

/** The indexes sync writes beside the records: what incremental sync and the compiler read without opening records. */
export const INDEX_FILES = {
  stories: 'indexes/stories.json',
  /** What a compile needs of each entry of the stories index, small (see indexRowsText). */
  storyRows: 'indexes/stories.rows.json',
  datasources: 'indexes/datasources.json',
} as const;

/**
 * The names a space directory (a snapshot is one) holds besides hidden ones: FILES, the indexes'
 * folder and the assets' (`assets`, see assets.ts). Anything else in such a directory is someone's.
 */
export const SPACE_DIRECTORY_NAMES: ReadonlySet<string> = new Set([...Object.values(FILES), 'indexes', 'assets']);
