/**
 * Content published while a sync reads: the sync notices (a newer cache
 * version), redoes the pass and converges; when content keeps moving past
 * `maxPasses`, it gives up with a clear error and leaves the previous
 * snapshot as it was.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { StoryRecord } from '../../src/snapshot/index.js';
import { SyncError, sync, type SyncProgress } from '../../src/sync/index.js';
import { PUBLIC } from '../helpers/server.js';
import { admin, mtimes, readJsonFile, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from './support.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(removeTempDirs);

async function serveDemo(): Promise<RunningServer> {
  server = await startServer({
    space: generateDemoSpace({ stories: 300 }),
    rateLimit: false,
    admin: true,
    publicToken: PUBLIC,
    latencyMs: 20,
  });
  return server;
}

/** A published story that is not a start page, from the service's own data. */
function someStory(s: RunningServer, nth: number): number {
  const published = s.service.store.toData().stories.filter((r) => r.published && !r.published.story.is_startpage);
  return published[nth % published.length]!.id;
}

describe('a sync while content is published', () => {
  it('redoes the pass and converges on the new content', async () => {
    const s = await serveDemo();
    const target = someStory(s, 7);
    const dir = await tempDir('converge');
    let change: Promise<unknown> | undefined;
    const onProgress = (p: SyncProgress) => {
      if (!change && p.phase === 'stories' && p.requests >= 3) {
        change = admin(s.url, 'PUT', `/stories/${target}`, { name: 'Published mid-sync' }).then(() =>
          admin(s.url, 'POST', `/stories/${target}/publish`),
        );
      }
    };
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: dir, onProgress });
    await change;
    expect(change).toBeDefined();
    expect(result.mode).toBe('full');
    expect(result.passes).toBeGreaterThan(1);
    expect(result.redirects).toBeGreaterThan(0);
    expect(result.cv).toBe(s.service.store.space.version);
    const record = StoryRecord.parse(await readJsonFile(`${dir}/stories/${target}.json`));
    expect(record.published!.story.name).toBe('Published mid-sync');
    expect((await readJsonFile(`${dir}/manifest.json`)).cv).toBe(s.service.store.space.version);

    const fresh = await tempDir('converge-fresh');
    await sync({ baseUrl: s.url, token: PUBLIC, out: fresh, ...unpaced() });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  });

  it('redoes the pass when stories are deleted between two counts of the census', async () => {
    const s = await serveDemo();
    const dir = await tempDir('converge-census');
    await sync({ baseUrl: s.url, token: PUBLIC, out: dir, ...unpaced() });
    // One story gone since: the census finds a batch short and bisects it.
    await admin(s.url, 'DELETE', `/stories/${someStory(s, 3)}`);
    // In front of the service: once the census has counted a batch, two stories of its first half
    // are deleted before the answer goes back, so the half's count contradicts the batch's.
    let deleted: number[] | undefined;
    const proxy = http.createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url!, s.url);
        const answer = await fetch(url, { redirect: 'manual' });
        const ids = url.searchParams.get('by_slugs') ? url.searchParams.get('by_ids')?.split(',') : undefined;
        if (ids && !deleted) {
          deleted = ids.slice(0, 2).map(Number);
          for (const id of deleted) await admin(s.url, 'DELETE', `/stories/${id}`);
        }
        const headers = Object.fromEntries(answer.headers);
        if (headers.location) headers.location = headers.location.replace(s.url, `http://127.0.0.1:${port}`);
        delete headers['content-encoding'];
        delete headers['content-length'];
        res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const { port } = proxy.address() as AddressInfo;
    try {
      const result = await sync({ baseUrl: `http://127.0.0.1:${port}`, token: PUBLIC, out: dir, ...unpaced() });
      expect(deleted).toHaveLength(2);
      expect(result.passes).toBeGreaterThan(1);
      expect(result.cv).toBe(s.service.store.space.version);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
    const fresh = await tempDir('converge-census-fresh');
    await sync({ baseUrl: s.url, token: PUBLIC, out: fresh, ...unpaced() });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  });

  it('v1 (no redirects, no body cv) still ends on a consistent snapshot', async () => {
    const s = await serveDemo();
    const target = someStory(s, 11);
    const dir = await tempDir('converge-v1');
    let change: Promise<unknown> | undefined;
    const onProgress = (p: SyncProgress) => {
      if (!change && p.phase === 'stories' && p.requests >= 3) {
        change = admin(s.url, 'PUT', `/stories/${target}`, { name: 'Published mid-sync (v1)' }).then(() =>
          admin(s.url, 'POST', `/stories/${target}/publish`),
        );
      }
    };
    const result = await sync({ baseUrl: s.url, token: PUBLIC, out: dir, api: 'v1', onProgress });
    await change;
    expect(result.passes).toBeGreaterThan(1);
    const fresh = await tempDir('converge-v1-fresh');
    await sync({ baseUrl: s.url, token: PUBLIC, out: fresh, api: 'v1', ...unpaced() });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  });

  it('gives up after maxPasses with a SyncError and leaves the previous snapshot untouched', async () => {
    const s = await serveDemo();
    const dir = await tempDir('exhaust');
    await sync({ baseUrl: s.url, token: PUBLIC, out: dir, ...unpaced() });
    const before = await readTree(dir);
    const times = await mtimes(dir);

    // Every pass sees a publication once its first story listing is answered. One request at a
    // time, so the pass has many requests left to make when the publication lands.
    let armed = false;
    let n = 0;
    const changes: Promise<unknown>[] = [];
    const onProgress = (p: SyncProgress) => {
      if (p.phase === 'space') armed = true;
    };
    const onAttempt = ({ endpoint }: { endpoint: string }) => {
      if (!armed || !endpoint.endsWith('/stories')) return;
      armed = false;
      const id = someStory(s, n * 13);
      changes.push(
        admin(s.url, 'PUT', `/stories/${id}`, { name: `Moving target ${++n}` }).then(() =>
          admin(s.url, 'POST', `/stories/${id}/publish`),
        ),
      );
    };
    const failed = sync({
      baseUrl: s.url,
      token: PUBLIC,
      out: dir,
      full: true,
      maxPasses: 2,
      onProgress,
      client: { concurrency: 1, onAttempt },
    });
    await expect(failed).rejects.toBeInstanceOf(SyncError);
    await expect(failed).rejects.toThrow(
      /kept changing during 2 passes; the previous snapshot in .* is untouched; try again/,
    );
    await Promise.all(changes);
    expect(n).toBe(2);
    expect(treeDiff(before, await readTree(dir))).toEqual([]);
    expect(await mtimes(dir)).toEqual(times);

    // Once content holds still, the next sync catches up.
    const after = await sync({ baseUrl: s.url, token: PUBLIC, out: dir, ...unpaced() });
    expect(after.passes).toBe(1);
    const fresh = await tempDir('exhaust-fresh');
    await sync({ baseUrl: s.url, token: PUBLIC, out: fresh, ...unpaced() });
    expect(treeDiff(await readTree(dir), await readTree(fresh))).toEqual([]);
  });
});
