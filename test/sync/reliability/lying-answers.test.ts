/**
 * Answers that are well formed and still not the answer to the request (a proxy or cache in front
 * of the service that mixes answers up, or a service that lies): a story by id that is another,
 * a language that leaves a story out, a uuid on two stories, a listing that repeats itself, dates
 * that are none or lie ahead. The real local service behind a proxy that rewrites its answers;
 * each sync must fail with the snapshot as it was, or commit what a fresh sync would, and the next
 * honest sync must leave the snapshot as a fresh sync does.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { sync, type SyncOptions } from '../../../src/sync/index.js';
import { reply, startHostile, type Hostile, type Upstream } from '../../client/hostile.js';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { admin, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from '../support.js';

/** Rewrites one answer of the service (path and query of the request, and the answer). */
type Lie = (
  path: string,
  q: URLSearchParams,
  answer: Upstream,
  refetch: (url: string) => Promise<Upstream>,
) => Upstream | Promise<Upstream>;

interface World {
  server: TestServer;
  proxy: Hostile;
  dir: string;
  before: Map<string, string>;
  lie: Lie | undefined;
}

let open: World[] = [];
afterEach(async () => {
  for (const w of open) await Promise.all([w.proxy.close(), w.server.close()]);
  open = [];
});
afterAll(removeTempDirs);

const STORIES = /\/cdn\/stories\/?$/;
const body = (answer: Upstream): any => JSON.parse(answer.body.toString('utf8'));
const withBody = (answer: Upstream, value: unknown, headers: Record<string, string> = {}): Upstream => ({
  ...answer,
  headers: { ...answer.headers, ...headers },
  body: Buffer.from(JSON.stringify(value)),
});

/** A 60-story demo space synced once, honestly, and a proxy in front of it that tells `world.lie`. */
async function world(options: { clock?: () => Date; api?: 'v1' | 'v2' } = {}): Promise<World> {
  const server = await startTestServer({
    space: generateDemoSpace({ stories: 60 }),
    admin: true,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const refetch = async (url: string): Promise<Upstream> => {
    const res = await fetch(server.url + url, { redirect: 'manual' });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))
        headers[k] = v;
    });
    return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
  };
  const w = { server, dir: await tempDir('lying'), lie: undefined } as unknown as World;
  w.proxy = await startHostile(server.url, async (req, res, forward) => {
    const answer = await forward();
    const url = new URL(req.url ?? '/', 'http://x');
    reply(res, w.lie && answer.status === 200 ? await w.lie(url.pathname, url.searchParams, answer, refetch) : answer);
  });
  open.push(w);
  await sync({ baseUrl: server.url, token: PUBLIC, out: w.dir, api: options.api ?? 'v2', ...unpaced() });
  w.before = await readTree(w.dir);
  return w;
}

/** A sync of the world's snapshot, through the proxy or from the service itself. */
async function syncVia(w: World, via: 'proxy' | 'service', extra: Partial<SyncOptions> = {}) {
  return sync({
    baseUrl: via === 'proxy' ? w.proxy.url : w.server.url,
    token: PUBLIC,
    out: w.dir,
    maxPasses: 2,
    ...unpaced(),
    ...extra,
  });
}

/** What differs between the world's snapshot and a fresh full sync of the service. */
async function unlikeFresh(w: World, api: 'v1' | 'v2' = 'v2'): Promise<string[]> {
  const dir = await tempDir('lying-fresh');
  await sync({ baseUrl: w.server.url, token: PUBLIC, out: dir, api, ...unpaced() });
  return treeDiff(await readTree(dir), await readTree(w.dir));
}

/** Publishes a change of one story: the cache version moves. */
async function edit(w: World, id: number, text: string): Promise<void> {
  await admin(w.server.url, 'PUT', `/stories/${id}`, { content: { marker: text } });
  await admin(w.server.url, 'POST', `/stories/${id}/publish`);
}

