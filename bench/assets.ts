/**
 * Benchmark of asset localization over the 10,000-story demo space:
 * - the asset phase of a full sync with assets (every story's references, each asset downloaded
 *   once, staged; the references taken while stories are written are counted apart, inside the
 *   sync's own time) against a plain parallel download of the same files (8 at a time, into memory);
 * - an unchanged re-sync: asset requests the service counted (0 expected);
 * - build-time resizing (a smaller demo, every story in the bundle): a cold build resizes every
 *   image, a warm build finds each in the cache (0 resizes), as the plugin counts them.
 * The service renders the demo's stand-in files on first request, so one untimed download of every
 * file comes first: both timed runs read warm files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { build } from 'vite';
import { contentSync, type ContentSyncOptions } from '../src/index.js';
import { StoryRecord } from '../src/snapshot/index.js';
import { recordAssetReferences } from '../src/sync/assets.js';
import { sync } from '../src/sync/index.js';
import { DATA, demoSpace, fmt, json, loadavg, serve, timed } from './lib.js';

const STORIES = 10_000;
const CONCURRENCY = 8;
const BUILD_STORIES = 1_000;

async function referencedUrls(dir: string, spaceId: number): Promise<string[]> {
  const urls = new Map<string, string>();
  for (const name of await fs.readdir(path.join(dir, 'stories'))) {
    const record = StoryRecord.parse(JSON.parse(await fs.readFile(path.join(dir, 'stories', name), 'utf8')));
    for (const ref of recordAssetReferences(record, spaceId)) urls.set(new URL(ref.url).pathname, ref.url);
  }
  return [...urls.values()].sort();
}

async function plainDownload(urls: string[]): Promise<number> {
  const queue = new PQueue({ concurrency: CONCURRENCY });
  let bytes = 0;
  await Promise.all(
    urls.map((u) => queue.add(async () => (bytes += (await (await fetch(u)).arrayBuffer()).byteLength))),
  );
  return bytes;
}

/** One server build of a project whose entry loads every story; what the plugin resized. */
async function buildAll(root: string, images?: ContentSyncOptions['images']) {
  const plugin = contentSync({
    embedded: { data: 'space', demo: { stories: BUILD_STORIES } },
    assets: 'download',
    images,
  });
  const [, ms] = await timed(() =>
    build({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [plugin],
      build: { ssr: 'entry.js', ssrEmitAssets: true, outDir: 'dist', emptyOutDir: true },
    }),
  );
  return { ...plugin.api.images, ms };
}

async function benchResizing(): Promise<void> {
  const root = path.join(DATA, `assets-build-${BUILD_STORIES}`);
  await fs.rm(root, { recursive: true, force: true });
  await fs.mkdir(root, { recursive: true });
  await fs.writeFile(
    path.join(root, 'entry.js'),
    "import { entries, load } from 'content:index';\nexport const stories = () => Promise.all(entries.map(load));\n",
  );
  await buildAll(root, { widths: [] }); // sync and compile first: the timed builds only resize (or not)
  const cold = await buildAll(root);
  const warm = await buildAll(root);
  console.log(
    `build of the ${BUILD_STORIES.toLocaleString('en-US')}-story demo with every image: cold ${cold.resized} resized (${cold.cached} from the cache), ${fmt(cold.ms, 0)} ms; warm ${warm.resized} resized (${warm.cached} from the cache), ${fmt(warm.ms, 0)} ms`,
  );
}

export async function benchAssets(): Promise<void> {
  console.log(`\n## assets (${STORIES.toLocaleString('en-US')}-story demo; load ${loadavg()})`);
  const space = await demoSpace(STORIES);
  const served = await serve(space, ['--no-rate-limit', '--admin']);
  const out = path.join(DATA, `assets-snap-${STORIES}`);
  const plainOut = path.join(DATA, `assets-plain-${STORIES}`);
  await Promise.all([out, plainOut].map((d) => fs.rm(d, { recursive: true, force: true })));
  try {
    const base = { baseUrl: served.url, token: 'bench-public', out, client: { concurrency: 12 } };
    const [first, withoutMs] = await timed(() => sync({ ...base, out: plainOut }));
    const urls = await referencedUrls(plainOut, first.space.id);
    await plainDownload(urls); // warm the service's stand-ins
    const [bytes, plainMs] = await timed(() => plainDownload(urls));
    const [localized, withMs] = await timed(() => sync({ ...base, assets: { concurrency: CONCURRENCY } }));
    const assetMs = localized.assets!.durationMs;
    const stats = () => json<{ by_route: Record<string, number> }>('GET', `${served.url}/__admin/stats`);
    const before = (await stats()).by_route.assets ?? 0;
    const [again, againMs] = await timed(() => sync({ ...base, assets: {} }));
    const after = (await stats()).by_route.assets ?? 0;
    const a = localized.assets!;
    console.log(
      `plain parallel download of ${urls.length} files (${(bytes / 1024).toFixed(0)} KiB, ${CONCURRENCY} at a time): ${fmt(plainMs, 0)} ms`,
    );
    console.log(
      `full sync: ${fmt(withoutMs, 0)} ms without assets, ${fmt(withMs, 0)} ms with; its asset phase ${fmt(assetMs, 0)} ms (${a.downloaded} downloaded, ${a.referenced} referenced by ${localized.counts.stories} stories, ${a.retries} retries): ${fmt(assetMs / plainMs, 1)}x the plain download`,
    );
    console.log(`unchanged re-sync: ${again.mode}, ${after - before} asset downloads, ${fmt(againMs, 0)} ms`);
  } finally {
    await served.stop();
  }
  await benchResizing();
}
