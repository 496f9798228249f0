/**
 * Incremental sync: what it costs and what it touches, with webhook events
 * and without them (census), against the real local service.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { sync, type SyncResult, type WebhookEvent } from '../../src/sync/index.js';
import { PREVIEW, PUBLIC, startTestServer } from '../helpers/server.js';
import {
  admin,
  unpaced,
  mtimes,
  readJsonFile,
  readTree,
  removeTempDirs,
  serviceRequests,
  startReceiver,
  tempDir,
  treeDiff,
  type Receiver,
} from './support.js';

const SECRET = 'incremental-secret';

let open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.map((o) => o.close()));
  open = [];
});
afterAll(removeTempDirs);

interface Setup {
  url: string;
  server: RunningServer;
  receiver: Receiver;
  dir: string;
}

/** The fixture space served with the control plane and webhooks, synced once. */
async function setup(options: { clock?: () => Date } = {}): Promise<Setup> {
  const receiver = await startReceiver();
  const server = await startTestServer({ admin: true, webhook: { url: receiver.url, secret: SECRET }, ...options });
  open.push(server, receiver);
  const dir = await tempDir('incremental');
  const first = await sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() });
  expect(first.mode).toBe('full');
  return { url: server.url, server, receiver, dir };
}

/** Waits for every webhook of the changes so far and returns them. */
async function eventsOf(s: Setup): Promise<WebhookEvent[]> {
  await s.server.service.settled();
  return s.receiver.take();
}

/** A fresh full sync of the same service into a new directory. */
async function fresh(url: string): Promise<Map<string, string>> {
  const dir = await tempDir('fresh');
  await sync({ baseUrl: url, token: PUBLIC, out: dir, ...unpaced() });
  return readTree(dir);
}

function changedFiles(before: Map<string, number>, after: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [rel, t] of after) if (before.get(rel) !== t) out.push(rel);
  for (const rel of before.keys()) if (!after.has(rel)) out.push(rel);
  return out.sort();
}

