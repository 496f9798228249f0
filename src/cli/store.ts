/**
 * `content-sync store prune`: retention for the snapshot store (see src/store/prune.ts).
 */
import { integer, parse, UsageError } from './args.js';

const HELP = `usage: content-sync store prune --store s3://BUCKET/PREFIX --keep N [--grace-minutes M]

  --store URL         the store (default: $CONTENT_STORE)
  --keep N            manifests kept per space, API version and views, newest first (at least 1;
                      2 or more leaves a push under way its footing)
  --grace-minutes M   objects younger than this are never removed (default 60)`;

export async function storeCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    console.log(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'prune') throw new UsageError(`unknown store command "${sub}" (the one there is: prune)`);
  const { values } = parse(rest, {
    store: { type: 'string' },
    keep: { type: 'string' },
    'grace-minutes': { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const url = (values.store as string | undefined) ?? (process.env.CONTENT_STORE || undefined);
  if (!url) throw new UsageError('store prune needs --store s3://BUCKET/PREFIX (or CONTENT_STORE)');
  if (values.keep === undefined) throw new UsageError('store prune needs --keep N');
  const keep = integer(values.keep as string, 'keep', 1, 1, 10_000);
  const graceMinutes = integer(values['grace-minutes'] as string | undefined, 'grace-minutes', 60, 0, 525_600);
  const { ObjectStore, prune } = await import('../store/index.js');
  const store = await ObjectStore.open(url);
  try {
    const r = await prune(store, { keep, graceMs: graceMinutes * 60_000 });
    console.log(
      `pruned ${url}: ${r.manifests.removed} manifests removed (${r.manifests.kept} kept), ${r.objects.removed} objects removed (${r.objects.kept} kept)`,
    );
    return 0;
  } finally {
    store.close();
  }
}
