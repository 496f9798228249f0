/**
 * The asset CDN's place in the service's request pipeline (see ../stages.ts):
 * the files and renditions under /f/, the control plane's /__admin/assets
 * routes, and pointing delivered asset URLs at this service.
 */
import type { Exchange, Stage } from '../pipeline.js';
import { encode, send } from '../respond.js';
import { readJsonBody, type ServiceParts } from '../stages.js';
import { assetWebhookPayload, type WebhookPayload } from '../webhooks.js';
import { isAssetRequest, type AssetService } from './index.js';

/** `/f/...`: the file or a rendition, written by the asset service itself (faults apply first). */
export const assetCdn =
  (parts: ServiceParts, assets: AssetService): Stage<Exchange> =>
  async (x) => {
    if (parts.latencyMs) await new Promise((r) => setTimeout(r, parts.latencyMs));
    parts.stats.count(x.label, await assets.handle(x.req, x.res, x.url, x.cut === 'truncate'), false);
  };

/** Routes asset requests to `stages`, everything else on. */
export const forAssets =
  (stages: Stage<Exchange>): Stage<Exchange> =>
  async (x, next) => {
    if (!isAssetRequest(x.url.pathname)) return next();
    x.label = 'assets';
    await stages(x, async () => undefined);
  };

/** `/__admin/assets`: add, replace, delete; each change announced with an asset webhook. */
export const assetAdmin =
  (parts: ServiceParts, assets: AssetService, announce: (payload: WebhookPayload) => void): Stage<Exchange> =>
  async (x, next) => {
    if (!parts.admin || !x.url.pathname.startsWith('/__admin/assets')) return next();
    let body: unknown = {};
    if (x.method === 'POST' || x.method === 'PUT') {
      const read = await readJsonBody(x.req, parts.maxBodyBytes);
      if ('error' in read) {
        send(x.res, read.error, { connection: 'close' });
        if (read.error.status === 413) x.req.destroy();
        return;
      }
      body = read.body;
    }
    const { reply, event } = await assets.admin(x.method, x.url.pathname, body);
    send(x.res, encode(reply));
    if (event) announce(assetWebhookPayload(event, parts.store.space.id));
  };

/**
 * Delivered asset URLs of the space point at this service's own origin (the
 * request's Host), whose asset CDN serves them. Applied on the way out, so
 * the CDN cache keeps answers as stored.
 */
export const selfAssetUrls =
  (assets: AssetService): Stage<Exchange> =>
  async (x, next) => {
    await next();
    const host = x.req.headers.host;
    if (host && x.answer?.status === 200)
      x.answer = { ...x.answer, body: assets.rewriteUrls(x.answer.body, `http://${host}`) };
  };
