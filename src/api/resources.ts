/**
 * Resources of the Content Delivery API, as they travel on the wire.
 *
 * Objects are loose: the real service adds fields over time and clients must
 * tolerate them, so unknown keys pass through untouched. What is declared here
 * is what the contract promises and what this project relies on.
 */
import { z } from 'zod';
import { asSent } from './as-sent.js';

/** ISO 8601 timestamp as the service sends it (`2024-02-08T16:26:24.425Z`). */
export const Timestamp = z.string();

/**
 * The user-defined body of a story. Always carries the content type in
 * `component` and a `_uid`; every other key depends on the content type.
 */
export const StoryContent = asSent(
  z.looseObject({
    component: z.string(),
    _uid: z.string(),
  }),
);
export type StoryContent = z.infer<typeof StoryContent>;

/** A nested component ("blok") inside content. */
export const Blok = z.looseObject({
  component: z.string(),
  _uid: z.string(),
});
export type Blok = z.infer<typeof Blok>;

export const Alternate = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  full_slug: z.string(),
  is_folder: z.boolean(),
  parent_id: z.number().int().nullable(),
});
export type Alternate = z.infer<typeof Alternate>;

export const TranslatedSlug = z.looseObject({
  path: z.string(),
  name: z.string().nullable(),
  lang: z.string(),
});
export type TranslatedSlug = z.infer<typeof TranslatedSlug>;

export const Story = z.looseObject({
  id: z.number().int(),
  uuid: z.string(),
  name: z.string(),
  slug: z.string(),
  full_slug: z.string(),
  default_full_slug: z.string().nullable().optional(),
  created_at: Timestamp,
  published_at: Timestamp.nullable(),
  first_published_at: Timestamp.nullable(),
  release_id: z.number().int().nullable().optional(),
  lang: z.string(),
  content: StoryContent,
  position: z.number().int(),
  is_startpage: z.boolean(),
  parent_id: z.number().int().nullable(),
  group_id: z.string(),
  alternates: z.array(Alternate),
  translated_slugs: z.array(TranslatedSlug).nullable().optional(),
  tag_list: z.array(z.string()),
  sort_by_date: z.string().nullable().optional(),
});
export type Story = z.infer<typeof Story>;

export const Space = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  domain: z.string(),
  version: z.number().int(),
  language_codes: z.array(z.string()),
});
export type Space = z.infer<typeof Space>;

export const Dimension = z.looseObject({
  id: z.number().int(),
  entry_value: z.string(),
  name: z.string(),
});
export type Dimension = z.infer<typeof Dimension>;

export const Datasource = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  dimensions: z.array(Dimension),
});
export type Datasource = z.infer<typeof Datasource>;

export const DatasourceEntry = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  value: z.string(),
  dimension_value: z.string().nullable(),
});
export type DatasourceEntry = z.infer<typeof DatasourceEntry>;

export const Tag = z.looseObject({
  name: z.string(),
  taggings_count: z.number().int(),
});
export type Tag = z.infer<typeof Tag>;

/** `resolve_links=url`: the compact link target. */
export const LinkUrl = z.looseObject({
  id: z.number().int(),
  uuid: z.string(),
  name: z.string(),
  slug: z.string(),
  full_slug: z.string(),
  url: z.string(),
});
export type LinkUrl = z.infer<typeof LinkUrl>;

/** `resolve_links=link` (v2): the routing properties of a story. */
export const LinkObject = z.looseObject({
  id: z.number().int(),
  uuid: z.string(),
  name: z.string(),
  slug: z.string(),
  full_slug: z.string(),
  is_folder: z.boolean(),
  parent_id: z.number().int().nullable(),
  published: z.boolean(),
  position: z.number().int(),
  is_startpage: z.boolean(),
  real_path: z.string(),
});
export type LinkObject = z.infer<typeof LinkObject>;

/** `resolve_assets=1` (v2): metadata of an asset referenced by content. */
export const AssetMeta = z.looseObject({
  id: z.number().int(),
  filename: z.string(),
});
export type AssetMeta = z.infer<typeof AssetMeta>;
