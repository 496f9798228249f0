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
    const host = originHost(x.req.headers.host, x.req.socket.localAddress, x.req.socket.localPort);
    if (host && x.answer?.status === 200)
      x.answer = { ...x.answer, body: assets.rewriteUrls(x.answer.body, `http://${host}`) };
  };

/** A name or address with an optional port: nothing that could end a JSON string or a URL's authority. */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The host delivered asset URLs point at: the request's Host when it is one, else the address the
 * request came in on. The URLs are written into the JSON body as bytes, so a Host holding `"` or a backslash
 * would otherwise break the body or add keys to it.
 */
function originHost(
  host: string | undefined,
  address: string | undefined,
  port: number | undefined,
): string | undefined {
  if (host && HOST.test(host)) return host;
  if (!address || !port) return undefined;
  const plain = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return `${plain.includes(':') ? `[${plain}]` : plain}:${port}`;
}
