/**
 * A dev server's webhook endpoint (`POST <webhook.path>`), and the changes the embedded service
 * hands over in this process when it cannot post them there.
 */
import { randomBytes } from 'node:crypto';
import type { ViteDevServer } from 'vite';
import type { WebhookPayload } from '../server/index.js';
import { parseWebhookEvent, type WebhookEvent } from '../sync/index.js';
import { answer, type Batcher, webhookEndpoint } from '../trigger/index.js';
import type { ResolvedOptions } from './options.js';
import type { Logger } from './pipeline.js';
import type { ProjectEnv } from './project-env.js';

/**
 * The secrets made here, one per set of options: instances with the same options share one embedded
 * service (shared-pipeline.ts), which signs with the secret of the last to take its webhooks, while
 * the first one's endpoint answers on their dev server (the plugin in a config twice by mistake).
 */
const made = new Map<string, string>();

/** The secret webhooks are signed with; none turns the endpoint off. */
export function webhookSecret(options: ResolvedOptions, env: ProjectEnv): string | undefined {
  // Without a secret of the user's, the embedded service's control plane still reaches this server:
  // through a secret made here, which only the service in this process is given. An empty
  // CONTENT_WEBHOOK_SECRET is no secret (as an empty CONTENT_STORE is no store).
  const given = options.webhook.secret ?? (env.CONTENT_WEBHOOK_SECRET || undefined);
  if (given || !options.embedded?.admin) return given;
  const key = JSON.stringify(options);
  let secret = made.get(key);
  if (!secret) made.set(key, (secret = randomBytes(24).toString('hex')));
  return secret;
}

/**
 * Serves `POST <webhook.path>` on `server`: webhooks signed with `secret` hand their events (when
 * they name any) to `accept`; refusals go to `warn`. Without a secret, a 404 says how to turn it on.
 */
export function serveWebhooks(
  server: ViteDevServer,
  webhook: ResolvedOptions['webhook'],
  secret: string | undefined,
  accept: (events: WebhookEvent[]) => void,
  warn: (line: string) => void,
): void {
  const endpoint = secret
    ? webhookEndpoint({
        secret,
        maxBytes: webhook.maxBytes,
        accept: (events) => {
          if (events.length) accept(events);
        },
        log: (line) => warn(`content-sync: ${line}`),
      })
    : undefined;

  // Its path alone (connect's mount would also take every path under it: every POST, at "/").
  server.middlewares.use((req, res, next) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== webhook.path) return next();
    if (!endpoint)
      return answer(res, 404, {
        error: 'webhooks are off: set the webhook.secret option or CONTENT_WEBHOOK_SECRET',
      });
    endpoint(req, res);
  });
}

/** A change the embedded service hands over in this process (middleware mode), taken as its webhook would be. */
export function deliverInProcess(payload: WebhookPayload, batcher: Batcher<WebhookEvent>, logger: Logger): void {
  try {
    const event = parseWebhookEvent(payload);
    if (event) batcher.add([event]);
  } catch (err) {
    logger.warn(`content-sync: a change of the embedded service was not understood: ${(err as Error).message}`);
  }
}
