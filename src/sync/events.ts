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

/** Parses one payload; events of kinds a sync does not act on (pipelines, releases, ...) give undefined. */
export function parseWebhookEvent(value: unknown): WebhookEvent | undefined {
  if (value === null || typeof value !== 'object')
    throw new WebhookEventError('a webhook payload must be a JSON object');
  const v = value as Record<string, unknown>;
  if ('story_id' in v) {
    const r = StoryEvent.safeParse(v);
    if (!r.success)
      throw new WebhookEventError(`story webhook: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`);
    return r.data;
  }
  if ('datasource_slug' in v) {
    const r = DatasourceEvent.safeParse(v);
    if (!r.success)
      throw new WebhookEventError(
        `datasource webhook: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`,
      );
    return r.data;
  }
  if ('asset_id' in v) {
    const r = AssetEvent.safeParse(v);
    if (!r.success)
      throw new WebhookEventError(`asset webhook: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`);
    return r.data;
  }
  return undefined;
}

export const isAssetEvent = (e: WebhookEvent): e is z.infer<typeof AssetEvent> => 'asset_id' in e;
