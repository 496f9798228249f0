/**
 * The property of the incremental compile: after any sequence of content changes made through the
 * control plane and synced, an incremental compile of the snapshot gives the files a full compile
 * of it gives, and writes only those whose bytes change. The changes aim at what a compile follows
 * from one story to another: relation and link targets switched, moved, unpublished, deleted or
 * missing; option values past the literal cap; translations; a content type changed; tags and
 * datasource entries. Randomized and seeded; a failure prints the seed, the round and the
 * operations, and `COMPILE_PROPERTY_SEED=<seed>` replays it.
 */
import { rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompileCache, compile, type CompileOptions } from '../../src/compile/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type SpaceStore } from '../../src/server/index.js';
import { sync } from '../../src/sync/index.js';
import { PREVIEW, PUBLIC } from '../helpers/server.js';
import { Prng, admin, attemptAdmin, removeTempDirs, tempDir, unpaced, walk } from '../sync/support.js';
import { bytesDiff, readOutput, touched } from './support.js';

const ROUNDS = 12;
const STORIES = 120;
const STATE = '.content-sync-compile.json';
const PAST = new Date('2001-01-01T00:00:00Z');
/** More values than the twelve a field prints as literals, so edits move it across the cap both ways. */
const COLORS = Array.from({ length: 15 }, (_, k) => `tone-${k}`);
const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord'];

afterAll(removeTempDirs);

interface World {
  url: string;
  store: SpaceStore;
  rng: Prng;
  n: number;
}

type Operation = (w: World) => Promise<string>;

const all = (w: World) => w.store.toData().stories.filter((r) => !(r.draft ?? r.published)!.story.is_folder);
const ofComponent = (w: World, component: string) =>
  all(w).filter((r) => (r.draft ?? r.published)!.story.content.component === component);

const attempt = (w: World, method: string, route: string, body?: unknown) => attemptAdmin(w.url, method, route, body);

/** Changes a story and, most of the time, publishes the change. */
async function change(w: World, id: number, body: unknown): Promise<string> {
  let log = await attempt(w, 'PUT', `/stories/${id}`, body);
  if (w.rng.next() < 0.85) log += `; ${await attempt(w, 'POST', `/stories/${id}/publish`)}`;
  return log;
}

/** A uuid for a relation or link: an author's (often), any story's, one no story has, or none. */
function target(w: World): string {
  const x = w.rng.next();
  if (x < 0.1) return '00000000-0000-4000-8000-00000000dead';
  if (x < 0.15) return '';
  const pool = x < 0.6 ? ofComponent(w, 'author') : all(w);
  return (pool.length ? w.rng.pick(pool) : w.rng.pick(all(w))).uuid;
}

/** An article to change (any story once none is left). */
function article(w: World): number {
  const articles = ofComponent(w, 'article');
  return (articles.length ? w.rng.pick(articles) : w.rng.pick(all(w))).id;
}

const operations: Array<[name: string, weight: number, op: Operation]> = [
  ['title', 3, (w) => change(w, w.rng.pick(all(w)).id, { content: { title: `${w.rng.pick(WORDS)} ${w.n++}` } })],
  ['color', 3, (w) => change(w, article(w), { content: { color: w.rng.pick(COLORS) } })],
  ['author', 3, (w) => change(w, article(w), { content: { author: target(w) } })],
  [
    'link',
    2,
    (w) =>
      change(w, article(w), {
        content: {
          link: {
            _uid: `l${w.n++}`,
            id: target(w),
            url: '',
            linktype: 'story',
            fieldtype: 'multilink',
            cached_url: 'somewhere/stale',
          },
        },
      }),
  ],
  ['move', 2, (w) => change(w, w.rng.pick(all(w)).id, { slug: `moved-${w.n++}` })],
  [
    'translation',
    1,
    (w) =>
      change(w, w.rng.pick(all(w)).id, {
        lang: w.rng.pick(['de', 'fr']),
        name: `${w.rng.pick(WORDS)} ${w.n++}`,
        content: { title: `${w.rng.pick(WORDS)} ${w.n++}` },
      }),
  ],
  ['content type', 1, (w) => change(w, article(w), { content: { component: 'page' } })],
  [
    'tags',
    1,
    (w) => change(w, w.rng.pick(all(w)).id, { tag_list: [...new Set([w.rng.pick(WORDS), w.rng.pick(WORDS)])] }),
  ],
  [
    'datasource',
    1,
    (w) => {
      const ds = w.rng.pick(w.store.toData().datasources);
      const entries = ds.entries
        .filter(() => w.rng.next() > 0.2)
        .map((e) => ({
          name: e.name,
          value: w.rng.next() < 0.3 ? `${w.rng.pick(WORDS)} ${w.n++}` : e.value,
          ...(e.dimension_values ? { dimension_values: e.dimension_values } : {}),
        }));
      if (w.rng.next() < 0.5) entries.push({ name: `entry-${w.n++}`, value: w.rng.pick(WORDS) });
      return attempt(w, 'PUT', `/datasources/${ds.datasource.slug}/entries`, { entries });
    },
  ],
  ['publish', 1, (w) => attempt(w, 'POST', `/stories/${w.rng.pick(all(w)).id}/publish`)],
  [
    'unpublish',
    1,
    (w) => {
      const published = all(w).filter((r) => r.published);
      return published.length
        ? attempt(w, 'POST', `/stories/${w.rng.pick(published).id}/unpublish`)
        : Promise.resolve('nothing published');
    },
  ],
  ['delete', 1, (w) => attempt(w, 'DELETE', `/stories/${w.rng.pick(all(w)).id}`)],
  [
    'create',
    1,
    async (w) => {
      const slug = `new-${w.n++}`;
      const body = {
        name: `New ${slug}`,
        slug,
        parent_id: 0,
        content: { component: 'article', title: w.rng.pick(WORDS), color: w.rng.pick(COLORS), author: target(w) },
      };
      const created = await admin(w.url, 'POST', '/stories', body);
      return `POST /stories ${JSON.stringify(body)} -> ${created.story.id}; ${await attempt(w, 'POST', `/stories/${created.story.id}/publish`)}`;
    },
  ],
];

