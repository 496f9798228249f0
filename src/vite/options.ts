/**
 * Options of the Vite plugin, validated with zod: a wrong option is an error
 * that names it.
 */
import { z } from 'zod';
import type { AssetSyncOptions } from '../sync/index.js';

const relation = z.string().regex(/^[^.\s,]+\.[^.\s,]+$/, 'each entry must be component.field');

export const ContentSyncOptions = z.strictObject({
  /** Service origin; default: $CONTENT_BASE_URL. */
  baseUrl: z.url({ error: 'baseUrl must be a URL such as https://api.example.com' }).optional(),
  /** Access token; default: $CONTENT_TOKEN. Never written to the output. */
  token: z.string().min(1).optional(),
  api: z.enum(['v1', 'v2']).default('v2'),
  /** The view pages are built from: published (public token) or draft (preview token). */
  version: z.enum(['published', 'draft']).default('published'),
  resolveRelations: z.array(relation).optional(),
  detectRelations: z.boolean().default(false),
  resolveLinks: z.enum(['url', 'story', 'link']).optional(),
  depth: z.number().int().min(0).max(10).default(1),
  /**
   * Keep a relation's uuid where its target is missing or unpublished, instead of leaving the
   * target out (an array loses it, a single value becomes null); the warning names it either way.
   * @default false
   */
  keepUnresolved: z.boolean().default(false),
  /** Where the snapshot (`<dir>/snapshot`) and the generated modules (`<dir>/modules`) live, relative to the Vite root. */
  dir: z.string().min(1).default('.content'),
  /** A component schema export (JSON file) merged into the generated types. */
  schema: z.string().optional(),
  webhook: z
    .strictObject({
      path: z.string().startsWith('/').default('/__content-sync/webhook'),
      /** The webhook secret; default: $CONTENT_WEBHOOK_SECRET. Without one, the endpoint is off. */
      secret: z.string().min(1).optional(),
      /** Largest body accepted, in bytes. */
      maxBytes: z.number().int().positive().default(64 * 1024),
      /**
       * Webhooks arriving within this many ms are handled together. At 0 (the default) the first
       * webhook syncs at once; those arriving while a sync runs still make one next sync.
       */
      coalesceMs: z.number().int().min(0).default(0),
      /** A steady stream of webhooks still syncs this many ms after its first (at least `coalesceMs`). */
      maxWaitMs: z.number().int().min(0).default(2000),
    })
    .default({ path: '/__content-sync/webhook', maxBytes: 64 * 1024, coalesceMs: 0, maxWaitMs: 2000 }),
  /**
   * `remote` (default): asset URLs stay as delivered. `download`: every referenced asset is
   * downloaded into the snapshot with each sync, and generated modules import the files, so
   * Vite bundles them. An object is `download` with limits.
   */
  assets: z
    .union([
      z.enum(['remote', 'download']),
      z.strictObject({
        download: z.literal(true),
        hosts: z.array(z.url()).optional(),
        maxBytes: z.number().int().positive().optional(),
        allowMissing: z.boolean().optional(),
        concurrency: z.number().int().min(1).max(64).optional(),
      }),
    ])
    .default('remote'),
  /** Poll the cache version every N ms in dev (when webhooks cannot reach the machine). */
  pollMs: z.number().int().min(250).optional(),
  /**
   * `auto` (default): sync, and build from the existing snapshot with a loud warning when the
   * API cannot be reached; `true`: never sync, use the snapshot as it is; `false`: fail without the API.
   */
  offline: z.union([z.boolean(), z.literal('auto')]).default('auto'),
  /**
   * Start the local Content Delivery Service in-process over a space directory and sync from it:
   * `{ data: 'path/to/space' }`, or `{ demo: { stories: 200 } }` to generate the demo space there first.
   */
  embedded: z
    .strictObject({
      data: z.string().min(1),
      demo: z.strictObject({ stories: z.number().int().min(10).max(100_000), seed: z.union([z.string(), z.number()]).optional() }).optional(),
      /** Serve the control plane (`/__admin/`) and post webhooks to the dev server. */
      admin: z.boolean().default(false),
      port: z.number().int().min(0).max(65535).default(0),
    })
    .optional(),
});
export type ContentSyncOptions = z.input<typeof ContentSyncOptions>;
export type ResolvedOptions = z.output<typeof ContentSyncOptions>;

export class OptionsError extends Error {
  override name = 'OptionsError';
}

export function parseOptions(input: unknown): ResolvedOptions {
  const result = ContentSyncOptions.safeParse(input ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.join('.') || '(options)';
    throw new OptionsError(`vite-plugin-content-sync: option "${where}": ${issue.message}`);
  }
  return result.data;
}

/** What sync is told about assets: undefined keeps them remote. */
export function assetDownloads(options: Pick<ResolvedOptions, 'assets'>): AssetSyncOptions | undefined {
  const assets = options.assets;
  if (assets === 'remote') return undefined;
  if (assets === 'download') return {};
  const { download: _, ...limits } = assets;
  return limits;
}
