/**
 * Response envelopes of versions 1 and 2, and the error bodies the service sends.
 */
import { z } from 'zod';
import { AssetMeta, Datasource, DatasourceEntry, Space, Story, Tag } from './resources.js';

export const StoryEnvelopeV1 = z.looseObject({ story: Story });
export const StoriesEnvelopeV1 = z.looseObject({ stories: z.array(Story) });

/** Version 2 adds `cv`, `rels`, `links` beside `story`/`stories`; `rel_uuids`,
 * `link_uuids` when more references exist than were resolved; `assets` with
 * `resolve_assets=1`. Entries of `links` differ by `resolve_links` mode, so they
 * are only required to be objects here. */
const v2Extras = {
  cv: z.number().int(),
  rels: z.array(Story),
  links: z.array(z.looseObject({ uuid: z.string() })),
  rel_uuids: z.array(z.string()).optional(),
  link_uuids: z.array(z.string()).optional(),
  assets: z.array(AssetMeta).optional(),
};
export const StoryEnvelopeV2 = z.looseObject({ story: Story, ...v2Extras });
export const StoriesEnvelopeV2 = z.looseObject({ stories: z.array(Story), ...v2Extras });

export const SpaceEnvelope = z.looseObject({ space: Space });
export const DatasourcesEnvelope = z.looseObject({
  datasources: z.array(Datasource),
  cv: z.number().int().optional(),
});
export const DatasourceEntriesEnvelope = z.looseObject({
  datasource_entries: z.array(DatasourceEntry),
  cv: z.number().int().optional(),
});
export const TagsEnvelope = z.looseObject({ tags: z.array(Tag) });

export type StoryEnvelopeV1 = z.infer<typeof StoryEnvelopeV1>;
export type StoriesEnvelopeV1 = z.infer<typeof StoriesEnvelopeV1>;
export type StoryEnvelopeV2 = z.infer<typeof StoryEnvelopeV2>;
export type StoriesEnvelopeV2 = z.infer<typeof StoriesEnvelopeV2>;
export type SpaceEnvelope = z.infer<typeof SpaceEnvelope>;
export type DatasourcesEnvelope = z.infer<typeof DatasourcesEnvelope>;
export type DatasourceEntriesEnvelope = z.infer<typeof DatasourceEntriesEnvelope>;
export type TagsEnvelope = z.infer<typeof TagsEnvelope>;

/** 401, 422, 429 and most other errors: `{"error": "..."}`. */
export const ErrorBody = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** 404: a JSON array holding one message. */
export const NotFoundBody = z.array(z.string()).length(1);
export type NotFoundBody = z.infer<typeof NotFoundBody>;

export const NOT_FOUND_MESSAGE = 'This record could not be found';
export const UNAUTHORIZED_MESSAGE = 'Unauthorized';

/** The exact 422 text of v2 stories endpoints for parameters they do not take. */
export function notAllowedMessage(names: readonly string[]): string {
  return `Parameter(s) ${names.join(', ')} not allowed`;
}
