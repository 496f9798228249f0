/**
 * The local asset CDN and image service:
 *
 *   GET|HEAD /f/<space>/<WxH>/<hash>/<name>        the original
 *   GET|HEAD /f/<space>/<WxH>/<hash>/<name>/m/...  a rendition (see image-service.ts)
 *
 * Assets are those the space's content references (catalog.ts) plus those
 * added through the control plane; anything else is a 404. Bytes the service
 * holds no file for are rendered as deterministic stand-ins (placeholder.ts).
 */
import { promises as fs } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import PQueue from 'p-queue';
import { assetContentType, isRasterImage, parseAssetPath } from '../../api/assets.js';
import { encode, errorReply, notFound, type Reply, reply, send } from '../respond.js';
import type { SpaceStore } from '../store.js';
import { RenderCache } from './cache.js';
import { AssetCatalog, type AssetEntry, AssetError } from './catalog.js';
import { etagOf, sendFile } from './http.js';
import { ImageRequestError, operationsKey, outputFormat, parseImageOperations, renderImage } from './image-service.js';
import { renderPlaceholder } from './placeholder.js';
import { loadSharp, type SharpFactory, SharpUnavailable } from './sharp.js';

export { AssetCatalog, type AssetEntry } from './catalog.js';

export const isAssetRequest = (pathname: string): boolean => pathname.startsWith('/f/');

/** An asset change made through the control plane, announced by an asset webhook. */
export interface AssetEvent {
  action: 'created' | 'replaced' | 'deleted';
  asset_id: number;
  name: string;
}

const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

/** Nobody waits for the render any more (every client that asked for it left). */
class RenderDropped extends Error {}

/** The status counted for a request whose client left before its answer (nginx's 499). */
const CLIENT_LEFT = 499;

const FORMAT_TYPES = { webp: 'image/webp', avif: 'image/avif', png: 'image/png', jpeg: 'image/jpeg' } as const;

export class AssetService {
  readonly catalog: AssetCatalog;
  readonly #store: SpaceStore;
  readonly #originals = new RenderCache(64 * 1024 * 1024);
  readonly #renditions = new RenderCache(128 * 1024 * 1024);
  /** Image work is CPU-bound: a few at a time keeps memory bounded and the API responsive. */
  readonly #work = new PQueue({ concurrency: 2 });

  /** The image library's module: `sharp`, an optional peer dependency. */
  readonly #library: string;

  constructor(store: SpaceStore, imageLibrary = 'sharp') {
    this.#store = store;
    this.#library = imageLibrary;
    this.catalog = new AssetCatalog(store);
  }

  #sharp(feature: string): Promise<SharpFactory> {
    return loadSharp(feature, this.#library);
  }

  /** Renditions made so far (cache misses of the image service). */
  get renders(): number {
    return this.#renditions.renders;
  }

