/**
 * Options of the Vite plugin, validated with zod: a wrong option is an error
 * that names it.
 */
import { z } from 'zod';
import { entryFieldsProblem } from '../compile/index.js';
import { DEFAULT_WIDTHS } from '../image/index.js';
import { MAX_OUTPUT_SIDE } from '../server/assets/image-service.js';
import type { AssetSyncOptions } from '../sync/index.js';
import { nearest } from './suggest.js';

/** `component.field`, as the API's `resolve_relations` takes it. */
export const RELATION_PATTERN = /^[^.\s,]+\.[^.\s,]+$/;
const relation = z.string().regex(RELATION_PATTERN, 'each entry must be component.field');

/** What makes a base URL one no request can use (a URL copied whole, a proxy's basic auth). */
function baseUrlProblem(url: URL): string | undefined {
  if (url.username || url.password)
    return `holds a user name or password (${url.protocol}//…@${url.host}), which requests cannot carry in a URL: give the service's origin alone`;
  if (url.search || url.hash)
    return `has a ${url.search ? 'query (?…)' : 'fragment (#…)'}, where the API's paths would go: give the service's origin alone (${url.origin}), the token as the token`;
  return undefined;
}

/** The enums the options and the command's flags share. */
export const ApiVersion = z.enum(['v1', 'v2']);
export const ContentView = z.enum(['published', 'draft']);
export const LinkMode = z.enum(['url', 'story', 'link']);

/** The longest delay Node's timers keep (a longer one fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Ports fetch refuses to connect to ("bad port", the Fetch standard's list): no sync could reach a service there. */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const WEBHOOK_DEFAULTS = { path: '/__content-sync/webhook', maxBytes: 64 * 1024, coalesceMs: 0, maxWaitMs: 2000 };

