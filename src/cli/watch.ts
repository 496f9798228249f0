/**
 * `content-sync watch`: receives webhooks, syncs what they name, runs the
 * build command. One run at a time: webhooks arriving while a run is under way
 * are queued into exactly one next run (their events merged).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { View } from '../api/index.js';
import { sync, type WebhookEvent } from '../sync/index.js';
import { Batcher, Runner, Unsynced, answer, webhookEndpoint } from '../trigger/index.js';
import { UsageError, baseUrlOf, hostFlag, integer, listenError, parse, syncFlags } from './args.js';
import { retryLine } from '../client/index.js';
import { summaryLine } from './sync.js';
import { count } from '../text/index.js';

const HELP = `usage: content-sync watch --port P --secret S [options] -- <build command...>

  --port P           port to receive webhooks on, at any path (POST); 0 picks a free one
  --host H           address to listen on (default 127.0.0.1)
  --secret S         webhook secret (default: $CONTENT_WEBHOOK_SECRET)
  --max-bytes N      largest webhook body accepted (default 65536)
  --coalesce-ms N    webhooks arriving within N ms make one run (default 200)
  --max-wait-ms N    a steady stream of webhooks still runs N ms after its first
                     (default 2000)
  sync before each build (all of --out, a base URL and a token):
  --out DIR          snapshot directory
  --base-url URL     service origin (default: $CONTENT_BASE_URL)
  --token T          access token (default: $CONTENT_TOKEN)
  --api v1|v2        API version (default v2)
  --version V        published (default), draft, or both
  --concurrency N    requests in flight at most (default 12)

The build command runs without a shell, with the webhook payloads of its run in
$CONTENT_WEBHOOK_PAYLOAD (a JSON array, each payload once; [] when over 100 KiB),
and those of a failed run before it. Never two runs at once. SIGTERM or SIGINT
drops queued runs (saying how many webhooks), ends a sync under way at its next
step, passes the signal to a build under way, and exits once it has ended.`;

export interface WatchSyncOptions {
  baseUrl: string;
  token: string;
  out: string;
  api: 'v1' | 'v2';
  views: View[];
  concurrency: number;
}

/** Splits `argv` at the first `--`: flags before, the build command after. */
export function splitCommand(argv: readonly string[]): { flags: string[]; command: string[] } {
  const at = argv.indexOf('--');
  return at < 0 ? { flags: [...argv], command: [] } : { flags: argv.slice(0, at), command: argv.slice(at + 1) };
}

const clock = () => new Date().toISOString().slice(11, 23);
const log = (line: string) => process.stderr.write(`${clock()} ${line}\n`);

/**
 * Linux starts no program whose environment holds a string over 128 KiB (E2BIG): a bulk publish of
 * a thousand stories would keep the build from starting. A longer payload is passed as `[]`, which
 * names nothing: a sync given it checks every change, so none is missed.
 */
const MAX_PAYLOAD_BYTES = 100 * 1024;

/** The build's CONTENT_WEBHOOK_PAYLOAD: the run's webhooks, each once; undefined when too long. */
export function payloadOf(events: readonly WebhookEvent[]): string | undefined {
  const text = `[${[...new Set(events.map((e) => JSON.stringify(e)))].join(',')}]`;
  return Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES ? text : undefined;
}

function describeEvent(e: WebhookEvent): string {
  if ('story_id' in e) return `${e.action} story ${e.story_id}${e.full_slug ? ` (${e.full_slug})` : ''}`;
  if ('asset_id' in e) return `${e.action} asset ${e.asset_id}`;
  return `${e.action} datasource ${e.datasource_slug}`;
}

