/**
 * `content-sync sync`: full or incremental sync with live progress on a
 * terminal, one summary line otherwise, or a JSON summary with `--json`.
 */
import { promises as fs } from 'node:fs';
import v8 from 'node:v8';
import {
  type AssetSyncOptions,
  isAssetEvent,
  parseWebhookEvent,
  type SyncOptions,
  type SyncProgress,
  type SyncResult,
  sync,
  type WebhookEvent,
} from '../sync/index.js';
import { retryLine } from '../client/index.js';
import { baseUrlOf, integer, parse, syncFlags, UsageError } from './args.js';
import { count } from '../text/index.js';

const HELP = `usage: content-sync sync --base-url URL --token T --out DIR [options]

  --base-url URL     service origin (default: $CONTENT_BASE_URL)
  --token T          access token (default: $CONTENT_TOKEN); draft needs a preview token
  --out DIR          snapshot directory (created if missing)
  --api v1|v2        API version (default v2)
  --version V        published (default), draft, or both
  --full             ignore the existing snapshot and read everything
  --events FILE      webhook payload(s) (a JSON object or array): fetch only what they name;
                     without it, $CONTENT_WEBHOOK_PAYLOAD (the same JSON) narrows the sync when set
  --json             print a machine-readable summary
  --concurrency N    requests in flight at most (default 12)
  --assets           download every referenced asset into the snapshot (DIR/assets)
  --asset-host URL   another origin assets may be downloaded from (repeatable; the
                     service's own origin is always allowed)
  --asset-max-bytes N  largest asset accepted (default 52428800)
  --allow-missing-assets  sync without assets that cannot be downloaded (listed)
  --max-response-mb N  largest answer accepted, after decompression (default 64, at most 512)
  --store s3://BUCKET/PREFIX  share snapshots with other builders through an S3-compatible store
                     (default: $CONTENT_STORE; AWS SDK v3 configuration from the environment)
  --redis redis://HOST:PORT  with --store: one builder syncs, the others take its snapshot; and
                     one rate budget for every sync on the token (default: $CONTENT_REDIS_URL;
                     $CONTENT_REDIS_LEASE_MS: how soon a dead syncer is replaced, default 15000)

Exit status 0 only when the snapshot on disk is complete and consistent.`;

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function progressLine(p: SyncProgress): string {
  const seconds = (performance.now() - p.startedAt) / 1000;
  if (p.phase === 'waiting')
    return `waiting for ${p.waitingFor} to finish writing the snapshot · ${seconds.toFixed(1)}s`;
  const rate = seconds > 0 ? p.requests / seconds : 0;
  let eta = '';
  if (p.storiesTotal && p.stories > 0 && p.stories < p.storiesTotal) {
    eta = ` · about ${Math.ceil((seconds / p.stories) * (p.storiesTotal - p.stories))}s left`;
  }
  const total = p.storiesTotal ? `/${p.storiesTotal}` : '';
  return `${p.phase}: ${p.stories}${total} stories · ${count(p.requests, 'request')} · ${rate.toFixed(1)} req/s · ${seconds.toFixed(1)}s${eta}`;
}

export function summaryLine(r: SyncResult, out: string): string {
  const what =
    r.mode === 'unchanged'
      ? 'unchanged'
      : `${r.mode}${r.fullBecause ? ` (${r.fullBecause})` : ''}: ${count(r.changed.stories.length, 'story', 'stories')} written, ${r.changed.removed.length} removed, ${count(r.changed.datasources.length, 'datasource')} changed`;
  return (
    `synced space ${r.space.id} (cv ${r.cv}) into ${out}: ${what}; ${count(r.counts.stories, 'story', 'stories')}, ${count(r.counts.datasources, 'datasource')}; ` +
    `${count(r.requests, 'request')}, ${count(r.retries, 'retry', 'retries')}, ${r.throttled} throttled, ${formatBytes(r.bytes)} in ${(r.durationMs / 1000).toFixed(1)}s` +
    (r.assets
      ? `; assets: ${r.assets.referenced} referenced, ${r.assets.downloaded} downloaded (${formatBytes(r.assets.bytes)}), ${r.assets.removed} removed`
      : '') +
    (r.assets?.unchanged ? `, ${r.assets.unchanged} confirmed unchanged` : '') +
    (r.assets?.missing.length ? `, ${r.assets.missing.length} missing` : '')
  );
}

