/**
 * Webhook payloads as the real service sends them (see the API notes), parsed
 * at the edge. Actions are not namespaced: the kind is told by the key present.
 */
import { z } from 'zod';

export const StoryEvent = z.looseObject({
  text: z.string().optional(),
  action: z.enum(['published', 'unpublished', 'deleted', 'moved']),
  space_id: z.number().int(),
  story_id: z.number().int(),
  full_slug: z.string().optional(),
});

export const DatasourceEvent = z.looseObject({
  text: z.string().optional(),
  action: z.string(),
  space_id: z.number().int(),
  datasource_slug: z.string().min(1),
});

/** An asset created, replaced or deleted: a replaced file keeps its URL, so no story changes. */
export const AssetEvent = z.looseObject({
  text: z.string().optional(),
  action: z.string(),
  space_id: z.number().int(),
  asset_id: z.number().int(),
});

export const WebhookEvent = z.union([StoryEvent, DatasourceEvent, AssetEvent]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export class WebhookEventError extends Error {
  override name = 'WebhookEventError';
}

/** The kinds of payload a sync acts on, each told by the key only it has. */
const KINDS = [
  ['story_id', 'story', StoryEvent],
  ['datasource_slug', 'datasource', DatasourceEvent],
  ['asset_id', 'asset', AssetEvent],
] as const;

/** Parses one payload; events of kinds a sync does not act on (pipelines, releases, ...) give undefined. */
export function parseWebhookEvent(value: unknown): WebhookEvent | undefined {
  if (value === null || typeof value !== 'object')
    throw new WebhookEventError('a webhook payload must be a JSON object');
  const v = value as Record<string, unknown>;
  for (const [key, kind, schema] of KINDS) {
    if (!(key in v)) continue;
    const r = schema.safeParse(v);
    if (!r.success)
      throw new WebhookEventError(
        `${kind} webhook: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`,
      );
    return r.data;
  }
  return undefined;
}

export const isAssetEvent = (e: WebhookEvent): e is z.infer<typeof AssetEvent> => 'asset_id' in e;
