/**
 * A server whose listing counts lie (a proxy in front of the real service that strips or changes
 * `Total`): a sync never concludes from such a count that content vanished. It fails with a message
 * that names the listing and the count, and the previous snapshot stays exactly as it was. A count
 * far beyond any space is refused at once, and pages are asked for lazily, never queued up front.
 */
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { sync } from '../../src/sync/index.js';
import { queryOf, reply, startHostile, type Upstream } from '../client/hostile.js';
import { admin, readTree, removeTempDirs, tempDir, unpaced } from './support.js';

const TOKEN = 'hostile-public';

let service: RunningServer;
let root: string;
let good: string;
let published: number;
let copies = 0;

/** A fresh copy of the good snapshot. */
async function snapshotCopy(): Promise<string> {
  const dir = path.join(root, `copy-${++copies}`);
  await cp(good, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

/** Whether a request is a listing of stories (every language, every filter). */
const storiesListing = (url: string | undefined) => new URL(url ?? '/', 'http://x').pathname.endsWith('/cdn/stories');

beforeAll(async () => {
  root = await tempDir('hostile-total');
  service = await startServer({
    space: generateDemoSpace({ stories: 120 }),
    publicToken: TOKEN,
    rateLimit: false,
    admin: true,
  });
  good = path.join(root, 'good');
  const first = await sync({ baseUrl: service.url, token: TOKEN, out: good, ...unpaced() });
  published = first.counts.stories;
});
afterAll(async () => {
  await service?.close();
  await removeTempDirs();
});

describe('a listing whose Total cannot be trusted', { timeout: 60_000 }, () => {
  it('holds more than one page of stories (the cases below need several)', () => {
    expect(published).toBeGreaterThan(50);
    expect(published % 25).not.toBe(0);
  });

  const cases: Array<[string, (answer: Upstream) => void, RegExp]> = [
    ['missing', (a) => void delete a.headers.total, /has no Total header/],
    ['negative', (a) => void (a.headers.total = '-3'), /Total header that is not a count \("-3"\)/],
    ['not a number', (a) => void (a.headers.total = 'abc'), /Total header that is not a count/],
    ['in exponent form', (a) => void (a.headers.total = '1e9'), /Total header that is not a count \("1e9"\)/],
    ['zero', (a) => void (a.headers.total = '0'), /says Total 0 at 25 per page, so page 1 holds 0, but it holds 25/],
    [
      'too small by whole pages',
      (a) => void (a.headers.total = '25'),
      /says Total 25 at 25 per page, so page 2 holds 0, but it holds 25/,
    ],
    [
      'too small by part of a page',
      (a) => void (a.headers.total = String(published - 3)),
      /says Total \d+ at 25 per page, so page \d holds \d+, but it holds \d+/,
    ],
    [
      'too large',
      (a) => void (a.headers.total = String(published + 40)),
      /says Total \d+ at 25 per page, so page \d holds 25, but it holds \d+/,
    ],
    [
      'beyond any space',
      (a) => void (a.headers.total = '1000000000'),
      /claims Total 1000000000, more than the 1000000 items/,
    ],
    ['without Per-Page', (a) => void delete a.headers['per-page'], /has no Per-Page header/],
  ];

  for (const [name, change, message] of cases) {
    it(`${name}: sync --full fails naming the listing and leaves the snapshot exactly as it was`, async () => {
      const dir = await snapshotCopy();
      const before = await readTree(dir);
      const proxy = await startHostile(service.url, async (req, res, forward) => {
        const answer = await forward();
        if (storiesListing(req.url)) change(answer);
        reply(res, answer);
      });
      try {
        const run = sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, ...unpaced() });
        const error = (await run.catch((e: unknown) => e)) as Error;
        expect(error.message).toMatch(
          /the listing \/v2\/cdn\/stories .*its count cannot be trusted, in each of \d passes; nothing was concluded from it/,
        );
        expect(error.message).toMatch(message);
        // Said once: the listing's problem, then what the sync concludes (not the same words twice).
        expect(error.message.match(/concluded/g)).toHaveLength(1);
      } finally {
        await proxy.close();
      }
      expect(await readTree(dir)).toEqual(before);
    });
  }

  it('Total 1,000,000: pages are asked for lazily, and the first short page ends it with an error', async () => {
    const dir = await snapshotCopy();
    const proxy = await startHostile(service.url, async (req, res, forward) => {
      const answer = await forward();
      if (storiesListing(req.url) && !queryOf(req).has('by_uuids')) answer.headers.total = '1000000';
      reply(res, answer);
    });
    try {
      await expect(
        sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, maxPasses: 1, ...unpaced() }),
      ).rejects.toThrow(/says Total 1000000 at 25 per page/);
      // The listing has 5 pages; a window of pages ahead of them is all that was asked for, not 40,000.
      const pages = proxy.requests.filter((r) => storiesListing(r) && !r.includes('by_uuids')).length;
      expect(pages).toBeGreaterThanOrEqual(5);
      expect(pages).toBeLessThan(5 + 13);
    } finally {
      await proxy.close();
    }
  });

  it('the census: a count its own answer contradicts never makes a story vanish', async () => {
    const dir = await snapshotCopy();
    const before = await readTree(dir);
    // Move the cache version, so an incremental sync runs the census.
    const { stories } = (await (
      await fetch(`${service.url}/v2/cdn/stories?token=${TOKEN}&per_page=1&cv=${service.service.store.space.version}`)
    ).json()) as {
      stories: Array<{ id: number }>;
    };
    await admin(service.url, 'POST', `/stories/${stories[0]!.id}/publish`);
    // The census counts come back as 0 though their one-item pages hold a story, and the
    // stories asked for by id are left out of the body (their Total still says they are there).
    const proxy = await startHostile(service.url, async (req, res, forward) => {
      const answer = await forward();
      const q = queryOf(req);
      if (storiesListing(req.url) && q.has('by_slugs')) answer.headers.total = '0';
      else if (storiesListing(req.url) && q.has('by_ids')) {
        const body = JSON.parse(answer.body.toString()) as { stories: unknown[] };
        body.stories = [];
        answer.body = Buffer.from(JSON.stringify(body));
      }
      reply(res, answer);
    });
    try {
      await expect(sync({ baseUrl: proxy.url, token: TOKEN, out: dir, ...unpaced() })).rejects.toThrow(
        /the listing \/v2\/cdn\/stories says Total 0 at 1 per page, so page 1 holds 0, but it holds 1: its count cannot be trusted/,
      );
    } finally {
      await proxy.close();
    }
    expect(await readTree(dir)).toEqual(before);
  });
});

