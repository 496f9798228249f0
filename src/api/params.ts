/**
 * Query parameters of every endpoint.
 *
 * On the wire every value is a string. These schemas turn the strings into
 * typed values and say, in their error messages, what was expected. The server
 * validates incoming requests with them; the client types what it sends with
 * the inferred input types. `filter_query[...]` keys are structured and parsed
 * by the query engine, not here.
 */
import { z } from 'zod';

export type ApiVersion = 'v1' | 'v2';
/** Which version of content a token or request reads: the one concept the API calls `version`. */
export type View = 'published' | 'draft';

const positiveInt = (what: string) =>
  z
    .string()
    .regex(/^\+?\d{1,15}$/, `${what} must be a positive whole number`)
    .transform(Number)
    .refine((n) => n >= 1, `${what} must be at least 1`);

const nonNegativeInt = (what: string) =>
  z
    .string()
    .regex(/^\+?\d{1,15}$/, `${what} must be a whole number`)
    .transform(Number);

const intList = (what: string) =>
  z
    .string()
    .regex(/^\s*(-?\d{1,15}\s*(,\s*-?\d{1,15}\s*)*)?,?$/, `${what} must be a comma-separated list of numeric ids`)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '')
        .map(Number),
    );

const stringList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== ''),
);

/**
 * `YYYY-mm-dd HH:MM`, with optional seconds; ISO 8601 is accepted too, as filter_query's gt_date
 * takes it: any fraction (Python's microseconds) and a Z or an offset (`+01:00`, what dayjs and
 * moment format by default), since the service compares instants.
 */
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}(?:[ Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?$/;
const dateString = (what: string) => z.string().regex(DATE_PATTERN, `${what} must be a date like 2024-01-31 13:45`);

const SORT_ITEM = /^[A-Za-z0-9_.-]+(?::(?:asc|desc))?(?::(?:int|float))?$/;
const sortBy = z.string().refine(
  // An empty list (`sort_by=`) or item (a trailing comma) sorts by nothing, as the query engine reads it.
  (s) => s.split(',').every((item) => item === '' || SORT_ITEM.test(item)),
  'sort_by must be a comma-separated list of attribute:asc|desc[:int|:float]',
);

const version = z.enum(['published', 'draft'], { error: 'version must be published or draft' });
const bool01 = (what: string) =>
  z.enum(['0', '1', 'true', 'false'], { error: `${what} must be 0 or 1` }).transform((v) => v === '1' || v === 'true');

/**
 * `resolve_links`. `1` is the parameter's first value (the whole story, as `story` now) and `0`
 * resolves nothing: the official JavaScript client still types both and sends them as given.
 */
const legacyLinks = (v: string) => (v === '1' ? 'story' : v === '0' ? undefined : v);
export const resolveLinksV1 = z
  .enum(['story', 'url', '0', '1'], { error: 'resolve_links must be story or url' })
  .transform((v) => legacyLinks(v) as 'story' | 'url' | undefined);
export const resolveLinksV2 = z
  .enum(['story', 'url', 'link', '0', '1'], { error: 'resolve_links must be story, url or link' })
  .transform((v) => legacyLinks(v) as 'story' | 'url' | 'link' | undefined);

const RELATION_ITEM = /^[^.,\s]+\.[^.,\s]+$/;
const resolveRelations = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  )
  .refine(
    (items) => items.every((i) => RELATION_ITEM.test(i)),
    'resolve_relations must be a comma-separated list of component.field',
  );

/** Parameters every endpoint takes. */
const common = {
  token: z.string().min(1, 'token is required'),
  cv: z.string().optional(),
};

/** Parameters shared by single-story and story-list requests. */
const storyCommon = {
  ...common,
  version: version.optional(),
  resolve_links: z.string().optional(),
  resolve_relations: resolveRelations.optional(),
  from_release: nonNegativeInt('from_release').optional(),
  language: z.string().min(1).optional(),
  fallback_lang: z.string().min(1).optional(),
  resolve_level: nonNegativeInt('resolve_level').optional(),
  resolve_links_level: nonNegativeInt('resolve_links_level').optional(),
  content_type: z.string().optional(),
  resolve_assets: bool01('resolve_assets').optional(),
  /** Top-level story properties to leave out (sent by the official JavaScript client). */
  excluding_story_fields: stringList.optional(),
};

export const SingleStoryQuery = z.object({
  ...storyCommon,
  find_by: z.enum(['uuid'], { error: 'find_by must be uuid' }).optional(),
});
export type SingleStoryQuery = z.output<typeof SingleStoryQuery>;

export const StoryListQuery = z.object({
  ...storyCommon,
  starts_with: z.string().optional(),
  by_uuids: stringList.optional(),
  by_uuids_ordered: stringList.optional(),
  by_slugs: stringList.optional(),
  excluding_slugs: stringList.optional(),
  excluding_ids: intList('excluding_ids').optional(),
  excluding_fields: stringList.optional(),
  in_workflow_stages: intList('in_workflow_stages').optional(),
  sort_by: sortBy.optional(),
  search_term: z.string().optional(),
  first_published_at_gt: dateString('first_published_at_gt').optional(),
  first_published_at_lt: dateString('first_published_at_lt').optional(),
  first_published_at_gte: dateString('first_published_at_gte').optional(),
  first_published_at_lte: dateString('first_published_at_lte').optional(),
  published_at_gt: dateString('published_at_gt').optional(),
  published_at_lt: dateString('published_at_lt').optional(),
  published_at_gte: dateString('published_at_gte').optional(),
  published_at_lte: dateString('published_at_lte').optional(),
  updated_at_gt: dateString('updated_at_gt').optional(),
  updated_at_lt: dateString('updated_at_lt').optional(),
  is_startpage: bool01('is_startpage').optional(),
  with_tag: stringList.optional(),
  page: positiveInt('page').optional(),
  per_page: positiveInt('per_page').optional(),
  level: positiveInt('level').optional(),
  by_ids: intList('by_ids').optional(),
  only_variants: z.string().optional(),
});
export type StoryListQuery = z.output<typeof StoryListQuery>;
export type StoryListQueryInput = z.input<typeof StoryListQuery>;

export const SpaceQuery = z.object({ ...common });
export type SpaceQuery = z.output<typeof SpaceQuery>;

export const DatasourcesQuery = z.object({
  ...common,
  page: positiveInt('page').optional(),
  per_page: positiveInt('per_page').optional(),
});
export type DatasourcesQuery = z.output<typeof DatasourcesQuery>;

export const DatasourceEntriesQuery = z.object({
  ...common,
  datasource: z.string().optional(),
  dimension: z.string().optional(),
  page: positiveInt('page').optional(),
  per_page: positiveInt('per_page').optional(),
});
export type DatasourceEntriesQuery = z.output<typeof DatasourceEntriesQuery>;

export const TagsQuery = z.object({
  ...common,
  starts_with: z.string().optional(),
  version: version.optional(),
});
export type TagsQuery = z.output<typeof TagsQuery>;

/** Parameters a v2 single-story request may carry; anything else is a 422. */
export const SINGLE_STORY_PARAMS_V2: ReadonlySet<string> = new Set(Object.keys(SingleStoryQuery.shape));

/** Parameters a v2 story-list request may carry; anything else is a 422.
 * `filter_query[...]` keys are allowed as a family. */
export const STORY_LIST_PARAMS_V2: ReadonlySet<string> = new Set(Object.keys(StoryListQuery.shape));

/** Paging limits of the contract. */
export const PAGING = {
  defaultPerPage: 25,
  maxStoriesPerPage: 100,
  maxDatasourcesPerPage: 1000,
} as const;

/** Names of parameters that are allowed on v2 story endpoints but not in the
 * typed schema above: structured `filter_query[...]` keys. */
export function isFilterQueryKey(key: string): boolean {
  return key === 'filter_query' || key.startsWith('filter_query[');
}