function jsonSummary(result: SyncResult): Record<string, unknown> {
  return {
    mode: result.mode,
    ...(result.fullBecause ? { full_because: result.fullBecause } : {}),
    space: result.space.id,
    cv: result.cv,
    counts: result.counts,
    changed: result.changed,
    files: result.files,
    requests: result.requests,
    retries: result.retries,
    throttled: result.throttled,
    redirects: result.redirects,
    bytes: result.bytes,
    passes: result.passes,
    duration_ms: Math.round(result.durationMs),
    ...(result.assets ? { assets: result.assets } : {}),
  };
}

function transferLine(
  verb: string,
  t: { manifest: string; cv: number; objects: number; bytes: number },
  store: string,
): string {
  return `${verb} cv ${t.cv} (${store}/${t.manifest}): ${t.objects} objects, ${formatBytes(t.bytes)}`;
}

/** Webhook payloads (a JSON object or array) as events; `source` names where they came from in errors. */
function parseEvents(text: string, source: string): WebhookEvent[] {
  try {
    const value: unknown = JSON.parse(text);
    return (Array.isArray(value) ? value : [value])
      .map(parseWebhookEvent)
      .filter((e): e is WebhookEvent => e !== undefined);
  } catch (err) {
    throw new UsageError(`${source}: ${(err as Error).message}`);
  }
}

async function readEvents(file: string): Promise<WebhookEvent[]> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--events ${file}: ${(err as Error).message}`);
  }
  return parseEvents(text, `--events ${file}`);
}

/**
 * The events to narrow the sync to: `--events FILE`, else the payload a build
 * hook passes in CONTENT_WEBHOOK_PAYLOAD. A payload naming no story or
 * datasource (an asset event) does not narrow: the sync finds changes itself.
 */
async function eventsFor(file: string | undefined): Promise<WebhookEvent[] | undefined> {
  if (file === '') throw new UsageError('--events needs a file (of webhook payloads); it was given an empty value');
  if (file) return readEvents(file);
  const payload = process.env.CONTENT_WEBHOOK_PAYLOAD;
  if (payload === undefined || payload.trim() === '') return undefined;
  const events = parseEvents(payload, 'CONTENT_WEBHOOK_PAYLOAD');
  // Asset events are passed on (a sync with --assets asks after the held files again), and narrow nothing.
  const naming = events.filter((e) => !isAssetEvent(e)).length;
  console.error(
    naming
      ? `CONTENT_WEBHOOK_PAYLOAD names ${count(naming, 'change')}: syncing only what it names`
      : 'CONTENT_WEBHOOK_PAYLOAD names no story or datasource: syncing every change',
  );
  return events.length ? events : undefined;
}

/** The asset flags, or undefined without --assets (the others need it). */
function assetOptions(values: Record<string, unknown>): AssetSyncOptions | undefined {
  const hosts = (values['asset-host'] as string[] | undefined) ?? [];
  const maxBytes = values['asset-max-bytes'] as string | undefined;
  if (!values.assets) {
    if (hosts.length || maxBytes !== undefined || values['allow-missing-assets'])
      throw new UsageError('--asset-host, --asset-max-bytes and --allow-missing-assets need --assets');
    return undefined;
  }
  for (const host of hosts) {
    if (!URL.canParse(host))
      throw new UsageError(`--asset-host ${host} is not a URL such as https://assets.example.com`);
  }
  if (maxBytes !== undefined && !/^[1-9]\d*$/.test(maxBytes))
    throw new UsageError(`--asset-max-bytes must be a positive number of bytes (got ${maxBytes})`);
  return {
    hosts,
    ...(maxBytes !== undefined ? { maxBytes: Number(maxBytes) } : {}),
    ...(values['allow-missing-assets'] ? { allowMissing: true } : {}),
  };
}