async function publishedStories(w: World): Promise<Array<{ id: number; full_slug: string; is_folder: boolean }>> {
  const list = (await admin(w.server.url, 'GET', '/stories')) as {
    stories: Array<{ id: number; full_slug: string; is_folder: boolean; published: boolean }>;
  };
  return list.stories.filter((s) => s.published && !s.is_folder);
}

/** The lying sync fails naming what it was told, and leaves the snapshot as it was. */
async function refusedUntouched(w: World, attempt: Promise<unknown>, said: RegExp): Promise<void> {
  await expect(attempt).rejects.toThrow(said);
  expect(treeDiff(w.before, await readTree(w.dir))).toEqual([]);
}

describe('answers that are not the answer to the request', { timeout: 60_000 }, () => {
  it('a language that leaves out a story asked for by uuid: refused, not taken as untranslated', async () => {
    const w = await world();
    let victim: string | undefined;
    w.lie = (path, q, answer) => {
      if (!STORIES.test(path) || !q.get('by_uuids') || q.get('language') !== 'de') return answer;
      const b = body(answer);
      victim ??= b.stories[0].uuid;
      b.stories = b.stories.filter((s: { uuid: string }) => s.uuid !== victim);
      return withBody(answer, b, { total: String(b.stories.length) });
    };
    await refusedUntouched(w, syncVia(w, 'proxy', { full: true }), /leaves out story \d+ .*which every language has/);
  });

  it('a story asked for by id answered with another: refused, the story asked for not taken as gone', async () => {
    const w = await world();
    const [moved, other] = (await publishedStories(w)).filter(
      (s) => s.full_slug.includes('/') && !s.full_slug.endsWith('/'),
    );
    await admin(w.server.url, 'PUT', `/stories/${moved!.id}`, { slug: 'moved-away' });
    w.lie = (path, q, answer, refetch) => {
      if (!STORIES.test(path) || q.get('by_slugs') || q.get('by_ids') !== String(moved!.id)) return answer;
      q.set('by_ids', String(other!.id));
      return refetch(`${path}?${q}`);
    };
    await refusedUntouched(w, syncVia(w, 'proxy'), new RegExp(`names story ${other!.id}, which was not asked for`));
    w.lie = undefined;
    await syncVia(w, 'service');
    expect(await unlikeFresh(w)).toEqual([]);
  });

  it('v1: a story asked for by id answered with another: refused', async () => {
    const w = await world({ api: 'v1' });
    const [moved, other] = (await publishedStories(w)).filter(
      (s) => s.full_slug.includes('/') && !s.full_slug.endsWith('/'),
    );
    await admin(w.server.url, 'PUT', `/stories/${moved!.id}`, { slug: 'moved-away' });
    w.lie = (path, _q, answer, refetch) =>
      path.endsWith(`/stories/${moved!.id}`)
        ? refetch(`${path.replace(String(moved!.id), String(other!.id))}?${_q}`)
        : answer;
    await refusedUntouched(
      w,
      syncVia(w, 'proxy', { api: 'v1' }),
      new RegExp(`story ${moved!.id} is story ${other!.id}`),
    );
  });

  it('two stories of a listing with one uuid: refused, no story given the other one’s languages', async () => {
    const w = await world();
    w.lie = (path, q, answer) => {
      if (!STORIES.test(path) || q.get('by_uuids') || q.get('language')) return answer;
      const b = body(answer);
      if (b.stories.length > 3) b.stories[2].uuid = b.stories[1].uuid;
      return withBody(answer, b);
    };
    await refusedUntouched(w, syncVia(w, 'proxy', { full: true }), /holds uuid \S+ twice/);
  });

  it('a datasource listed twice in place of another: refused, the other not taken as gone', async () => {
    const w = await world();
    await edit(w, (await publishedStories(w))[3]!.id, 'a change');
    w.lie = (path, _q, answer) => {
      if (!/\/cdn\/datasources\/?$/.test(path)) return answer;
      const b = body(answer);
      b.datasources[b.datasources.length - 1] = b.datasources[0];
      return withBody(answer, b);
    };
    await refusedUntouched(
      w,
      syncVia(w, 'proxy'),
      /the listing of datasources named \d+ distinct where its Total counts/,
    );
  });
});

