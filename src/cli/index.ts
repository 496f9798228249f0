/**
 * The `content-sync` command. Each command's modules are loaded when it runs:
 * a compile does not load the server, nor a sync the compiler.
 */
import { readFileSync } from 'node:fs';
import type { FaultPlan } from '../server/index.js';
import { hostFlag, integer, listenError, parse, UsageError, webhookUrlOf } from './args.js';
import { count } from '../text/index.js';

export { UsageError };

const USAGE = `usage: content-sync <command> [options]

commands:
  demo   --out DIR [--stories N] [--seed S]
         write a deterministic demo space directory (N from 10 to 100000, default 200)
  serve  --data DIR [--port P] [--host H] [--public-token T] [--preview-token T]
         [--latency MS] [--no-rate-limit] [--faults SPEC] [--admin]
         [--webhook-url URL [--webhook-secret S]]
         serve a space directory as the Content Delivery API (v1 and v2)
  sync   --base-url URL --token T --out DIR [--api v1|v2] [--version published|draft|both]
         [--full] [--events FILE] [--json] [--concurrency N] [--max-response-mb N]
         [--assets [--asset-host URL] [--asset-max-bytes N] [--allow-missing-assets]]
         [--store s3://BUCKET/PREFIX] [--redis redis://HOST:PORT]
         full or incremental sync of a space into a snapshot directory
         (CONTENT_BASE_URL and CONTENT_TOKEN stand in for missing flags)
  store  prune --store s3://BUCKET/PREFIX --keep N [--grace-minutes M]
         remove the store's snapshot versions beyond the newest N
  compile --snapshot DIR --out DIR [--resolve-relations L] [--resolve-links url|story|link]
         [--depth N] [--detect-relations] [--keep-unresolved] [--entry-fields L] [--schema FILE] [--version V]
         [--declaration FILE|none] [--full] [--threads N] [--json]
         typed modules and types from a snapshot
  prepare [--config FILE] [--mode M]
         sync and compile with the options of the plugin in the project's Vite
         config (run before \`tsc\`: the generated types exist afterwards)
  watch  --port P --secret S [--host H] [--max-bytes N] [--coalesce-ms N] [--max-wait-ms N]
         [--base-url URL --token T --out DIR] [--api v1|v2] [--version V] [--concurrency N]
         -- <build command...>
         receive webhooks, sync what they name, run the build command (one at a time)

Run \`content-sync <command> --help\` for details, \`content-sync --version\` for the version.`;

const SERVE_HELP = `usage: content-sync serve --data DIR [options]

  --data DIR              a space directory (\`content-sync demo\` writes one)
  --port P                the port (default 3210; 0: any free one)
  --host H                the address to listen on (default 127.0.0.1)
  --public-token T        the token of the published view, else $CONTENT_PUBLIC_TOKEN
                          (default local-public-token)
  --preview-token T       the token of both views, else $CONTENT_PREVIEW_TOKEN
                          (default local-preview-token); a mirror's real tokens belong in
                          the environment, which no other user sees in ps
  --latency MS            delay every answer, to emulate a network (default 0)
  --no-rate-limit         answer without the contract's rate limits
  --faults SPEC           fail requests at given rates, seeded: 429=0.05,reset=0.01,seed=7
                          (kinds 429, 500, 502, 503, 504, reset, truncate, slow, slowms)
  --admin                 serve the control plane (/__admin/) to change the space
  --webhook-url URL       post a signed webhook there on every change
  --webhook-secret S      the secret its webhook-signature is made with
                          (default: $CONTENT_WEBHOOK_SECRET, which no other user sees in ps)`;

async function demo(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    out: { type: 'string' },
    stories: { type: 'string' },
    seed: { type: 'string' },
  });
  if (values.help) {
    console.log('usage: content-sync demo --out DIR [--stories N] [--seed S]');
    return 0;
  }
  if (!values.out) throw new UsageError('demo needs --out DIR');
  const stories = integer(values.stories as string | undefined, 'stories', 200, 10, 100_000);
  const { writeDemoSpace } = await import('../demo/index.js');
  const started = performance.now();
  const manifest = await writeDemoSpace(values.out as string, {
    stories,
    seed: (values.seed as string | undefined) ?? 1,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `wrote ${count(manifest.counts.stories ?? 0, 'story', 'stories')}, ${count(manifest.counts.datasources ?? 0, 'datasource')} to ${values.out} in ${seconds}s`,
  );
  return 0;
}

