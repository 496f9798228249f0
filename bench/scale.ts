/**
 * Work that once grew with the square of the space, side by side with work of the same size known
 * to grow with it: each ratio stays near 1 where the work is a lookup, and was 15 to 1,400 where it
 * was a search (`npm run bench -- scale`). CPU time of this process, the least of a few runs.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { datasourcesModule } from '../src/compile/emit.js';
import { writeDemoSpace } from '../src/demo/index.js';
import { handleCdn } from '../src/server/cdn.js';
import { encode } from '../src/server/respond.js';
import { SpaceStore } from '../src/server/store.js';
import { RecordFileCache, readSpaceDirectory } from '../src/snapshot/index.js';
import { fixtureSpace } from '../test/helpers/fixture-space.js';
import { assetPhase, heldAssets, referencesOf, unchangedCdn } from '../test/helpers/held-assets.js';
import { DIMENSIONS, entries, foldersSpace, labelledDatasource } from '../test/helpers/scale-spaces.js';
import { fmt } from './lib.js';

/** The least CPU time, in milliseconds, of `runs` runs of `run`. */
async function cpuMs(run: () => unknown, runs = 3): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    await run();
    const spent = process.cpuUsage(before);
    least = Math.min(least, (spent.user + spent.system) / 1000);
  }
  return least;
}

function report(what: string, work: [string, number], against: [string, number]): void {
  console.log(
    `scale: ${what}: ${work[0]} ${fmt(work[1], 1)} ms against ${against[0]} ${fmt(against[1], 1)} ms: ${fmt(work[1] / against[1], 2)}x`,
  );
}

/** 200,000 labels of the last entries of a 50,000-entry datasource, against the same in one of 50. */
async function labels(dir: string): Promise<void> {
  const file = path.join(dir, 'datasources.js');
  await fs.writeFile(
    file,
    datasourcesModule([labelledDatasource(1, 'small', 50), labelledDatasource(2, 'large', 50_000)]),
  );
  const { label } = (await import(pathToFileURL(file).href)) as {
    label: (datasource: string, name: string, dimension?: string) => string | undefined;
  };
  const run = (slug: string, size: number) => () => {
    for (let i = 0; i < 200_000; i++) label(slug, `entry-${size - 1 - (i % 10)}`, 'de');
  };
  run('small', 50)();
  run('large', 50_000)();
  report(
    'label() x 200,000',
    ['50,000 entries', await cpuMs(run('large', 50_000))],
    ['50 entries', await cpuMs(run('small', 50))],
  );
}

/** The control plane replacing 16,000 entries in three dimensions that a datasource holds, against creating them. */
async function datasourceEntries(): Promise<void> {
  const input = { dimensions: DIMENSIONS, entries: entries(16_000) };
  let round = 0;
  const creating = await cpuMs(() => new SpaceStore(fixtureSpace()).replaceDatasourceEntries(`new-${round++}`, input));
  const store = new SpaceStore(fixtureSpace());
  store.replaceDatasourceEntries('held', input);
  const replacing = await cpuMs(() => store.replaceDatasourceEntries('held', input));
  report('PUT datasources/:slug/entries, 16,000 entries', ['replacing', replacing], ['creating', creating]);
}

/**
 * Paging through a 64,000-entry datasource, 1,000 entries a page as the service answers (each page
 * asked twice, once for a dimension), against as many pages of a datasource of 1,000.
 */
async function pagedEntries(): Promise<void> {
  const space = fixtureSpace();
  space.datasources.push(labelledDatasource(7, 'small', 1_000), labelledDatasource(8, 'large', 64_000));
  const store = new SpaceStore(space);
  const pages = (slug: string, last: number) => () => {
    for (let page = 1; page <= 64; page++)
      for (const dimension of ['', 'de']) {
        const params = new URLSearchParams({
          token: 'bench',
          datasource: slug,
          per_page: '1000',
          page: String(Math.min(page, last)),
        });
        if (dimension) params.set('dimension', dimension);
        encode(handleCdn(store, { api: 'v2', endpoint: 'datasource_entries', path: '', params, preview: false }));
      }
  };
  pages('large', 64)();
  pages('small', 1)();
  report(
    'datasource_entries, 64 pages of 1,000 (and of a dimension)',
    ['of 64,000 entries', await cpuMs(pages('large', 64))],
    ['of 1,000 entries', await cpuMs(pages('small', 1))],
  );
}

/**
 * A demo space directory of 10,000 stories read again after one story file was saved, as the
 * embedded service reads it after each save in a dev server: with what the last read took (the
 * files changed since are read), against reading it whole (what every such read did).
 */