describe('incremental sync', () => {
  it('does one request and writes nothing when the cache version did not move', async () => {
    const s = await setup();
    const bytes = await readTree(s.dir);
    const times = await mtimes(s.dir);
    await admin(s.url, 'POST', '/stats/reset');
    await sleep(20);
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir });
    expect(result.mode).toBe('unchanged');
    expect(result.requests).toBe(1);
    expect(await serviceRequests(s.url)).toBe(1);
    expect(result.files).toEqual({ written: 0, deleted: 0 });
    expect(treeDiff(bytes, await readTree(s.dir))).toEqual([]);
    expect(changedFiles(times, await mtimes(s.dir))).toEqual([]);
    // A draft-only edit does not move the cache version either.
    await admin(s.url, 'PUT', '/stories/13', { content: { title: 'draft only edit' } });
    expect((await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir })).mode).toBe('unchanged');
  });

  it('fetches and rewrites only the story a webhook names', async () => {
    const s = await setup();
    await admin(s.url, 'PUT', '/stories/13', { content: { title: 'Beta story, revised' } });
    await admin(s.url, 'POST', '/stories/13/publish');
    const events = await eventsOf(s);
    expect(events).toEqual([expect.objectContaining({ action: 'published', story_id: 13, space_id: 4242 })]);
    const times = await mtimes(s.dir);
    const bytesBefore = await readTree(s.dir);
    await admin(s.url, 'POST', '/stats/reset');
    await sleep(20);
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events });
    expect(result.mode).toBe('incremental');
    expect(result.changed.stories).toEqual([13]);
    // spaces/me + the story by id (default language) + one by_uuids request per other language + tags.
    const L = (await readJsonFile(`${s.dir}/manifest.json`)).languages.length as number;
    expect(L).toBe(2);
    expect(result.requests).toBeLessThanOrEqual(1 + L + 1);
    expect(await serviceRequests(s.url)).toBe(result.requests);
    // The record, the story index (and its rows), the manifest and space.json (it carries the cache version).
    const touched = changedFiles(times, await mtimes(s.dir));
    expect(touched).toEqual([
      'indexes/stories.json',
      'indexes/stories.rows.json',
      'manifest.json',
      'space.json',
      'stories/13.json',
    ]);
    expect(treeDiff(bytesBefore, await readTree(s.dir))).toEqual(touched);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
  });

  it('reads the whole space when its cache version went back (a service restarted without its edits)', async () => {
    const s = await setup();
    await admin(s.url, 'PUT', '/stories/13', { content: { title: 'Beta story, revised' } });
    await admin(s.url, 'POST', '/stories/13/publish');
    expect((await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, ...unpaced() })).changed.stories).toEqual([13]);
    // The same space served again from its start: an older cache version, without the edit.
    const restarted = await startTestServer();
    open.push(restarted);
    const back = await sync({ baseUrl: restarted.url, token: PUBLIC, out: s.dir, ...unpaced() });
    expect(back.mode).toBe('full');
    expect(back.changed.stories).toContain(13);
    expect(treeDiff(await readTree(s.dir), await fresh(restarted.url))).toEqual([]);
    // And with a webhook's events, which name nothing of what went back.
    await admin(s.url, 'PUT', '/stories/14', { content: { title: 'Gamma story, revised' } });
    await admin(s.url, 'POST', '/stories/14/publish');
    await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, ...unpaced() });
    const named = await sync({
      baseUrl: restarted.url,
      token: PUBLIC,
      out: s.dir,
      events: [{ action: 'published', space_id: 4242, story_id: 13 }],
      ...unpaced(),
    });
    expect(named.mode).toBe('full');
    expect(treeDiff(await readTree(s.dir), await fresh(restarted.url))).toEqual([]);
  });

  it('finds a changed story without events at the census cost', async () => {
    const s = await setup();
    await admin(s.url, 'PUT', '/stories/13', { content: { title: 'Beta story, revised' } });
    await admin(s.url, 'POST', '/stories/13/publish');
    await eventsOf(s);
    const times = await mtimes(s.dir);
    await sleep(20);
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir });
    expect(result.mode).toBe('incremental');
    expect(result.changed.stories).toEqual([13]);
    expect(result.changed.removed).toEqual([]);
    expect(changedFiles(times, await mtimes(s.dir))).toEqual([
      'indexes/stories.json',
      'indexes/stories.rows.json',
      'manifest.json',
      'space.json',
      'stories/13.json',
    ]);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
  });

  /** Changes through the control plane, each checked with its events and by census. */
  const scenarios: Array<{ name: string; change: (url: string) => Promise<void>; check: (r: SyncResult) => void }> = [
    {
      name: 'unpublished story',
      change: async (url) => void (await admin(url, 'POST', '/stories/14/unpublish')),
      check: (r) => expect(r.changed.removed).toEqual([14]),
    },
    {
      name: 'deleted story',
      change: async (url) => void (await admin(url, 'DELETE', '/stories/17')),
      check: (r) => expect(r.changed.removed).toEqual([17]),
    },
    {
      name: 'moved story',
      change: async (url) => void (await admin(url, 'PUT', '/stories/13', { slug: 'second-post-moved' })),
      check: (r) => expect(r.changed.stories).toEqual([13]),
    },
    {
      name: 'moved story into another folder',
      change: async (url) => void (await admin(url, 'PUT', '/stories/20', { parent_id: 4 })),
      check: (r) => expect(r.changed.stories).toEqual([20]),
    },
    {
      name: 'moved folder (every child changes its full_slug)',
      change: async (url) => void (await admin(url, 'PUT', '/stories/1', { slug: 'journal' })),
      check: (r) => expect(r.changed.stories).toEqual([11, 12, 13, 14]),
    },
    {
      name: 'moved folder that holds only a folder',
      change: async (url) => void (await admin(url, 'PUT', '/stories/4', { slug: 'shop' })),
      check: (r) => expect(r.changed.stories).toEqual([19, 20]),
    },
    {
      name: 'two stories swapping their slugs',
      change: async (url) => {
        await admin(url, 'PUT', '/stories/12', { slug: 'swap-tmp' });
        await admin(url, 'PUT', '/stories/13', { slug: 'first-post' });
        await admin(url, 'PUT', '/stories/12', { slug: 'second-post' });
      },
      check: (r) => expect(r.changed.stories).toEqual([12, 13]),
    },
    {
      name: 'entries_updated',
      change: async (url) =>
        void (await admin(url, 'PUT', '/datasources/colors/entries', {
          entries: [
            { name: 'red', value: 'Crimson', dimension_values: { de: 'Karmin' } },
            { name: 'yellow', value: 'Yellow', dimension_values: { de: 'Gelb' } },
          ],
        })),
      check: (r) => {
        expect(r.changed.datasources).toEqual([100]);
        expect(r.changed.stories).toEqual([]);
      },
    },
    {
      name: 'new datasource',
      change: async (url) =>
        void (await admin(url, 'PUT', '/datasources/sizes/entries', { entries: [{ name: 's', value: 'Small' }] })),
      check: (r) => expect(r.changed.datasources).toHaveLength(1),
    },
    {
      name: 'new stories, published',
      change: async (url) => {
        for (const slug of ['new-one', 'new-two']) {
          const created = await admin(url, 'POST', '/stories', {
            name: slug,
            slug,
            parent_id: 2,
            tag_list: ['fresh'],
            content: { component: 'author', name: slug },
          });
          await admin(url, 'POST', `/stories/${created.story.id}/publish`);
        }
        // A third is created but stays a draft: not part of the published view.
        await admin(url, 'POST', '/stories', { name: 'draft', slug: 'draft-new', parent_id: 2 });
      },
      check: (r) => {
        expect(r.changed.stories).toHaveLength(2);
        expect(r.changed.tags).toBe(true);
      },
    },
    {
      name: 'translation published',
      change: async (url) => {
        await admin(url, 'PUT', '/stories/13', {
          lang: 'de',
          name: 'Zweiter Beitrag',
          content: { title: 'Beta Geschichte' },
        });
        await admin(url, 'POST', '/stories/13/publish');
      },
      check: (r) => expect(r.changed.stories).toEqual([13]),
    },
  ];

  for (const mode of ['events', 'census'] as const) {
    for (const sc of scenarios) {
      it(`${mode}: ${sc.name} gives what a fresh full sync gives`, async () => {
        const s = await setup();
        await sc.change(s.url);
        const events = await eventsOf(s);
        expect(events.length).toBeGreaterThan(0);
        const result = await sync({
          baseUrl: s.url,
          token: PUBLIC,
          out: s.dir,
          ...(mode === 'events' ? { events } : {}),
        });
        expect(result.mode).toBe('incremental');
        sc.check(result);
        expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
      });
    }
  }
});