describe('a census whose listing or dates cannot be trusted', { timeout: 60_000 }, () => {
  it('a listing of publications that repeats a page: refused, no publication passed for good', async () => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const w = await world({ clock: () => new Date(now) });
    const stories = await publishedStories(w);
    // Thirty publications two minutes apart, those on the listing's second page first.
    const changed = stories.slice(3, 33).reverse();
    for (const s of changed) {
      now += 120_000;
      await edit(w, s.id, `published ${now}`);
    }
    let first: any;
    w.lie = (path, q, answer) => {
      if (!STORIES.test(path) || !q.get('published_at_gt') || q.get('language')) return answer;
      const b = body(answer);
      if ((q.get('page') ?? '1') === '1') first = b;
      else if (first) b.stories = first.stories.slice(0, b.stories.length);
      return withBody(answer, b);
    };
    await refusedUntouched(w, syncVia(w, 'proxy'), /stories published since the last sync named \d+ distinct/);
    w.lie = undefined;
    await syncVia(w, 'service');
    expect(await unlikeFresh(w)).toEqual([]);
  });

  it('a count of the stories in place above the number asked for: refused in every pass, said once what follows', async () => {
    const w = await world();
    const stories = await publishedStories(w);
    await edit(w, stories[2]!.id, 'published, its webhook lost: a census follows');
    w.lie = (path, q, answer) => {
      if (!STORIES.test(path) || !q.get('by_ids') || !q.get('by_slugs')) return answer;
      return withBody(answer, body(answer), { total: String(Number(answer.headers.total) + 1000) });
    };
    const attempt = syncVia(w, 'proxy');
    await refusedUntouched(
      w,
      attempt,
      /the census of \/v2\/cdn\/stories counts \d+ of \d+ stories in place: its count cannot be trusted, in each of 2 passes; nothing was concluded/,
    );
    expect(((await attempt.catch((e: unknown) => e)) as Error).message.match(/concluded/g)).toHaveLength(1);
  });

  it('a watermark an older version kept ahead of time is not taken: the census starts from the beginning', async () => {
    const w = await world();
    const manifestFile = path.join(w.dir, 'manifest.json');
    const manifest = JSON.parse(await fs.readFile(manifestFile, 'utf8'));
    manifest.max_published_at = '2099-01-01T00:00:00.000Z';
    await fs.writeFile(manifestFile, JSON.stringify(manifest));
    const story = (await publishedStories(w))[4]!;
    await edit(w, story.id, 'published, its webhook lost');
    const r = await syncVia(w, 'service');
    expect(r.changed.stories).toEqual([story.id]);
    expect(await unlikeFresh(w)).toEqual([]);
  });

  it('a publication dated ahead of the sync, or not a date, does not hide later publications from the next census', async () => {
    for (const date of ['2099-01-01T00:00:00.000Z', 'yesterday']) {
      const w = await world();
      const stories = await publishedStories(w);
      await edit(w, stories[5]!.id, 'published while the dates lie');
      w.lie = (path, q, answer) => {
        if (!STORIES.test(path) || !q.get('published_at_gt')) return answer;
        const b = body(answer);
        for (const s of b.stories) s.published_at = date;
        return withBody(answer, b);
      };
      await syncVia(w, 'proxy');
      w.lie = undefined;
      await edit(w, stories[7]!.id, 'published after the lie');
      const next = await syncVia(w, 'service');
      expect(next.changed.stories, date).toContain(stories[7]!.id);
      // The watermark left the lying date out: the story it dated is listed again, as it is.
      expect(await unlikeFresh(w), date).toEqual([]);
    }
  });
});