describe('a listing that names a story or an entry twice', { timeout: 60_000 }, () => {
  /** Whether a request is a page of the full stories listing (not a batch of stories by id or uuid). */
  const fullListing = (req: { url?: string }) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    return storiesListing(req.url) && !q.has('by_uuids') && !q.has('by_ids');
  };

  /** A proxy whose listing pages after the first repeat the first page's stories, in the first `passes` passes (all: Infinity). */
  const repeatingFirstPage = (passes: number) => {
    let firstPage: unknown[] = [];
    let pass = 0;
    return startHostile(service.url, async (req, res, forward) => {
      const answer = await forward();
      if (fullListing(req)) {
        const body = JSON.parse(answer.body.toString()) as { stories: unknown[] };
        const page = queryOf(req).get('page') ?? '1';
        if (page === '1') {
          pass++;
          firstPage = body.stories;
        } else if (pass <= passes) {
          body.stories = firstPage.slice(0, body.stories.length);
          answer.body = Buffer.from(JSON.stringify(body));
        }
      }
      reply(res, answer);
    });
  };

  it('stories: sync --full concludes nothing from it, fails naming the listing, and leaves the snapshot as it was', async () => {
    const dir = await snapshotCopy();
    const before = await readTree(dir);
    const proxy = await repeatingFirstPage(Infinity);
    try {
      await expect(sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, ...unpaced() })).rejects.toThrow(
        /the listing of published stories named 25 distinct where its Total counts \d+, in each of 5 passes .*the previous snapshot .* is untouched/,
      );
    } finally {
      await proxy.close();
    }
    expect(await readTree(dir)).toEqual(before);
  });

  it('stories, once: the pass is made again and nothing is lost', async () => {
    const dir = await snapshotCopy();
    const proxy = await repeatingFirstPage(1);
    try {
      const result = await sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, ...unpaced() });
      expect(result.passes).toBe(2);
      expect(result.changed.removed).toEqual([]);
    } finally {
      await proxy.close();
    }
    // The snapshot a full sync without the proxy makes (the space may have moved since the good one).
    const reference = await snapshotCopy();
    await sync({ baseUrl: service.url, token: TOKEN, out: reference, full: true, ...unpaced() });
    expect(await readTree(dir)).toEqual(await readTree(reference));
  });

  it('datasource entries: the sync fails naming the datasource, and the snapshot stays as it was', async () => {
    const dir = await snapshotCopy();
    const before = await readTree(dir);
    let repeated = '';
    const proxy = await startHostile(service.url, async (req, res, forward) => {
      const answer = await forward();
      const q = queryOf(req);
      if (new URL(req.url ?? '/', 'http://x').pathname.endsWith('/cdn/datasource_entries') && !q.has('dimension')) {
        const body = JSON.parse(answer.body.toString()) as { datasource_entries: unknown[] };
        if (body.datasource_entries.length > 1) {
          repeated ||= q.get('datasource') ?? '';
          body.datasource_entries[body.datasource_entries.length - 1] = body.datasource_entries[0];
          answer.body = Buffer.from(JSON.stringify(body));
        }
      }
      reply(res, answer);
    });
    try {
      await expect(sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, ...unpaced() })).rejects.toThrow(
        /the listing of the entries of datasource [\w-]+ named \d+ distinct where its Total counts \d+, in each of 5 passes/,
      );
    } finally {
      await proxy.close();
    }
    expect(repeated).not.toBe('');
    expect(await readTree(dir)).toEqual(before);
  });
});