describe('events that do not name every change', () => {
  it('a moved folder without full_slug that the snapshot cannot place falls back to the census', async () => {
    const s = await setup();
    // A datasource change whose event is lost: the census reads every datasource, as one without events does.
    await admin(s.url, 'PUT', '/datasources/sizes/entries', { entries: [{ name: 's', value: 'Small' }] });
    await eventsOf(s);
    await admin(s.url, 'PUT', '/stories/4', { slug: 'shop' });
    const events = (await eventsOf(s)).map((e) => {
      const { full_slug: _drop, ...rest } = e as WebhookEvent & { full_slug?: string };
      return rest as WebhookEvent;
    });
    expect(events).toEqual([expect.objectContaining({ action: 'moved', story_id: 4 })]);
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events });
    expect(result.changed.stories).toEqual([19, 20]);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
  });
});

describe('events that do not name a change made since', () => {
  it('a sync without events after them reads what they did not name, from before the events', async () => {
    // The service's clock, moved on by hand: publications minutes apart.
    let now = Date.now();
    const s = await setup({ clock: () => new Date(now) });
    // Story 13 changes, but its webhook is lost; ten minutes later story 14 is published and its
    // webhook arrives: the events sync takes 14's publication, newer than 13's by far.
    await admin(s.url, 'PUT', '/stories/13', { content: { title: 'Changed, its event lost' } });
    await admin(s.url, 'POST', '/stories/13/publish');
    await eventsOf(s);
    now += 10 * 60_000;
    await admin(s.url, 'PUT', '/stories/14', { content: { title: 'Published after 13' } });
    await admin(s.url, 'POST', '/stories/14/publish');
    const [named] = await eventsOf(s);
    const before = await readJsonFile(`${s.dir}/manifest.json`);
    const narrowed = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events: [named!] });
    expect(narrowed.changed.stories).toEqual([14]);
    // The events vouch for nothing else: the manifest keeps where the last complete sync was.
    const after = await readJsonFile(`${s.dir}/manifest.json`);
    expect(after.cv).toBe(narrowed.cv);
    expect(after.last_complete).toEqual({ cv: before.cv, max_published_at: before.max_published_at });
    // A sync without events at the same cache version is no 'unchanged': it asks what changed since
    // the last complete sync (from 14's publication, the census would not see 13's).
    const plain = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir });
    expect(plain.mode).toBe('incremental');
    expect(plain.changed.stories).toEqual([13]);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
    // Complete again: no marker, and the next sync is unchanged.
    expect((await readJsonFile(`${s.dir}/manifest.json`)).last_complete).toBeUndefined();
    expect((await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir })).mode).toBe('unchanged');
  });
});

