/**
 * The webhook signature of the contract's service: `webhook-signature` is the
 * hex HMAC-SHA1 of the raw body with the webhook secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signWebhook(body: string | Uint8Array, secret: string): string {
  return createHmac('sha1', secret).update(body).digest('hex');
}

/** Constant-time check of a `webhook-signature` header against the raw body. */
export function verifyWebhook(
  body: string | Uint8Array,
  secret: string,
  signature: string | undefined | null,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(signWebhook(body, secret), 'utf8');
  const given = Buffer.from(signature.trim().toLowerCase(), 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