export async function watchCommand(argv: string[]): Promise<number> {
  const { flags, command } = splitCommand(argv);
  const { values } = parse(flags, {
    port: { type: 'string' },
    host: { type: 'string' },
    secret: { type: 'string' },
    'max-bytes': { type: 'string' },
    'coalesce-ms': { type: 'string' },
    'max-wait-ms': { type: 'string' },
    out: { type: 'string' },
    'base-url': { type: 'string' },
    token: { type: 'string' },
    api: { type: 'string' },
    version: { type: 'string' },
    concurrency: { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.port === undefined) throw new UsageError('watch needs --port P');
  const port = integer(values.port as string, 'port', 0, 0, 65535);
  const host = hostFlag(values.host as string | undefined);
  const secret = (values.secret as string | undefined) ?? process.env.CONTENT_WEBHOOK_SECRET;
  if (!secret)
    throw new UsageError('watch needs --secret S (or CONTENT_WEBHOOK_SECRET): the secret webhooks are signed with');
  if (!command.length)
    throw new UsageError(
      'watch needs a build command after --, e.g. `content-sync watch --port 3300 --secret S -- npx vite build`',
    );
  const maxBytes = integer(values['max-bytes'] as string | undefined, 'max-bytes', 64 * 1024, 1, 16 * 1024 * 1024);
  const coalesceMs = integer(values['coalesce-ms'] as string | undefined, 'coalesce-ms', 200, 0, 60_000);
  const maxWaitMs = integer(values['max-wait-ms'] as string | undefined, 'max-wait-ms', 2000, 0, 600_000);

  let syncOptions: WatchSyncOptions | undefined;
  const out = values.out as string | undefined;
  const baseUrlFlag = values['base-url'] as string | undefined;
  const tokenFlag = values.token as string | undefined;
  if (out) {
    const baseUrl = baseUrlFlag ?? process.env.CONTENT_BASE_URL;
    const token = tokenFlag ?? process.env.CONTENT_TOKEN;
    if (!baseUrl) throw new UsageError('watch --out needs --base-url URL (or CONTENT_BASE_URL)');
    if (!token) throw new UsageError('watch --out needs --token T (or CONTENT_TOKEN)');
    baseUrlOf(baseUrl, baseUrlFlag !== undefined ? '--base-url' : 'CONTENT_BASE_URL');
    const { api, views, concurrency } = syncFlags(values);
    syncOptions = { baseUrl, token, out, api, views, concurrency };
  } else if (baseUrlFlag || tokenFlag || values.api || values.version || values.concurrency) {
    throw new UsageError('sync options need --out DIR (the snapshot directory to keep up to date)');
  }

  const watcher = new Watcher(command, syncOptions, coalesceMs, maxWaitMs);
  const endpoint = webhookEndpoint({
    secret,
    maxBytes,
    log,
    accept: (events) => {
      if (!events.length) return log('webhook accepted: names no story or datasource, nothing to do');
      log(`webhook accepted: ${events.map(describeEvent).join(', ')}`);
      watcher.add(events);
    },
  });
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST webhooks here' });
    endpoint(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(listenError(err, port));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  log(
    `building with: ${command.join(' ')}${syncOptions ? `; syncing into ${syncOptions.out} from ${syncOptions.baseUrl}` : ''}`,
  );
  console.log(`listening on http://${shownHost}:${bound}`);

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  log(`${signal}: stopping`);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await watcher.stop(signal);
  log('stopped');
  return 0;
}

/** Runs sync and build for the webhooks' events, one run at a time. */
class Watcher {
  readonly #runner = new Runner<WebhookEvent[], void>(
    (events) => this.#run(events),
    (queued, later) => [...queued, ...later],
  );
  readonly #batcher: Batcher<WebhookEvent>;
  #child: ReturnType<typeof spawn> | undefined;
  #stopping = false;
  #abort = new AbortController();
  #builds = 0;
  /** What syncs that failed were asked for: the next sync fetches it too. */
  readonly #unsynced = new Unsynced();
  /** The webhooks of runs whose sync or build failed: the next build is given them too. */
  #unbuilt: WebhookEvent[] = [];

  constructor(
    readonly command: readonly string[],
    readonly syncOptions: WatchSyncOptions | undefined,
    coalesceMs: number,
    maxWaitMs: number,
  ) {
    this.#batcher = new Batcher(coalesceMs, maxWaitMs, (events) => this.#enqueue(events));
  }

  add(events: WebhookEvent[]): void {
    if (!this.#stopping) this.#batcher.add(events);
  }

  #enqueue(events: WebhookEvent[]): void {
    const joins = this.#runner.queued;
    if (this.#runner.running && !joins) log('a run is under way: one more run queued');
    const run = this.#runner.request(events);
    if (!joins) run.catch((err: unknown) => log(`run failed: ${(err as Error).message}`));
  }

  async #run(events: WebhookEvent[]): Promise<void> {
    // Stopping drops the queued run.
    if (this.#stopping) return;
    await this.#syncAndBuild(events);
    if (!this.#stopping && !this.#runner.queued) log('idle: waiting for webhooks');
  }

  async #syncAndBuild(webhookEvents: WebhookEvent[]): Promise<void> {
    const events = [...this.#unbuilt, ...webhookEvents];
    if (this.syncOptions) {
      const o = this.syncOptions;
      const asked = this.#unsynced.with(webhookEvents);
      let told = false;
      try {
        const result = await sync({
          baseUrl: o.baseUrl,
          token: o.token,
          out: o.out,
          api: o.api,
          views: o.views,
          ...(asked ? { events: asked } : {}),
          signal: this.#abort.signal,
          onProgress: (p) => {
            if (p.phase !== 'waiting' || told) return;
            told = true;
            log(`waiting for ${p.waitingFor} to finish writing ${o.out}`);
          },
          client: {
            concurrency: o.concurrency,
            tokenHint: 'check --token or CONTENT_TOKEN (a preview token is needed for drafts)',
            onRetry: (r) => log(retryLine(r)),
          },
        });
        log(summaryLine(result, o.out));
        this.#unsynced.succeeded();
        this.#unbuilt = [];
      } catch (err) {
        this.#unsynced.failed(asked, err);
        this.#unbuilt = events;
        const message = (err as Error).message;
        if (this.#stopping)
          log(`sync stopped: ${message}; the snapshot is unchanged and ${count(events.length, 'webhook')} not built`);
        else {
          const next = this.#unsynced.everything ? 'reads every change' : 'fetches what this one was asked for';
          log(
            `sync failed: ${message}; build skipped (the snapshot is unchanged; the next sync ${next}, and its build is given these webhooks too)`,
          );
        }
        return;
      }
      if (this.#stopping) return;
    }
    const n = ++this.#builds;
    const started = performance.now();
    log(`build ${n} started: ${this.command.join(' ')}`);
    const payload = payloadOf(events);
    if (payload === undefined)
      log(
        `build ${n}: the payloads of ${count(events.length, 'webhook')} are over 100 KiB, more than an environment variable holds: CONTENT_WEBHOOK_PAYLOAD is [] (naming nothing: a sync given it checks every change)`,
      );
    const code = await new Promise<string>((resolve) => {
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(this.command[0]!, this.command.slice(1), {
          shell: false,
          // The build's output goes to standard error with the logs; standard output stays ours.
          stdio: ['ignore', 2, 2],
          env: { ...process.env, CONTENT_WEBHOOK_PAYLOAD: payload ?? '[]' },
        });
      } catch (err) {
        // Refused at once (an environment too large, say): said as a build that could not start.
        return resolve(`could not start (${(err as Error).message})`);
      }
      this.#child = child;
      child.once('error', (err) => resolve(`could not start (${err.message})`));
      child.once('exit', (exitCode, signal) =>
        resolve(exitCode !== null ? `exit code ${exitCode}` : `killed by ${signal}`),
      );
    });
    this.#child = undefined;
    // A build that failed did not act on its webhooks (its own sync of them, say): the next build is given them too.
    const ok = code === 'exit code 0';
    this.#unbuilt = ok ? [] : events;
    log(
      `build ${n} ended: ${code} in ${((performance.now() - started) / 1000).toFixed(2)}s${ok || this.#stopping ? '' : ` (the next build is given its ${count(events.length, 'webhook')} too)`}`,
    );
  }

  /** Drops what is queued (saying so), lets the sync end at its next step, passes the signal to the build. */
  async stop(signal: NodeJS.Signals): Promise<void> {
    this.#stopping = true;
    const dropped = this.#batcher.cancel() + (this.#runner.queuedInput?.length ?? 0);
    if (dropped) log(`dropping ${count(dropped, 'webhook')} not yet synced or built`);
    this.#abort.abort(new Error('stopping'));
    this.#child?.kill(signal);
    await this.#runner.idle();
  }
}