async function serve(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    data: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'public-token': { type: 'string' },
    'preview-token': { type: 'string' },
    latency: { type: 'string' },
    'no-rate-limit': { type: 'boolean' },
    faults: { type: 'string' },
    admin: { type: 'boolean' },
    'webhook-url': { type: 'string' },
    'webhook-secret': { type: 'string' },
  });
  if (values.help) {
    console.log(SERVE_HELP);
    return 0;
  }
  if (!values.data) throw new UsageError('serve needs --data DIR (a space directory: see `content-sync demo`)');
  for (const flag of ['public-token', 'preview-token'] as const)
    if (values[flag] === '') throw new UsageError(`--${flag} must not be empty (leave it out for the default)`);
  const port = integer(values.port as string | undefined, 'port', 3210, 0, 65535);
  const host = hostFlag(values.host as string | undefined);
  const latencyMs = integer(values.latency as string | undefined, 'latency', 0, 0, 60_000);
  const { FaultSpecError, parseFaultSpec, startServer } = await import('../server/index.js');
  const { readSpaceDirectory } = await import('../snapshot/read.js');
  let faults: FaultPlan | undefined;
  try {
    faults = values.faults ? parseFaultSpec(values.faults as string) : undefined;
  } catch (err) {
    if (err instanceof FaultSpecError) throw new UsageError(err.message);
    throw err;
  }
  const webhookUrl = values['webhook-url'] as string | undefined;
  // A `--webhook-url "$HOOK"` with HOOK unset would serve without a webhook, and without a word.
  if (webhookUrl === '') throw new UsageError('--webhook-url must not be empty (leave it out to post no webhooks)');
  // From the environment too, as watch takes it: a flag's value is on the command line for as long as serve runs.
  const secretFlag = values['webhook-secret'] as string | undefined;
  const webhookSecret = secretFlag || (webhookUrl ? process.env.CONTENT_WEBHOOK_SECRET || undefined : undefined);
  if (secretFlag !== undefined && !webhookUrl) throw new UsageError('--webhook-secret needs --webhook-url');
  if (webhookUrl && !webhookSecret)
    throw new UsageError(
      '--webhook-url needs the secret webhooks are signed with: CONTENT_WEBHOOK_SECRET (or --webhook-secret)',
    );
  if (webhookUrl) webhookUrlOf(webhookUrl);
  const loadStarted = performance.now();
  const space = await readSpaceDirectory(values.data as string);
  const server = await startServer({
    space,
    port,
    host,
    // From the environment too: a flag's value is on the command line for as long as serve runs.
    publicToken: (values['public-token'] as string | undefined) ?? (process.env.CONTENT_PUBLIC_TOKEN || undefined),
    previewToken: (values['preview-token'] as string | undefined) ?? (process.env.CONTENT_PREVIEW_TOKEN || undefined),
    latencyMs,
    rateLimit: !values['no-rate-limit'],
    faults,
    admin: Boolean(values.admin),
    webhook: webhookUrl && webhookSecret ? { url: webhookUrl, secret: webhookSecret } : undefined,
    log: (line) => console.error(line),
    assetUrls: 'self',
  }).catch((err: unknown) => {
    throw listenError(err, port);
  });
  // Now, so that the first requests do not pay for it.
  server.service.warm();
  const loadMs = Math.round(performance.now() - loadStarted);
  console.error(`loaded ${count(space.stories.length, 'story', 'stories')} from ${values.data} in ${loadMs} ms`);
  console.log(`listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.service.settled();
  await server.close();
  return 0;
}

/** The version in the package's manifest (two folders up, from src/cli and dist/cli alike). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'demo':
        return await demo(rest);
      case 'serve':
        return await serve(rest);
      case 'sync':
        return await (await import('./sync.js')).syncCommand(rest);
      case 'store':
        return await (await import('./store.js')).storeCommand(rest);
      case 'compile':
        return await (await import('./compile.js')).compileCommand(rest);
      case 'prepare':
        return await (await import('./prepare.js')).prepareCommand(rest);
      case 'watch':
        return await (await import('./watch.js')).watchCommand(rest);
      case '--version':
      case '-v':
        console.log(packageVersion());
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        console.error(`content-sync: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      // The one line that says what is wrong, and where the command's options are.
      console.error(`content-sync: ${err.message}\nRun \`content-sync ${command} --help\` for its options.`);
      return 2;
    }
    console.error(`content-sync ${command}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