export async function syncCommand(argv: string[]): Promise<number> {
  // A sync waits on the network, not the processor, and holds an index entry per story: collect
  // before the heap grows to several times what is live. A 100,000-story sync then peaks near
  // 275 MB instead of 520, in the same time.
  v8.setFlagsFromString('--heap-growing-percent=50');
  const { values } = parse(argv, {
    'base-url': { type: 'string' },
    token: { type: 'string' },
    out: { type: 'string' },
    api: { type: 'string' },
    version: { type: 'string' },
    full: { type: 'boolean' },
    events: { type: 'string' },
    json: { type: 'boolean' },
    concurrency: { type: 'string' },
    assets: { type: 'boolean' },
    'asset-host': { type: 'string', multiple: true },
    'asset-max-bytes': { type: 'string' },
    'allow-missing-assets': { type: 'boolean' },
    'max-response-mb': { type: 'string' },
    store: { type: 'string' },
    redis: { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const baseUrl = (values['base-url'] as string | undefined) ?? process.env.CONTENT_BASE_URL;
  const token = (values.token as string | undefined) ?? process.env.CONTENT_TOKEN;
  const out = values.out as string | undefined;
  if (!baseUrl) throw new UsageError('sync needs --base-url URL (or CONTENT_BASE_URL)');
  if (!token) throw new UsageError('sync needs --token T (or CONTENT_TOKEN)');
  if (!out) throw new UsageError('sync needs --out DIR');
  baseUrlOf(baseUrl, values['base-url'] !== undefined ? '--base-url' : 'CONTENT_BASE_URL');
  const { api, views, concurrency } = syncFlags(values);
  const maxResponseMb = integer(values['max-response-mb'] as string | undefined, 'max-response-mb', 64, 1, 512);
  const events = await eventsFor(values.events as string | undefined);
  const assets = assetOptions(values);
  const store = (values.store as string | undefined) ?? (process.env.CONTENT_STORE || undefined);
  const redis = (values.redis as string | undefined) ?? (process.env.CONTENT_REDIS_URL || undefined);
  const leaseText = process.env.CONTENT_REDIS_LEASE_MS || undefined;
  if (leaseText !== undefined && (!/^\d+$/.test(leaseText) || Number(leaseText) < 100 || Number(leaseText) > 3_600_000))
    throw new UsageError(
      `CONTENT_REDIS_LEASE_MS must be a whole number of milliseconds from 100 to 3600000 (got "${leaseText}")`,
    );
  const leaseMs = leaseText === undefined ? 0 : Number(leaseText);

  const tty = process.stderr.isTTY && !values.json;
  let last = 0;
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    controller.abort(new Error(`interrupted (${signal})`));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const options: SyncOptions = {
      baseUrl,
      token,
      out,
      api,
      views,
      ...(events ? { events } : {}),
      full: Boolean(values.full),
      ...(assets ? { assets } : {}),
      signal: controller.signal,
      client: {
        concurrency,
        maxResponseBytes: maxResponseMb * 1024 * 1024,
        tokenHint: 'check --token or CONTENT_TOKEN (a preview token is needed for drafts)',
        onRetry: (r) => console.error(`${tty ? '\r\x1b[K' : ''}content-sync sync: ${retryLine(r)}`),
      },
      onProgress: (p) => {
        if (!tty) return;
        const now = performance.now();
        if (now - last < 100) return;
        last = now;
        process.stderr.write(`\r\x1b[K${progressLine(p)}`);
      },
    };
    // The store's modules (and the AWS SDK, the Redis client) are loaded only when configured.
    const shared =
      store || redis
        ? await (await import('../store/index.js')).fleetSync({
            ...options,
            store,
            redis,
            ...(leaseMs ? { leaseMs } : {}),
          })
        : undefined;
    const result = shared ? shared.sync : await sync(options);
    if (tty) process.stderr.write('\r\x1b[K');
    if (values.json) {
      console.log(
        JSON.stringify({
          ok: true,
          ...(result ? jsonSummary(result) : { mode: 'pulled', cv: shared?.pulled?.cv }),
          ...(shared?.pulled ? { pulled: shared.pulled } : {}),
          ...(shared?.pushed ? { pushed: shared.pushed } : {}),
        }),
      );
    } else {
      if (result) console.log(summaryLine(result, out));
      if (shared?.pulled)
        console.log(transferLine(result ? 'started from' : 'took (another builder synced it)', shared.pulled, store!));
      if (shared?.pushed) console.log(transferLine('published', shared.pushed, store!));
    }
    return 0;
  } catch (err) {
    if (tty) process.stderr.write('\r\x1b[K');
    if (values.json) console.log(JSON.stringify({ ok: false, error: (err as Error).message }));
    if (stoppedBy) {
      console.error(`content-sync sync: ${stoppedBy}: stopped; the previous snapshot in ${out} is untouched`);
      return stoppedBy === 'SIGINT' ? 130 : 143;
    }
    throw err;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
