/**
 * Sync localizes assets: every referenced asset lands in the snapshot once
 * per digest, in the same transaction as the stories; later syncs download
 * only what is new and remove what is no longer used; failures name the story
 * and field and leave the previous snapshot as it was.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startServer, type RunningServer, type ServiceOptions } from '../../../src/server/index.js';
import { readAssetIndex } from '../../../src/snapshot/index.js';
import { parseWebhookEvent, sync, type SyncOptions } from '../../../src/sync/index.js';
import { reply, startHostile } from '../../client/hostile.js';
import { admin, readTree, removeTempDirs, tempDir, unpaced, walk } from '../support.js';

const PUBLIC = 'assets-public';
const servers: RunningServer[] = [];

async function serve(options: Partial<ServiceOptions> = {}): Promise<RunningServer> {
  const server = await startServer({
    space: generateDemoSpace({ stories: 40 }),
    rateLimit: false,
    publicToken: PUBLIC,
    assetUrls: 'self',
    admin: true,
    ...options,
  });
  servers.push(server);
  return server;
}

const run = (server: RunningServer, out: string, extra: Partial<SyncOptions> = {}) =>
  sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced(), assets: { minBackoffMs: 10 }, ...extra });

const assetRequests = (server: RunningServer) => server.service.stats.snapshot().by_route.assets ?? 0;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

describe('sync with assets', () => {
  it('downloads every referenced asset once, content-addressed, and an unchanged sync downloads nothing', async () => {
    const server = await serve();
    const out = await tempDir('assets-full');
    const result = await run(server, out);
    const index = (await readAssetIndex(out))!;
    const paths = Object.keys(index.files);
    expect(paths.length).toBeGreaterThan(10);
    expect(result.assets).toMatchObject({
      referenced: paths.length,
      downloaded: paths.length,
      removed: 0,
      missing: [],
    });
    expect(assetRequests(server)).toBe(paths.length);

    // Every story's references are in the index, and every file is named by the digest of its bytes.
    const referenced = new Set(Object.values(index.stories).flat());
    expect([...referenced].sort()).toEqual(paths.sort());
    for (const file of Object.values(index.files)) {
      const bytes = await fs.readFile(path.join(out, file.file));
      expect(file.file).toBe(`assets/${sha(bytes)}.${file.file.split('.').pop()}`);
      expect(file.bytes).toBe(bytes.length);
      expect(file.url.startsWith(`${server.url}/f/`)).toBe(true);
      if (file.type.startsWith('image/') && file.type !== 'image/svg+xml') {
        const meta = await sharp(bytes).metadata();
        expect([meta.width, meta.height]).toEqual([file.width, file.height]);
      }
    }
    // Nothing else in assets/.
    const onDisk = (await walk(out)).filter((f) => f.startsWith('assets/'));
    expect(onDisk.sort()).toEqual(
      [...new Set(Object.values(index.files).map((f) => f.file)), 'assets/index.json'].sort(),
    );

    const before = assetRequests(server);
    const again = await run(server, out);
    expect(again.mode).toBe('unchanged');
    expect(assetRequests(server)).toBe(before);
    // A full sync asks after each held file with its ETag: every one unchanged, nothing downloaded.
    const full = await run(server, out, { full: true });
    expect(full.assets).toMatchObject({ downloaded: 0, removed: 0, unchanged: paths.length });
    expect(assetRequests(server)).toBe(before + paths.length);
    expect(await readAssetIndex(out)).toEqual(index);
  });

  it('follows the space to another asset origin: the index takes the URLs its stories now have', async () => {
    // The same space served on another port (an embedded service that could not take its port back):
    // every story's asset URLs move to the new origin, and the files held are the same.
    const first = await serve();
    const out = await tempDir('assets-origin');
    await run(first, out);
    await first.close();
    const moved = await serve();
    const full = await run(moved, out, { full: true });
    expect(full.assets).toMatchObject({ downloaded: 0, missing: [] });
    const index = (await readAssetIndex(out))!;
    for (const file of Object.values(index.files)) expect(file.url.startsWith(`${moved.url}/f/`), file.url).toBe(true);
    // An index that still names the old origin (written before it followed): a full sync, whose
    // stories did not change, asks after each held file at the origin the stories have.
    await fs.writeFile(
      path.join(out, 'assets', 'index.json'),
      (await fs.readFile(path.join(out, 'assets', 'index.json'), 'utf8')).replaceAll(moved.url, first.url),
    );
    const again = await run(moved, out, { full: true });
    expect(again.assets).toMatchObject({ downloaded: 0, missing: [], unchanged: Object.keys(index.files).length });
  });

  it('takes assets from a CDN that compresses its answers, whose Content-Length is of the compressed body', async () => {
    const server = await serve();
    let origin = '';
    // A CDN in front of the service: the API's asset URLs name it, and it gzips every file it serves.
    const cdn = await startHostile(server.url, async (req, res, forward) => {
      const answer = await forward();
      if ((req.url ?? '').startsWith('/f/')) {
        answer.body = gzipSync(answer.body);
        answer.headers['content-encoding'] = 'gzip';
      } else answer.body = Buffer.from(answer.body.toString().replaceAll(server.url, origin));
      reply(res, answer);
    });
    origin = cdn.url;
    try {
      const out = await tempDir('assets-gzip');
      const result = await sync({ baseUrl: cdn.url, token: PUBLIC, out, ...unpaced(), assets: { minBackoffMs: 10 } });
      const index = (await readAssetIndex(out))!;
      expect(result.assets).toMatchObject({ downloaded: Object.keys(index.files).length, missing: [] });
      // The files are the originals, decoded: the ones a sync from the service itself holds.
      const direct = await tempDir('assets-gzip-direct');
      await run(server, direct);
      const files = async (dir: string) =>
        (await walk(dir)).filter((f) => f.startsWith('assets/') && !f.endsWith('index.json')).sort();
      expect(await files(out)).toEqual(await files(direct));
      expect((await files(out)).length).toBeGreaterThan(10);
    } finally {
      await cdn.close();
    }
  });

  it('a CDN answering a redirect, a web page, a body that trickles or an error that never ends: the sync fails saying which, the snapshot as it was', async () => {
    const server = await serve();
    let origin = '';
    let mode: 'redirect' | 'html' | 'trickle' | 'said' | 'endless' = 'redirect';
    const cdn = await startHostile(server.url, async (req, res, forward) => {
      if (!(req.url ?? '').startsWith('/f/')) {
        const answer = await forward();
        answer.body = Buffer.from(answer.body.toString().replaceAll(server.url, origin));
        return reply(res, answer);
      }
      if (mode === 'redirect')
        return reply(res, {
          status: 302,
          headers: { location: 'http://169.254.169.254/latest' },
          body: Buffer.alloc(0),
        });
      if (mode === 'html')
        return reply(res, {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: Buffer.from('<p>Sign in</p>'),
        });
      // What an image service without its library answers: the message says what to install.
      if (mode === 'said')
        return reply(res, {
          status: 501,
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ error: 'the image service needs sharp:\n npm i -D sharp' })),
        });
      // An error whose text never ends, with escape sequences in it: its start is told, on one line.
      if (mode === 'endless') {
        res.writeHead(503, { 'content-type': 'text/plain' });
        const endless = setInterval(() => res.write('\x1b[31mbusy\n'.repeat(20)), 2);
        res.on('close', () => clearInterval(endless));
        return;
      }
      // A byte at a time, never the whole file.
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '100000' });
      const trickle = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(trickle));
    });
    origin = cdn.url;
    try {
      const out = await tempDir('assets-cdn');
      await run(server, out);
      const tree = await readTree(out);
      for (const [which, message] of [
        ['redirect', /answered 302 to http:\/\/169\.254\.169\.254\/latest: asset downloads do not follow redirects/],
        ['html', /answered a web page \(text\/html\), not the file/],
        ['trickle', /no complete answer within 1 s/],
        ['said', /answered 501 \(the image service needs sharp: npm i -D sharp\)/],
        ['endless', /answered 503 \(\[31mbusy \[31mbusy .*…\)/],
      ] as const) {
        mode = which;
        const error = await sync({
          baseUrl: cdn.url,
          token: PUBLIC,
          out,
          full: true,
          ...unpaced(),
          assets: { minBackoffMs: 10, retries: 0, timeoutMs: 1000 },
        }).catch((e: Error) => e);
        expect((error as Error).message, which).toMatch(message);
        expect(await readTree(out), which).toEqual(tree);
      }
    } finally {
      await cdn.close();
    }
  });

  it('an asset index naming a file other than assets/<its digest>.<a known extension> (edited by hand, or shared) is not taken; a full sync writes it anew', async () => {
    const server = await serve();
    const out = await tempDir('assets-tampered');
    await run(server, out);
    const file = path.join(out, 'assets', 'index.json');
    const good = JSON.parse(await fs.readFile(file, 'utf8'));
    for (const tamper of [
      (e: { file: string; sha256: string }) => {
        e.file = '../../../secret.jpg';
      },
      (e: { file: string; sha256: string }) => {
        e.sha256 = '../../escaped';
      },
      // Its own digest, but an extension no download is given: a module a build would run.
      (e: { file: string; sha256: string }) => {
        e.file = `assets/${e.sha256}.mjs`;
      },
    ]) {
      const bad = structuredClone(good);
      tamper(Object.values(bad.files)[0] as { file: string; sha256: string });
      await fs.writeFile(file, JSON.stringify(bad));
      expect(await readAssetIndex(out)).toBeUndefined();
    }
    await run(server, out, { full: true });
    expect(await readAssetIndex(out)).toEqual(good);
  });

  it('stores a file once when two asset URLs have the same bytes', async () => {
    const server = await serve();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const a = await admin(server.url, 'POST', '/assets', { name: 'one.png', data: png.toString('base64') });
    const b = await admin(server.url, 'POST', '/assets', { name: 'two.png', data: png.toString('base64') });
    const story = await admin(server.url, 'POST', '/stories', {
      name: 'Twins',
      slug: 'twins',
      content: { component: 'page', gallery: [a.asset, b.asset] },
    });
    await admin(server.url, 'POST', `/stories/${story.story.id}/publish`);
    const out = await tempDir('assets-twins');
    await run(server, out);
    const index = (await readAssetIndex(out))!;
    const files = Object.values(index.files).filter((f) => f.url.endsWith('one.png') || f.url.endsWith('two.png'));
    expect(files).toHaveLength(2);
    expect(files[0]!.file).toBe(files[1]!.file);
  });

  it('a story a sync without assets wrote (watch --out into the plugin’s snapshot) gets its new asset from the next sync with assets', async () => {
    const server = await serve();
    const out = await tempDir('assets-between');
    await run(server, out);
    const id = Number(Object.keys((await readAssetIndex(out))!.stories)[0]);
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#0033aa' } })
      .png()
      .toBuffer();
    const added = await admin(server.url, 'POST', '/assets', { name: 'between.png', data: png.toString('base64') });
    const { record } = await admin(server.url, 'GET', `/stories/${id}`);
    const story = record.published.story;
    await admin(server.url, 'PUT', `/stories/${id}`, {
      name: story.name,
      slug: story.slug,
      content: { ...story.content, extra: { ...added.asset, fieldtype: 'asset' } },
    });
    await admin(server.url, 'POST', `/stories/${id}/publish`);

    const event = { action: 'published' as const, space_id: server.service.store.space.id, story_id: id };
    const between = await sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced(), events: [event] });
    expect(between.changed.stories).toEqual([id]);
    // The build's sync, with assets: the story is unchanged since, its new asset still to download.
    const result = await run(server, out);
    expect(result.assets).toMatchObject({ downloaded: 1 });
    const index = (await readAssetIndex(out))!;
    const fresh = new URL(added.asset.filename).pathname;
    expect(index.stories[String(id)]).toContain(fresh);
    expect(await fs.readFile(path.join(out, index.files[fresh]!.file))).toEqual(png);
  });

  it('an incremental sync downloads only the new asset and removes the one no story uses any more', async () => {
    const server = await serve();
    const out = await tempDir('assets-incremental');
    await run(server, out);
    const before = (await readAssetIndex(out))!;

    // A new asset on a new story; a story deleted whose asset nothing else uses.
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#aa3300' } })
      .png()
      .toBuffer();
    const added = await admin(server.url, 'POST', '/assets', { name: 'fresh.png', data: png.toString('base64') });
    const story = await admin(server.url, 'POST', '/stories', {
      name: 'Fresh',
      slug: 'fresh',
      content: { component: 'page', image: { ...added.asset, fieldtype: 'asset' } },
    });
    await admin(server.url, 'POST', `/stories/${story.story.id}/publish`);
    const counts = new Map<string, number>();
    for (const paths of Object.values(before.stories)) for (const p of paths) counts.set(p, (counts.get(p) ?? 0) + 1);
    const [lonelyStory, lonelyPath] = Object.entries(before.stories)
      .map(([id, paths]) => [id, paths.find((p) => counts.get(p) === 1)] as const)
      .find(([, p]) => p !== undefined)!;
    await admin(server.url, 'DELETE', `/stories/${lonelyStory}`);

    const requests = assetRequests(server);
    const result = await run(server, out);
    expect(result.mode).toBe('incremental');
    const lonely = before.stories[lonelyStory]!.filter((p) => counts.get(p) === 1);
    expect(result.assets).toMatchObject({ downloaded: 1, removed: lonely.length });
    expect(assetRequests(server) - requests).toBe(1);
    const after = (await readAssetIndex(out))!;
    const freshPath = new URL(added.asset.filename).pathname;
    expect(after.files[freshPath]).toBeDefined();
    expect(after.files[lonelyPath!]).toBeUndefined();
    expect(await fs.readFile(path.join(out, after.files[freshPath]!.file))).toEqual(png);
    await expect(fs.access(path.join(out, before.files[lonelyPath!]!.file))).rejects.toThrow();
  });

  for (const trigger of ['full', 'webhook'] as const) {
    it(`an asset replaced through the control plane is downloaded again by the next ${trigger === 'full' ? 'full sync' : 'sync given its asset webhook'}, its old file removed`, async () => {
      const server = await serve();
      const out = await tempDir('assets-replaced');
      const png = (background: string) =>
        sharp({ create: { width: 40, height: 30, channels: 3, background } })
          .png()
          .toBuffer();
      const first = await png('#114477');
      const added = await admin(server.url, 'POST', '/assets', { name: 'swap.png', data: first.toString('base64') });
      const story = await admin(server.url, 'POST', '/stories', {
        name: 'Swap',
        slug: 'swap',
        content: { component: 'page', image: { ...added.asset, fieldtype: 'asset' } },
      });
      await admin(server.url, 'POST', `/stories/${story.story.id}/publish`);
      await run(server, out);
      const assetPath = new URL(added.asset.filename).pathname;
      const before = (await readAssetIndex(out))!;
      expect(before.files[assetPath]!.sha256).toBe(sha(first));

      const second = await png('#ee9900');
      await admin(server.url, 'PUT', `/assets/${added.asset.id}`, { data: second.toString('base64') });
      const requests = assetRequests(server);
      // The webhook the real service sends on a replaced asset (no story changes, the cache version stays).
      const event = parseWebhookEvent({ text: 'replaced', action: 'replaced', space_id: 1, asset_id: added.asset.id });
      const result = await run(server, out, trigger === 'full' ? { full: true } : { events: [event!] });
      // Every held file is asked after with its ETag; only the replaced one comes back with bytes.
      expect(result.assets).toMatchObject({ downloaded: 1, unchanged: Object.keys(before.files).length - 1 });
      // The cache version did not move: there is no change of content to look for, and none is.
      if (trigger === 'webhook') expect(result.requests).toBe(1);
      expect(assetRequests(server) - requests).toBe(Object.keys(before.files).length);
      const after = (await readAssetIndex(out))!;
      expect(after.files[assetPath]!.sha256).toBe(sha(second));
      expect(await fs.readFile(path.join(out, after.files[assetPath]!.file))).toEqual(second);
      await expect(fs.access(path.join(out, before.files[assetPath]!.file))).rejects.toThrow();
      // The other files are as they were.
      for (const [p, file] of Object.entries(before.files)) if (p !== assetPath) expect(after.files[p]).toEqual(file);
    });
  }

  it('a snapshot synced without assets gets them on the first sync that asks', async () => {
    const server = await serve();
    const out = await tempDir('assets-later');
    await sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced() });
    expect(await readAssetIndex(out)).toBeUndefined();
    const result = await run(server, out);
    expect(result.assets!.downloaded).toBeGreaterThan(10);
  });

  it('a missing asset fails the sync, naming story and field, and leaves the previous snapshot untouched', async () => {
    const server = await serve();
    const out = await tempDir('assets-missing');
    await run(server, out);
    const tree = await readTree(out);
    // A new story references an asset the service no longer has.
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const added = await admin(server.url, 'POST', '/assets', { name: 'gone.png', data: png.toString('base64') });
    const story = await admin(server.url, 'POST', '/stories', {
      name: 'Gone',
      slug: 'gone',
      content: { component: 'page', body: [{ component: 'hero', image: { ...added.asset, fieldtype: 'asset' } }] },
    });
    await admin(server.url, 'POST', `/stories/${story.story.id}/publish`);
    await admin(server.url, 'DELETE', `/assets/${added.asset.id}`);

    const error = await run(server, out).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`story ${story.story.id}, field content.body.0.image.filename`);
    expect((error as Error).message).toContain('answered 404');
    expect(await readTree(out)).toEqual(tree);

    const allowed = await run(server, out, { assets: { allowMissing: true, minBackoffMs: 10 } });
    expect(allowed.assets!.missing).toEqual([
      expect.objectContaining({ storyId: story.story.id, field: 'content.body.0.image.filename' }),
    ]);
    expect(allowed.changed.stories).toContain(story.story.id);
  });

  it('does not fetch from hosts outside the space, nor files beyond the size limit', async () => {
    const stored = await serve({ assetUrls: 'stored' });
    const out = await tempDir('assets-hosts');
    const error = await run(stored, out).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/https:\/\/a\.demo-assets\.invalid is not one of the space's asset hosts/);
    expect(assetRequests(stored)).toBe(0);
    await expect(fs.access(path.join(out, 'manifest.json'))).rejects.toThrow();

    const server = await serve();
    const small = await tempDir('assets-size');
    const tooBig = await run(server, small, { assets: { maxBytes: 1000, minBackoffMs: 10 } }).catch((e: Error) => e);
    expect((tooBig as Error).message).toMatch(/more than the largest asset allowed \(1000 bytes\)/);
  });

  it('survives injected faults on asset downloads: resets, 503s, truncated bodies', async () => {
    const server = await serve({ faults: { rates: { '503': 0.15, reset: 0.1, truncate: 0.15 }, seed: 3, slowMs: 0 } });
    const out = await tempDir('assets-faults');
    const result = await run(server, out, { assets: { retries: 8, minBackoffMs: 5 } });
    expect(result.assets!.retries).toBeGreaterThan(0);
    const index = (await readAssetIndex(out))!;
    for (const file of Object.values(index.files)) {
      expect(sha(await fs.readFile(path.join(out, file.file)))).toBe(file.sha256);
    }
  });
});