/** The dev server's webhook endpoint (option `webhook`). */
const webhookShape = {
  /**
   * The path the endpoint answers `POST` on.
   * @default '/__content-sync/webhook'
   */
  path: z
    .string()
    .regex(/^\/[^?#\s]+$/, 'must be a path such as /__content-sync/webhook (not "/", no query)')
    .default(WEBHOOK_DEFAULTS.path),
  /**
   * The webhook secret. Without one, the endpoint is off (404), unless `embedded.admin` is on:
   * then it takes only what the embedded service posts, signed with a secret the plugin makes.
   * @default CONTENT_WEBHOOK_SECRET (the environment, else the project's .env files for the mode)
   */
  secret: z.string().min(1).optional(),
  /**
   * Largest body accepted, in bytes (413 beyond).
   * @default 65536
   */
  maxBytes: z.number().int().positive().default(WEBHOOK_DEFAULTS.maxBytes),
  /**
   * Webhooks arriving within this many ms are handled together. At 0 the first webhook
   * syncs at once; those arriving while a sync runs still make one next sync.
   * @default 0
   */
  coalesceMs: z.number().int().min(0).max(MAX_TIMER_MS).default(WEBHOOK_DEFAULTS.coalesceMs),
  /**
   * A steady stream of webhooks still syncs this many ms after its first (at least `coalesceMs`).
   * @default 2000
   */
  maxWaitMs: z.number().int().min(0).max(MAX_TIMER_MS).default(WEBHOOK_DEFAULTS.maxWaitMs),
};
const WebhookOptions: z.ZodObject<typeof webhookShape, z.core.$strict> = z.strictObject(webhookShape);

/** Build-time resizing of localized images (option `images`). */
const imagesShape = {
  /**
   * Widths each raster image is resized to (those below its own); the responsive helper's srcset
   * candidates for localized assets. `[]`: no resizing.
   * @default [480, 960, 1440, 1920]
   */
  widths: z.array(z.number().int().min(16).max(MAX_OUTPUT_SIDE)).default([...DEFAULT_WIDTHS]),
  /**
   * Quality of the resized JPEG, WebP and AVIF files (1 to 100).
   * @default 80
   */
  quality: z.number().int().min(1).max(100).default(80),
  /**
   * Where resized files are kept, keyed by digest and parameters, relative to the Vite root.
   * Keep it between CI builds and a warm build resizes nothing.
   * @default '<dir>/image-cache'
   */
  cacheDir: z.string().min(1).optional(),
};
const ImagesOptions: z.ZodObject<typeof imagesShape, z.core.$strict> = z.strictObject(imagesShape);

/** The embedded local service (option `embedded`). */
const embeddedShape = {
  /** The space directory, relative to the Vite root. */
  data: z.string().min(1),
  /**
   * Write the demo space (10 to 100,000 stories) to `data` first when it holds none.
   * @default undefined (`data` must hold a space)
   */
  demo: z
    .strictObject({
      stories: z.number().int().min(10).max(100_000),
      seed: z.union([z.string(), z.number()]).optional(),
    })
    .optional(),
  /**
   * Serve the control plane (`/__admin/`); its changes reach the dev server as signed webhooks
   * (with `webhook.secret`, or else a secret the plugin makes for the service alone).
   * @default false
   */
  admin: z.boolean().default(false),
  /**
   * The embedded service's port (0: the one it had last time when that is free, else any; it
   * delivers asset URLs at its own origin, which a snapshot then holds).
   * @default 0
   */
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .refine((p) => !FETCH_BAD_PORTS.has(p), 'fetch refuses to connect to this port (a "bad port"): choose another')
    .default(0),
};
const EmbeddedOptions: z.ZodObject<typeof embeddedShape, z.core.$strict> = z.strictObject(embeddedShape);

/** `download` with limits (option `assets` as an object). */
const downloadShape = {
  download: z.literal(true),
  /**
   * Origins besides the API's own that assets may be downloaded from, e.g. `https://a.example-cdn.com`.
   * @default [] (the API's origin alone)
   */
  hosts: z.array(z.url()).optional(),
  /**
   * Largest file accepted, in bytes.
   * @default 52428800 (50 MiB)
   */
  maxBytes: z.number().int().positive().optional(),
  /**
   * Leave out assets that cannot be downloaded (listed in the sync's result) instead of failing the sync.
   * @default false
   */
  allowMissing: z.boolean().optional(),
  /**
   * Downloads at once (1 to 64).
   * @default 8
   */
  concurrency: z.number().int().min(1).max(64).optional(),
};
const DownloadOptions: z.ZodObject<typeof downloadShape, z.core.$strict> = z.strictObject(downloadShape);

/**
 * The options' schema, its shape declared apart: its type then names it, and editors show each
 * option's doc comment and default (an inferred object type would carry none into the declarations).
 */
const optionShape = {
  /**
   * The service origin, e.g. `https://api.example.com` (without `/v2/cdn`, and without user name,
   * password, query or fragment, which no request could use).
   * @default CONTENT_BASE_URL (the environment, else the project's .env files for the mode)
   */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL such as https://api.example.com' })
    .check((ctx) => {
      // The client refuses these before any request; said here, when the config loads, and
      // without quoting the URL, whose user info or query may hold a password or the token.
      const problem = URL.canParse(ctx.value) ? baseUrlProblem(new URL(ctx.value)) : undefined;
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    })
    .optional(),
  /**
   * The access token (a preview token for `version: 'draft'`). Never written to the output.
   * @default CONTENT_TOKEN (the environment, else the project's .env files for the mode)
   */
  token: z.string().min(1).optional(),
  /**
   * The Content Delivery API version.
   * @default 'v2'
   */
  api: ApiVersion.default('v2'),
  /**
   * The view pages are built from: published (public token) or draft (preview token).
   * @default 'published'
   */
  version: ContentView.default('published'),
  /**
   * `component.field` entries whose story uuids are replaced by the stories.
   * @default undefined (none)
   */
  resolveRelations: z.array(relation).optional(),
  /**
   * Also resolve every field that holds only uuids of stories of the space.
   * @default false
   */
  detectRelations: z.boolean().default(false),
  /**
   * How story links are resolved: `url`, `story` or `link`.
   * @default undefined (links stay as delivered)
   */
  resolveLinks: LinkMode.optional(),
  /**
   * How deep resolved stories resolve their own relations (0 to 10).
   * @default 1
   */
  depth: z.number().int().min(0).max(10).default(1),
  /**
   * Keep a relation's uuid where its target is missing or unpublished, instead of leaving the
   * target out (an array loses it, a single value becomes null); the warning names it either way.
   * @default false
   */
  keepUnresolved: z.boolean().default(false),
  /**
   * Content fields copied into every story's entry of `content:index` (`entry.fields.title`), as
   * the snapshot has them (a relation is its uuid): what a list of stories shows (navigation, tag
   * pages, teasers) without loading each story.
   * @default [] (none)
   */
  entryFields: z
    .array(z.string())
    .check((ctx) => {
      // The compile owns the rule (the CLI's --entry-fields states it the same way).
      const problem = entryFieldsProblem(ctx.value);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    })
    .default([]),
  /**
   * Where the snapshot (`<dir>/snapshot`) and the generated modules (`<dir>/modules`) live, relative to the Vite root.
   * @default '.content'
   */
  dir: z.string().min(1).default('.content'),
  /**
   * A component schema export (JSON file) merged into the generated types.
   * @default undefined (types from the content alone)
   */
  schema: z.string().optional(),
  /** The dev server's webhook endpoint. */
  webhook: WebhookOptions.default(WEBHOOK_DEFAULTS),
  /**
   * `remote`: asset URLs stay as delivered. `download`: every referenced asset is downloaded
   * into the snapshot with each sync, and generated modules import the files, so Vite bundles
   * them. An object is `download` with limits.
   * @default 'remote'
   */
  assets: z.union([z.enum(['remote', 'download']), DownloadOptions]).default('remote'),
  /** Build-time resizing of localized images (with `assets: 'download'`; needs sharp). */
  images: ImagesOptions.default({ widths: [...DEFAULT_WIDTHS], quality: 80 }),
  /**
   * Share snapshots with other builders through an S3-compatible store, `s3://bucket/prefix`
   * (credentials and endpoint: the AWS SDK's standard environment; needs `@aws-sdk/client-s3`).
   * @default CONTENT_STORE (the environment, else the project's .env files; no store)
   */
  store: z
    .string()
    .regex(/^s3:\/\//, { error: 'store must be an S3 location such as s3://my-bucket/content' })
    .optional(),
  /**
   * With `store`: elect one syncer among builders that start together, through Redis
   * (`redis://...`; needs `ioredis`); and share the token's rate budget among them.
   * @default CONTENT_REDIS_URL (the environment, else the project's .env files; no Redis)
   */
  redis: z
    .string()
    .regex(/^rediss?:\/\//, { error: 'redis must be a Redis URL such as redis://localhost:6379' })
    .optional(),
  /**
   * How server builds (SSR, prerender) get the content modules. `bundle`: like any module.
   * `external`: left out of the bundle and written beside it under `content/` (with localized
   * assets, pointing at the asset files written beside it under the assets folder), imported by
   * Node at run time; a large space then no longer makes the server bundle slow.
   * @default 'bundle'
   */
  ssrModules: z.enum(['bundle', 'external']).default('bundle'),
  /**
   * Poll the cache version every N ms (at least 250) in dev, when webhooks cannot reach the machine.
   * @default undefined (no polling)
   */
  pollMs: z.number().int().min(250).max(MAX_TIMER_MS).optional(),
  /**
   * `auto`: sync, and build from the existing snapshot with a loud warning when the API cannot
   * be reached; `true`: never sync, use the snapshot as it is; `false`: fail without the API.
   * @default 'auto'
   */
  offline: z.union([z.boolean(), z.literal('auto')]).default('auto'),
  /**
   * Start the local Content Delivery Service in-process over a space directory and sync from it:
   * `{ data: 'path/to/space' }`, or `{ data, demo: { stories: 200 } }` to generate the demo space there first.
   * @default undefined (sync from `baseUrl`)
   */
  embedded: EmbeddedOptions.optional(),
};
export const ContentSyncOptions: z.ZodObject<typeof optionShape, z.core.$strict> = z.strictObject(optionShape);
export type ContentSyncOptions = z.input<typeof ContentSyncOptions>;
export type ResolvedOptions = z.output<typeof ContentSyncOptions>;

/** A wrong option: its message says which and why; it carries no stack, which would say nothing more. */
export class OptionsError extends Error {
  override name = 'OptionsError';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/** The keys the object at `path` of the options accepts. */
function keysAt(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = ContentSyncOptions;
  for (const key of path) {
    schema = unwrap(schema);
    const shape = (schema as Partial<z.ZodObject>).shape;
    if (!shape || typeof key !== 'string' || !(key in shape)) return [];
    schema = shape[key]!;
  }
  const shape = (unwrap(schema) as Partial<z.ZodObject>).shape;
  return shape ? Object.keys(shape) : [];
}

/** The object inside `.optional()` and `.default()`. */
function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner;
}

/** "unknown option "webhook.secrets" (did you mean "webhook.secret"?)" for each key. */
function unknownKeys(issue: z.core.$ZodIssueUnrecognizedKeys): string {
  const known = keysAt(issue.path);
  const prefix = issue.path.map((key) => `${String(key)}.`).join('');
  return issue.keys
    .map((key) => {
      const guess = nearest(key, known);
      return `unknown option "${prefix}${key}"${guess ? ` (did you mean "${prefix}${guess}"?)` : ''}`;
    })
    .join('; ');
}

export function parseOptions(input: unknown): ResolvedOptions {
  const result = ContentSyncOptions.safeParse(input ?? {});
  if (!result.success) {
    // An unknown key first: a misspelt one is also a required one missing, and its name says more.
    const issues = result.error.issues;
    const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
    if (issue.code === 'unrecognized_keys') throw new OptionsError(`vite-plugin-content-sync: ${unknownKeys(issue)}`);
    const where = issue.path.join('.') || '(options)';
    const missing = issue.code === 'invalid_type' && isMissing(input ?? {}, issue.path);
    throw new OptionsError(
      `vite-plugin-content-sync: option "${where}": ${missing ? `required (${issue.expected})` : issue.message}`,
    );
  }
  // The embedded service is the API: a base URL or token given beside it would be ignored without a word.
  const { embedded, baseUrl, token } = result.data;
  if (embedded && (baseUrl !== undefined || token !== undefined))
    throw new OptionsError(
      `vite-plugin-content-sync: option "${baseUrl !== undefined ? 'baseUrl' : 'token'}": the embedded service is the API when "embedded" is set; remove one of the two`,
    );
  return result.data;
}

/** Whether the object at `path` minus its last key exists in `input` and lacks that key. */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  let at: unknown = input;
  for (const key of path.slice(0, -1)) {
    if (typeof at !== 'object' || at === null) return false;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  const last = path.at(-1);
  return typeof at === 'object' && at !== null && last !== undefined && !Object.hasOwn(at, last);
}

/** What sync is told about assets: undefined keeps them remote. */
export function assetDownloads(options: Pick<ResolvedOptions, 'assets'>): AssetSyncOptions | undefined {
  const assets = options.assets;
  if (assets === 'remote') return undefined;
  if (assets === 'download') return {};
  const { download: _, ...limits } = assets;
  return limits;
}