async function rereadDirectory(dir: string): Promise<void> {
  const space = path.join(dir, 'reread-space');
  await writeDemoSpace(space, { stories: 10_000 });
  // Only files settled 2 s before a read are kept for the next (their stamps tell every change).
  await new Promise((r) => setTimeout(r, 2_100));
  const file = path.join(space, 'stories', (await fs.readdir(path.join(space, 'stories')))[0]!);
  const text = await fs.readFile(file, 'utf8');
  let saves = 0;
  const save = () => fs.writeFile(file, text.replace('"name": "', `"name": "${saves++} `));
  const cache = new RecordFileCache();
  await readSpaceDirectory(space, new Map(), cache);
  const again = async () => {
    await save();
    await readSpaceDirectory(space, new Map(), cache);
  };
  const whole = async () => {
    await save();
    await readSpaceDirectory(space, new Map());
  };
  report(
    'a space directory of 10,000 stories read after one story file saved',
    ['with what the last read took', await cpuMs(again)],
    ['read whole', await cpuMs(whole, 2)],
  );
}

/** The control plane creating 2,000 stories and moving 2,000 in a space of 20,000 stories, against one of 2,000. */
async function controlPlaneSlugs(): Promise<void> {
  const run = (n: number) => {
    // A store for each run, made before: the changes alone are timed.
    const stores = [0, 1].map(() => new SpaceStore(foldersSpace(n, true)));
    return () => {
      const store = stores.pop()!;
      for (let i = 0; i < 2_000; i++) store.createStory({ name: `new ${i}`, slug: `new-${i}` });
      for (let i = 0; i < 2_000; i++) store.updateStory(900_000 + (i % n), { slug: `moved-${i}` });
    };
  };
  const small = await cpuMs(run(2_000), 2);
  const large = await cpuMs(run(20_000), 2);
  report('control plane: 2,000 stories created and 2,000 moved', ['in 20,000 stories', large], ['in 2,000', small]);
}

/**
 * The first 20 pages (of 100) of a search every story matches, in a space of 20,000 stories against
 * one of 2,000: the search is made for the first page, the others cut from it.
 */
async function pagedSearch(): Promise<void> {
  const run = (n: number) => {
    const store = new SpaceStore(foldersSpace(n, true));
    let round = 0;
    return () => {
      // A term of its own each run, so that no run takes the selection an earlier one made.
      const term = [...'welcome'].map((c, i) => (i === round ? c.toUpperCase() : c)).join('');
      round++;
      for (let page = 1; page <= 20; page++) {
        const params = new URLSearchParams({ token: 'bench', search_term: term, per_page: '100', page: String(page) });
        encode(handleCdn(store, { api: 'v2', endpoint: 'stories', path: '', params, preview: false }));
      }
    };
  };
  const small = run(2_000);
  const large = run(20_000);
  small();
  large();
  report(
    'stories?search_term=, 20 pages of 100',
    ['in 20,000 stories', await cpuMs(large, 2)],
    ['in 2,000', await cpuMs(small, 2)],
  );
}

/** Loading 16,000 folders a synced snapshot lacks (derived from paths), against the same folders listed. */
async function derivedFolders(): Promise<void> {
  const listed = foldersSpace(16_000, true);
  const derived = foldersSpace(16_000, false);
  // Each loaded once first, so that neither is timed while its code is still being compiled.
  new SpaceStore(listed);
  new SpaceStore(derived);
  report(
    'a space of 16,000 folders loaded',
    ['derived from paths', await cpuMs(() => new SpaceStore(derived), 2)],
    ['listed', await cpuMs(() => new SpaceStore(listed), 2)],
  );
}

/** The asset phase over 50,000 stories and 200 held assets: asking after each, and downloading each gone, against trusting them. */
async function heldAssetPhase(dir: string): Promise<void> {
  const cdn = await unchangedCdn();
  try {
    const stories = 50_000;
    const assets = 200;
    const file = await heldAssets(dir, cdn.url, stories, assets);
    await assetPhase(dir, cdn.url, stories, true); // warm up
    const trusted = (await assetPhase(dir, cdn.url, stories, false)).cpu / 1000;
    const asked = (await assetPhase(dir, cdn.url, stories, true)).cpu / 1000;
    report('asset phase, 50,000 stories, 200 held assets', ['asking after each', asked], ['trusting them', trusted]);
    await fs.rm(path.join(dir, file));
    const gone = (await assetPhase(dir, cdn.url, stories, false, referencesOf(cdn.url, stories, assets))).cpu / 1000;
    report(
      'asset phase, 50,000 stories, 200 held assets',
      ['downloading each gone', gone],
      ['asking after each', asked],
    );
  } finally {
    await cdn.close();
  }
}

export async function benchScale(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-bench-scale-'));
  try {
    await labels(dir);
    await datasourceEntries();
    await pagedEntries();
    await derivedFolders();
    await pagedSearch();
    await controlPlaneSlugs();
    await rereadDirectory(dir);
    await heldAssetPhase(path.join(dir, 'assets-snapshot'));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