describe('an asset event alone', () => {
  const assetEvent: WebhookEvent = { text: 'replaced', action: 'replaced', space_id: 1, asset_id: 7 };

  it('narrows nothing in the published view: the census finds a change no event named', async () => {
    const s = await setup();
    await admin(s.url, 'PUT', '/stories/13', { content: { title: 'changed, its webhook lost' } });
    await admin(s.url, 'POST', '/stories/13/publish');
    const r = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events: [assetEvent], ...unpaced() });
    expect(r.mode).toBe('incremental');
    expect(r.changed.stories).toEqual([13]);
  });

  it('says nothing to a sync without asset downloads: at the same version, unchanged', async () => {
    const s = await setup();
    const r = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events: [assetEvent], ...unpaced() });
    expect(r.mode).toBe('unchanged');
    expect(r.files.written).toBe(0);
  });

  it('narrows a draft-view sync to nothing (without events it would read the whole space)', async () => {
    const s = await setup();
    const dir = await tempDir('draft-asset-event');
    const first = await sync({ baseUrl: s.url, token: PREVIEW, out: dir, views: ['draft'], ...unpaced() });
    expect(first.mode).toBe('full');
    const r = await sync({
      baseUrl: s.url,
      token: PREVIEW,
      out: dir,
      views: ['draft'],
      events: [assetEvent],
      ...unpaced(),
    });
    expect(r.mode).toBe('incremental');
    expect(r.changed.stories).toEqual([]);
    expect(r.requests).toBeLessThan(first.requests);
  });
});

describe('a moved event for a story the snapshot lacks', () => {
  it('fetches the story (its publication event was lost), as it fetches nothing for a folder', async () => {
    const s = await setup();
    const created = await admin(s.url, 'POST', '/stories', { name: 'Late', slug: 'late' });
    const id = (created as { story: { id: number } }).story.id;
    await admin(s.url, 'POST', `/stories/${id}/publish`);
    await eventsOf(s); // lost
    await admin(s.url, 'PUT', `/stories/${id}`, { slug: 'later' });
    const events = await eventsOf(s);
    expect(events).toEqual([expect.objectContaining({ action: 'moved', story_id: id })]);
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events });
    expect(result.changed.stories).toEqual([id]);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
  });
});

