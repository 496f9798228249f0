/**
 * Webhooks announcing content changes, as the real service sends them: a
 * JSON POST signed with `webhook-signature` = hex HMAC-SHA1 of the raw body.
 */
import { signWebhook } from '../api/webhook-signature.js';
import type { ChangeEvent } from './store.js';

export interface WebhookPayload {
  text: string;
  action: string;
  space_id: number;
  story_id?: number;
  full_slug?: string;
  datasource_slug?: string;
  asset_id?: number;
}

export { signWebhook, verifyWebhook } from '../api/webhook-signature.js';

export function webhookPayload(event: ChangeEvent, spaceId: number): WebhookPayload {
  if (event.datasource_slug !== undefined) {
    return {
      text: `The datasource ${event.name ?? event.datasource_slug} (${event.datasource_slug}) has been updated.`,
      action: event.action,
      space_id: spaceId,
      datasource_slug: event.datasource_slug,
    };
  }
  const payload: WebhookPayload = {
    text: `The story ${event.name ?? event.story_id} (${event.full_slug ?? ''}) has been ${event.action}.`,
    action: event.action,
    space_id: spaceId,
    story_id: event.story_id!,
  };
  if ((event.action === 'published' || event.action === 'moved') && event.full_slug !== undefined)
    payload.full_slug = event.full_slug;
  return payload;
}

/** An asset change: the payload carries `asset_id` (actions created, replaced, deleted). */
export function assetWebhookPayload(
  event: { action: string; asset_id: number; name: string },
  spaceId: number,
): WebhookPayload {
  return {
    text: `The asset ${event.name} has been ${event.action}.`,
    action: event.action,
    space_id: spaceId,
    asset_id: event.asset_id,
  };
}

/** Posts one webhook; never throws (the sender does not retry), reports failures to `log`. */
export async function postWebhook(
  url: string,
  secret: string,
  payload: WebhookPayload,
  log: (line: string) => void,
): Promise<boolean> {
  const body = JSON.stringify(payload);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-signature': signWebhook(body, secret) },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) log(`webhook ${payload.action} to ${shownUrl(url)}: answered ${res.status}`);
    return res.ok;
  } catch (err) {
    log(
      `webhook ${payload.action} to ${shownUrl(url)} failed: ${(err as Error).message.replaceAll(url, shownUrl(url))}`,
    );
    return false;
  }
}

/**
 * A webhook URL as a log line may show it: a receiver's secret often rides in its query
 * (`?secret=...`) or its user info, and the log goes to terminals and CI logs.
 */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}