  /** Image work under way and waiting its turn, for tests and stats. */
  get imageWork(): { running: number; waiting: number } {
    return { running: this.#work.pending, waiting: this.#work.size };
  }

  /** Answers one asset request; returns the status sent. `truncate` (fault injection) cuts the body in half. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, truncate = false): Promise<number> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      send(
        res,
        encode(errorReply(405, `${method} is not supported on assets (GET, HEAD)`, { allow: 'GET, HEAD, OPTIONS' })),
      );
      return 405;
    }
    const parsed = parseAssetPath(url.pathname);
    const entry = parsed && parsed.spaceId === this.#store.space.id ? this.catalog.get(parsed.path) : undefined;
    if (!parsed || !entry) {
      send(res, encode(notFound()));
      return 404;
    }
    try {
      const transform = parsed.transform !== undefined && isRasterImage(entry.name) ? parsed.transform : undefined;
      const sharp = transform === undefined ? undefined : await this.#sharp('the image service (/m/)');
      const original = await this.#original(entry);
      if (!original) {
        send(res, encode(errorReply(404, `the service holds no file for ${entry.path}`)));
        return 404;
      }
      const type = assetContentType(entry.name);
      // An SVG opened on its own runs its scripts in this origin, where the API and the control plane
      // answer: served sandboxed, as an image it is only drawn.
      const extra: Record<string, string> = type === 'image/svg+xml' ? { 'content-security-policy': SVG_POLICY } : {};
      if (transform === undefined || !sharp) return this.#send(req, res, original, type, extra, truncate);
      const ops = parseImageOperations(transform);
      const format = outputFormat(ops, type, req.headers.accept);
      const key = `${entry.path}|${etagOf(original)}|${operationsKey(ops, format)}`;
      const bytes = await this.#rendition(key, res, () =>
        renderImage(sharp, original, ops, format).catch((err: Error) => {
          // What the image library refuses of an original (larger than it transforms, not an image) is the request's to hear.
          throw err instanceof ImageRequestError
            ? err
            : new ImageRequestError(`the original of ${entry.path} cannot be transformed: ${err.message}`);
        }),
      );
      if (!bytes) return CLIENT_LEFT;
      return this.#send(req, res, bytes, FORMAT_TYPES[format], ops.format ? {} : { vary: 'Accept' }, truncate);
    } catch (err) {
      // Without the image library, what needs it is not implemented here: 501, saying how to install it.
      if (err instanceof SharpUnavailable) {
        send(res, encode(errorReply(501, err.message)));
        return 501;
      }
      if (!(err instanceof ImageRequestError)) throw err;
      send(res, encode(errorReply(422, `${err.message}`)));
      return 422;
    }
  }

  /**
   * A rendition, made in its turn on the image queue unless every request waiting for it has left by
   * then (a page navigated away from): renders nobody waits for would hold up the next page's images.
   * Undefined when this request's client left.
   */
  async #rendition(key: string, res: ServerResponse, make: () => Promise<Buffer>): Promise<Buffer | undefined> {
    let left = res.destroyed;
    res.once('close', () => {
      left = true;
    });
    for (;;) {
      try {
        return await this.#renditions.get(
          key,
          (stillWanted) => this.#work.add(() => (stillWanted() ? make() : Promise.reject(new RenderDropped()))),
          () => !left,
        );
      } catch (err) {
        if (!(err instanceof RenderDropped)) throw err;
        // Dropped as it came to its turn: this request came just then and still waits, so it asks again.
        if (left) return undefined;
      }
    }
  }

  #send(
    req: IncomingMessage,
    res: ServerResponse,
    bytes: Buffer,
    type: string,
    extra: Record<string, string>,
    truncate: boolean,
  ): number {
    if (truncate) {
      res.writeHead(200, { 'content-type': type, 'content-length': String(bytes.length) });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      res.destroy();
      return 200;
    }
    sendFile(req, res, bytes, type, extra);
    return res.statusCode;
  }

  #original(entry: AssetEntry): Promise<Buffer | undefined> {
    if (entry.bytes) return Promise.resolve(entry.bytes);
    return this.#originals.get(entry.path, async () => {
      // A snapshot synced with its assets holds the space's own bytes: a mirror serves those.
      const held = await this.#heldFile(entry.path);
      if (held) return held;
      return this.#work.add(() =>
        renderPlaceholder(entry, () => this.#sharp('the asset CDN (stand-ins for assets it holds no file for)')),
      );
    });
  }

  /** The bytes the space directory holds for an asset, if any (a file a later sync removed: none). */
  async #heldFile(assetPath: string): Promise<Buffer | undefined> {
    const file = Object.hasOwn(this.#store.assetFiles, assetPath) ? this.#store.assetFiles[assetPath] : undefined;
    return file === undefined ? undefined : fs.readFile(file).catch(() => undefined);
  }

  /**
   * Rewrites the space's stored asset URLs in a JSON answer so they point at
   * `self` (this service's origin), whose asset CDN serves them.
   */
  rewriteUrls(body: Buffer, self: string): Buffer {
    const assetPath = `/f/${this.#store.space.id}/`;
    // No asset path of the space in it (the space, a datasource, a sync's check of the cache
    // version): nothing to rewrite, and no need yet for the catalog, a walk of every story.
    if (body.indexOf(assetPath) < 0) return body;
    let out = body;
    for (const origin of this.catalog.origins()) {
      if (origin === self) continue;
      out = replaceBytes(out, Buffer.from(`${origin}${assetPath}`), Buffer.from(`${self}${assetPath}`));
    }
    return out;
  }

  /**
   * The control plane's asset routes:
   *   POST /__admin/assets {name, data: base64, alt?, title?, copyright?, focus?}
   *   PUT /__admin/assets/:id {data: base64}     new bytes at the same URL
   *   DELETE /__admin/assets/:id
   */
  async admin(method: string, pathname: string, body: unknown): Promise<{ reply: Reply; event?: AssetEvent }> {
    const m = /^\/__admin\/assets(?:\/(\d+))?\/?$/.exec(pathname);
    if (!m) return { reply: notFound() };
    try {
      const id = m[1] === undefined ? undefined : Number(m[1]);
      if (method === 'POST' && id === undefined) {
        const input = assetInput(body, true);
        const size = await dimensions(input.name, input.bytes, () =>
          this.#sharp('adding an image through the control plane'),
        );
        const entry = this.catalog.add({ ...input, ...size });
        return {
          reply: reply(201, { asset: entry.meta }),
          event: { action: 'created', asset_id: entry.id!, name: entry.name },
        };
      }
      if (method === 'PUT' && id !== undefined) {
        const { bytes } = assetInput(body, false);
        // Checked as an upload is: bytes the image service could not read would fail at every /m/ request.
        const { name } = this.catalog.byId(id);
        await dimensions(name, bytes, () => this.#sharp('replacing an image through the control plane'));
        const entry = this.catalog.replace(id, bytes);
        return {
          reply: reply(200, { asset: { ...entry.meta, id } }),
          event: { action: 'replaced', asset_id: id, name: entry.name },
        };
      }
      if (method === 'DELETE' && id !== undefined) {
        const entry = this.catalog.delete(id);
        return { reply: reply(200, { deleted: id }), event: { action: 'deleted', asset_id: id, name: entry.name } };
      }
      return { reply: errorReply(405, `${method} ${pathname} is not a control-plane route`) };
    } catch (err) {
      if (err instanceof AssetError) return { reply: errorReply(err.status, err.message) };
      if (err instanceof SharpUnavailable) return { reply: errorReply(501, err.message) };
      throw err;
    }
  }
}