describe('events that arrive late or out of order', () => {
  it('an unpublish delivered after the publish that followed it removes nothing the service still serves', async () => {
    const s = await setup();
    await admin(s.url, 'POST', '/stories/14/unpublish');
    await admin(s.url, 'POST', '/stories/14/publish');
    const [unpublished, published] = await eventsOf(s);
    expect([unpublished?.action, published?.action]).toEqual(['unpublished', 'published']);
    // Delivered in the other order: the publish first, then the unpublish on its own.
    await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events: [published!] });
    const late = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events: [unpublished!] });
    expect(late.changed.removed).toEqual([]);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
    // A deletion the service has not made is not taken on the event's word either.
    const forged = await sync({
      baseUrl: s.url,
      token: PUBLIC,
      out: s.dir,
      events: [{ ...unpublished!, action: 'deleted' }],
    });
    expect(forged.changed.removed).toEqual([]);
    // One it has made is.
    await admin(s.url, 'DELETE', '/stories/14');
    const [deleted] = await eventsOf(s);
    const gone = await sync({ baseUrl: s.url, token: PUBLIC, out: s.dir, events: [deleted!] });
    expect(gone.changed.removed).toEqual([14]);
    expect(treeDiff(await readTree(s.dir), await fresh(s.url))).toEqual([]);
  });
});

describe('census cost', () => {
  it('stays near one request per ~100 known stories plus a few per change', async () => {
    const N = 1000;
    const server = await startServer({
      space: generateDemoSpace({ stories: N }),
      rateLimit: false,
      admin: true,
      publicToken: PUBLIC,
    });
    open.push(server);
    const dir = await tempDir('census');
    const full = await sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() });
    const known = full.counts.stories;
    const L = (await readJsonFile(`${dir}/manifest.json`)).languages.length as number;
    const index = (
      await readJsonFile<Array<{ id: number; is_startpage: boolean }>>(`${dir}/indexes/stories.json`)
    ).filter((e) => !e.is_startpage);
    // k = 4 changes: two edits, one unpublish, one delete.
    const [a, b, c, d] = [index[3]!.id, index[200]!.id, index[400]!.id, index[600]!.id];
    await admin(server.url, 'PUT', `/stories/${a}`, { name: 'Edited A' });
    await admin(server.url, 'POST', `/stories/${a}/publish`);
    await admin(server.url, 'PUT', `/stories/${b}`, { name: 'Edited B' });
    await admin(server.url, 'POST', `/stories/${b}/publish`);
    await admin(server.url, 'POST', `/stories/${c}/unpublish`);
    await admin(server.url, 'DELETE', `/stories/${d}`);
    const result = await sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() });
    expect(result.mode).toBe('incremental');
    expect(result.changed.stories).toEqual([a, b].sort((x, y) => x - y));
    expect(result.changed.removed).toEqual([c, d].sort((x, y) => x - y));
    // spaces/me + published-since listing (L) + updated-since listing (1) + census batches + bisection (about 2·log2(batch) per vanished story)
    // + one by_ids round for the vanished (L) + datasources + tags.
    const censusBatches = Math.ceil(known / 100) + 2;
    const datasources = full.requests - 1 - 1 - Math.ceil(known / 25) * L;
    const bound = 1 + L + 1 + censusBatches + 2 * 2 * Math.ceil(Math.log2(150)) + L + Math.max(datasources, 0) + 1;
    console.log(
      `census: N=${known} stories, k=4 changes (2 edits, 1 unpublish, 1 delete): ${result.requests} requests (full sync: ${full.requests}; bound ${bound})`,
    );
    expect(result.requests).toBeLessThanOrEqual(bound);
    expect(result.requests).toBeLessThan(full.requests / 2);
  });
});