describe('a listing whose count changes while it is read, where no cache version tells (the draft view)', () => {
  it('is read again in a second pass, which adds up', { timeout: 60_000 }, async () => {
    const preview = await startServer({
      space: generateDemoSpace({ stories: 120 }),
      publicToken: TOKEN,
      previewToken: 'hostile-preview',
      rateLimit: false,
      admin: true,
    });
    let created = false;
    // An editor creates a story while page 2 of the draft listing is on its way.
    const proxy = await startHostile(preview.url, async (req, res, forward) => {
      const q = queryOf(req);
      if (!created && storiesListing(req.url) && q.get('page') === '2' && !q.has('by_uuids')) {
        created = true;
        await admin(preview.url, 'POST', '/stories', { name: 'Made meanwhile', slug: 'made-meanwhile' });
      }
      reply(res, await forward());
    });
    try {
      const dir = await tempDir('hostile-total-draft');
      const r = await sync({ baseUrl: proxy.url, token: 'hostile-preview', out: dir, views: ['draft'], ...unpaced() });
      expect(created).toBe(true);
      expect(r.passes).toBe(2);
      const fresh = await sync({
        baseUrl: preview.url,
        token: 'hostile-preview',
        out: await tempDir('hostile-total-draft-fresh'),
        views: ['draft'],
        ...unpaced(),
      });
      expect(r.counts.stories).toBe(fresh.counts.stories);
    } finally {
      await proxy.close();
      await preview.close();
    }
  });
});