interface AssetInput {
  name: string;
  bytes: Buffer;
  meta: Record<string, unknown>;
}

function assetInput(body: unknown, create: boolean): AssetInput {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.data !== 'string' || b.data === '') throw new AssetError(422, 'data must be the file, base64-encoded');
  const bytes = Buffer.from(b.data, 'base64');
  if (create && typeof b.name !== 'string') throw new AssetError(422, 'name must be the file name, e.g. hero.jpg');
  const meta: Record<string, unknown> = {};
  for (const key of ['alt', 'title', 'copyright', 'focus']) meta[key] = typeof b[key] === 'string' ? b[key] : null;
  return { name: String(b.name ?? ''), bytes, meta };
}

/** An uploaded file's width and height (0x0 for documents); an image that cannot be read is refused. */
async function dimensions(
  name: string,
  bytes: Buffer,
  loadSharp: () => Promise<SharpFactory>,
): Promise<{ width: number; height: number }> {
  if (!isRasterImage(name) && !name.toLowerCase().endsWith('.svg')) return { width: 0, height: 0 };
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes).metadata();
    // The size it is shown at (EXIF orientation), as the image service renders it.
    return { width: meta.autoOrient?.width ?? meta.width ?? 0, height: meta.autoOrient?.height ?? meta.height ?? 0 };
  } catch (err) {
    throw new AssetError(422, `${name} is not a readable image: ${(err as Error).message}`);
  }
}

/**
 * `body` with every `from` replaced by `to`, on the encoded bytes: decoding a listing of 100
 * stories to replace its URLs and encoding it again took a third of the time a 10,000-story sync
 * from this service spent. `from` is ASCII, and no byte of a multi-byte UTF-8 character is, so a
 * match is always whole characters.
 */
function replaceBytes(body: Buffer, from: Buffer, to: Buffer): Buffer {
  let at = body.indexOf(from);
  if (at < 0) return body;
  const parts: Buffer[] = [];
  let start = 0;
  while (at >= 0) {
    parts.push(body.subarray(start, at), to);
    start = at + from.length;
    at = body.indexOf(from, start);
  }
  parts.push(body.subarray(start));
  return Buffer.concat(parts);
}