function pickOperation(rng: Prng): [string, Operation] {
  let x = rng.next() * operations.reduce((n, [, weight]) => n + weight, 0);
  for (const [name, weight, op] of operations) {
    x -= weight;
    if (x < 0) return [name, op];
  }
  return [operations[0]![0], operations[0]![2]];
}

async function runProperty(options: Omit<CompileOptions, 'snapshot' | 'out'>, seed: number): Promise<void> {
  // The directories first: nothing is left running if making them fails.
  const snapshot = await tempDir('compile-property-snapshot');
  const out = await tempDir('compile-property-out');
  const server = await startServer({
    space: generateDemoSpace({ stories: STORIES }),
    rateLimit: false,
    admin: true,
    publicToken: PUBLIC,
    previewToken: PREVIEW,
  });
  // The draft view from a snapshot of both views (drafts and unpublished stories included).
  const doSync = () =>
    sync({
      baseUrl: server.url,
      out: snapshot,
      ...unpaced(),
      ...(options.view === 'draft' ? { token: PREVIEW, views: ['published', 'draft'] } : { token: PUBLIC }),
    });
  const w: World = { url: server.url, store: server.service.store, rng: new Prng(seed), n: 0 };
  const history: string[] = [];
  try {
    await doSync();
    // The compiles into `out` keep their state in memory, as the dev server's do.
    const cache = new CompileCache();
    await compile({ snapshot, out, cache, ...options });
    for (let round = 1; round <= ROUNDS; round++) {
      const ops: string[] = [];
      for (let i = w.rng.int(1, 4); i > 0; i--) {
        const [name, op] = pickOperation(w.rng);
        ops.push(`${name}: ${await op(w)}`);
      }
      history.push(`round ${round}:\n    ${ops.join('\n    ')}`);
      const failure = (what: string) =>
        new Error(
          `seed ${seed} (replay: COMPILE_PROPERTY_SEED=${seed}), round ${round}: ${what}\n  ${history.join('\n  ')}`,
        );
      await doSync();
      // Every file aged, so that a write shows as a moved mtime; the state too every other round, so
      // that the compile reads it from its file then, and takes it from this process's memory else.
      for (const rel of await walk(out))
        if (rel !== STATE || round % 2 === 0) utimesSync(path.join(out, rel), PAST, PAST);
      const before = await readOutput(out);
      const result = await compile({ snapshot, out, cache, ...options });
      if (result.mode !== 'incremental') throw failure(`the compile was ${result.mode}`);
      const after = await readOutput(out);
      const changed = bytesDiff(before, after, [STATE]);
      const moved = touched(before, after).filter((r) => r !== STATE);
      if (moved.join() !== changed.join())
        throw failure(`written with the same bytes: ${moved.filter((r) => !changed.includes(r)).join(', ')}`);
      const fresh = await tempDir('compile-property-fresh');
      await compile({ snapshot, out: fresh, ...options, full: true });
      const diff = bytesDiff(after, await readOutput(fresh), [STATE]);
      rmSync(fresh, { recursive: true, force: true });
      if (diff.length)
        throw failure(
          `the incremental output differs from a full compile in ${diff.slice(0, 12).join(', ')}${diff.length > 12 ? ` (+${diff.length - 12})` : ''}`,
        );
    }
  } finally {
    await server.close();
  }
}

const envSeed = process.env.COMPILE_PROPERTY_SEED;
const seedOf = (fallback: number) => (envSeed !== undefined && /^\d+$/.test(envSeed) ? Number(envSeed) : fallback);

describe('an incremental compile equals a full compile after any changes', () => {
  it(`relations and url links at depth 1, ${ROUNDS} rounds`, { timeout: 90_000 }, async () => {
    await expect(
      runProperty(
        { resolveRelations: ['article.author', 'article.categories'], resolveLinks: 'url', chunkSize: 10 },
        seedOf(1),
      ),
    ).resolves.toBeUndefined();
  });

  it(`detected relations and story links at depth 2, ${ROUNDS} rounds`, { timeout: 90_000 }, async () => {
    await expect(
      runProperty({ detectRelations: true, resolveLinks: 'story', depth: 2, chunkSize: 10 }, seedOf(4242)),
    ).resolves.toBeUndefined();
  });

  it(`the draft view with routing links, ${ROUNDS} rounds`, { timeout: 90_000 }, async () => {
    await expect(
      runProperty(
        { view: 'draft', resolveRelations: ['article.author'], resolveLinks: 'link', chunkSize: 10 },
        seedOf(77),
      ),
    ).resolves.toBeUndefined();
  });
});
