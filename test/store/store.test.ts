/**
 * Snapshots shared through an S3-compatible store: real AWS SDK v3 client, real s3rver on
 * loopback, the real local service.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { canonicalJson, FORMAT_VERSION } from '../../src/snapshot/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { digestOf, snapshotDigests } from '../../src/store/files.js';
import { type FleetOptions, ObjectStore, prune } from '../../src/store/index.js';
import { manifestFolder, OBJECTS, readManifest } from '../../src/store/manifest.js';
import { pull } from '../../src/store/transfer.js';
import { sync } from '../../src/sync/index.js';
import { collect, spawnCli } from '../helpers/cli.js';
import { admin, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from '../sync/support.js';
import { BUCKET, cuttingProxy, runBuilder, serveDemo, startS3, type TestS3, TOKEN, useEnv } from './support.js';

let s3: TestS3;
let restoreEnv: () => void;

beforeAll(async () => {
  s3 = await startS3();
  restoreEnv = useEnv(s3.env);
});
afterAll(async () => {
  restoreEnv();
  await s3.close();
  await removeTempDirs();
});

let prefixes = 0;
/** A store location of its own for each test. */
const freshStore = (): string => `s3://${BUCKET}/t${++prefixes}`;

/** A builder syncing `service` into `out` through `store`, its warnings kept. */
const builder = (service: RunningServer, out: string, store: string, extra: Partial<FleetOptions> = {}) =>
  runBuilder(service, out, { store, ...extra });

/** A direct sync of `service` into a fresh directory: what every builder must hold. */
async function direct(service: RunningServer): Promise<Map<string, string>> {
  const out = await tempDir('direct');
  await sync({ baseUrl: service.url, token: TOKEN, out, ...unpaced() });
  return readTree(out);
}

async function withStore<T>(url: string, use: (store: ObjectStore) => Promise<T>): Promise<T> {
  const store = await ObjectStore.open(url);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

describe('store', () => {
  let service: RunningServer;
  beforeAll(async () => {
    service = await serveDemo(60);
  });
  afterAll(() => service.close());

  it('a snapshot pushed by one builder and pulled by another equals a direct sync, file by file', async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    expect(a.sync?.mode).toBe('full');
    expect(a.pushed?.objects).toBeGreaterThan(60);
    const bDir = await tempDir('b');
    const b = await builder(service, bDir, store);
    expect(b.pulled?.cv).toBe(a.sync?.cv);
    expect(b.pulled?.objects).toBe((await snapshotDigests(bDir)).size);
    // Started from the pulled snapshot: the sync found it current (one request) and nothing was published again.
    expect(b.sync?.mode).toBe('unchanged');
    expect(b.pushed).toBeUndefined();
    expect(treeDiff(await readTree(bDir), await direct(service))).toEqual([]);
    expect(b.warnings).toEqual([]);
  });

  it('after an incremental change, a pull transfers only the objects that changed', async () => {
    const store = freshStore();
    const aDir = await tempDir('a');
    const bDir = await tempDir('b');
    await builder(service, aDir, store);
    await builder(service, bDir, store);
    const before = await snapshotDigests(bDir);
    const id = await firstStoryId(aDir);
    await admin(service.url, 'PUT', `/stories/${id}`, { content: { title: 'changed for the store test' } });
    await admin(service.url, 'POST', `/stories/${id}/publish`);
    const a = await builder(service, aDir, store);
    expect(a.sync?.mode).toBe('incremental');
    expect(a.sync?.changed.stories).toEqual([id]);
    const b = await builder(service, bDir, store);
    const after = await snapshotDigests(bDir);
    const changed = [...after].filter(([rel, d]) => before.get(rel) !== d).map(([rel]) => rel);
    expect(changed).toContain(`stories/${id}.json`);
    expect(b.pulled?.objects).toBe(changed.length);
    expect(b.pulled!.objects).toBeLessThan(10);
    expect(a.pushed!.objects).toBeLessThanOrEqual(changed.length);
    expect(b.sync?.mode).toBe('unchanged');
    expect(treeDiff(await readTree(bDir), await direct(service))).toEqual([]);
  });

  it("a snapshot synced from events alone is replaced by a builder's census of the same version", async () => {
    const store = freshStore();
    const aDir = await tempDir('a');
    await builder(service, aDir, store);
    const index = JSON.parse(await fs.readFile(path.join(aDir, 'indexes', 'stories.json'), 'utf8')) as Array<{
      id: number;
      published: boolean;
    }>;
    const [lost, named] = index.filter((e) => e.published).map((e) => e.id);
    // Two publications; the webhook of the first is lost, the second's reaches builder A.
    for (const id of [lost!, named!]) {
      await admin(service.url, 'PUT', `/stories/${id}`, { content: { title: `changed ${id}` } });
      await admin(service.url, 'POST', `/stories/${id}/publish`);
    }
    const a = await builder(service, aDir, store, { events: [{ action: 'published', space_id: 0, story_id: named! }] });
    expect(a.sync?.changed.stories).toEqual([named]);
    const key = a.published!;
    expect((await withStore(store, (s) => readManifest(s, key)))?.partial).toBe(true);
    // Builder B starts from it and reads what the events did not name; its snapshot replaces A's.
    const b = await builder(service, await tempDir('b'), store);
    expect(b.pulled?.manifest).toBe(key);
    expect(b.sync?.changed.stories).toEqual([lost]);
    expect(b.pushed?.manifest).toBe(key);
    expect((await withStore(store, (s) => readManifest(s, key)))?.partial).toBeUndefined();
    // A builder after it takes the whole version: nothing left to read.
    const cDir = await tempDir('c');
    const c = await builder(service, cDir, store);
    expect(c.pulled?.manifest).toBe(key);
    expect(c.sync?.mode).toBe('unchanged');
    expect(treeDiff(await readTree(cDir), await direct(service))).toEqual([]);
    // And A's partial snapshot does not take the version back.
    expect(
      (await builder(service, aDir, store, { events: [{ action: 'published', space_id: 0, story_id: named! }] }))
        .pushed,
    ).toBeUndefined();
    expect((await withStore(store, (s) => readManifest(s, key)))?.partial).toBeUndefined();
  });

  it('a damaged object is detected by its digest: the sync goes to the API and the object is published again', async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const manifest = await withStore(store, (s) => readManifest(s, a.pushed!.manifest));
    const digest = manifest!.files[Object.keys(manifest!.files).find((k) => k.startsWith('stories/'))!]!;
    await withStore(store, (s) => s.put(`${OBJECTS}${digest}`, 'not the bytes of the story'));
    const bDir = await tempDir('b');
    const b = await builder(service, bDir, store);
    expect(b.pulled).toBeUndefined();
    expect(b.warnings.join('\n')).toMatch(/do not match their digest.*syncing from the API instead/);
    expect(b.sync?.mode).toBe('full');
    expect(treeDiff(await readTree(bDir), await direct(service))).toEqual([]);
    const repaired = await withStore(store, (s) => s.get(`${OBJECTS}${digest}`));
    expect(digestOf(repaired!)).toBe(digest);
    // And the next builder pulls cleanly.
    const c = await builder(service, await tempDir('c'), store);
    expect(c.pulled?.cv).toBe(a.sync?.cv);
    expect(c.warnings).toEqual([]);
  });

  it('an object gone from the store (pruned while a pull ran) is named missing, not damaged, and published again', async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const manifest = await withStore(store, (s) => readManifest(s, a.pushed!.manifest));
    const digest = manifest!.files[Object.keys(manifest!.files).find((k) => k.startsWith('stories/'))!]!;
    await withStore(store, (s) => s.delete([`${OBJECTS}${digest}`]));
    const b = await builder(service, await tempDir('b'), store);
    expect(b.pulled).toBeUndefined();
    const said = b.warnings.join('\n');
    expect(said).toMatch(/1 object\(s\) its manifest names are missing .*pruned while this pull ran/);
    expect(said).not.toMatch(/do not match their digest/);
    expect(await withStore(store, (s) => s.has(`${OBJECTS}${digest}`))).toBe(true);
  });

  it("a manifest naming the snapshot's lock is refused whole: no pull plants a lock that stalls its writers", async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const key = a.pushed!.manifest;
    // The lock of a live-looking process of another host: every writer of the snapshot would wait for it.
    const lock = JSON.stringify({ host: 'elsewhere', pid: 1, nonce: 'planted' });
    await withStore(store, async (s) => {
      const manifest = (await readManifest(s, key))!;
      await s.put(`${OBJECTS}${digestOf(Buffer.from(lock))}`, lock);
      await s.put(
        key,
        canonicalJson({ ...manifest, files: { ...manifest.files, '.txn.lock': digestOf(Buffer.from(lock)) } }),
      );
    });
    const bDir = await tempDir('b');
    const b = await builder(service, bDir, store);
    expect(b.pulled).toBeUndefined();
    expect(b.warnings.join('\n')).toMatch(/names 1 path\(s\) no snapshot holds \(\.txn\.lock\).*syncing from the API/);
    expect(treeDiff(await readTree(bDir), await direct(service))).toEqual([]);
    await expect(fs.access(path.join(bDir, '.txn.lock'))).rejects.toThrow();
  });

  it('a snapshot a newer builder published (a newer snapshot format) is not pulled: the builder syncs from the API', async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const key = a.pushed!.manifest;
    await withStore(store, async (s) => {
      const manifest = (await readManifest(s, key))!;
      const local = JSON.parse(
        Buffer.from((await s.get(`${OBJECTS}${manifest.files['manifest.json']}`))!).toString('utf8'),
      ) as object;
      const newer = canonicalJson({ ...local, format: FORMAT_VERSION + 1 });
      await s.put(`${OBJECTS}${digestOf(Buffer.from(newer))}`, newer);
      await s.put(
        key,
        canonicalJson({ ...manifest, files: { ...manifest.files, 'manifest.json': digestOf(Buffer.from(newer)) } }),
      );
    });
    const bDir = await tempDir('b');
    const b = await builder(service, bDir, store);
    expect(b.pulled).toBeUndefined();
    expect(b.warnings.join('\n')).toMatch(
      new RegExp(
        `format ${FORMAT_VERSION + 1}, written by a newer content-sync.*nothing was committed.*syncing from the API`,
      ),
    );
    expect(treeDiff(await readTree(bDir), await direct(service))).toEqual([]);
  });

  it("a directory of someone else's is refused untouched, though the store has a snapshot to pull into it", async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const src = await tempDir('src');
    await fs.writeFile(path.join(src, 'main.ts'), 'export {};\n');
    await fs.mkdir(path.join(src, 'lib'));
    await fs.writeFile(path.join(src, 'lib', 'util.ts'), 'export const x = 1;\n');
    const held = await readTree(src);
    await expect(builder(service, src, store)).rejects.toThrow(/holds files that are not a snapshot's/);
    expect(await readTree(src)).toEqual(held);
    // A follower's pull (the snapshot another builder announced) refuses it too.
    await expect(withStore(store, (s) => pull(s, src, a.pushed!.manifest))).rejects.toThrow(/not a snapshot's/);
    expect(await readTree(src)).toEqual(held);
  });

  it('a manifest putting a file where the snapshot holds a folder is refused before the commit: the snapshot stays writable', async () => {
    const store = freshStore();
    const aDir = await tempDir('a');
    const key = (await builder(service, aDir, store)).pushed!.manifest;
    const body = 'a file named as the folder';
    await withStore(store, async (s) => {
      const manifest = (await readManifest(s, key))!;
      const files = Object.fromEntries(Object.entries(manifest.files).filter(([rel]) => !rel.startsWith('indexes/')));
      await s.put(`${OBJECTS}${digestOf(Buffer.from(body))}`, body);
      await s.put(key, canonicalJson({ ...manifest, files: { ...files, indexes: digestOf(Buffer.from(body)) } }));
      await expect(pull(s, aDir, key)).rejects.toThrow(
        /puts a file where .* holds a directory, or under a file \(indexes\)/,
      );
    });
    expect(treeDiff(await readTree(aDir), await direct(service))).toEqual([]);
    expect((await builder(service, aDir, store)).sync?.mode).toBe('unchanged');
  });

  it('a download broken off mid-body is fetched again: the pull still takes the snapshot, without the API', async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const proxy = await cuttingProxy(s3.endpoint, 1);
    const restore = useEnv({ AWS_ENDPOINT_URL_S3: proxy.endpoint });
    try {
      const b = await builder(service, await tempDir('b'), store);
      expect(proxy.cut()).toBe(1);
      expect(b.warnings).toEqual([]);
      expect(b.pulled?.cv).toBe(a.sync?.cv);
      expect(b.sync?.mode).toBe('unchanged');
    } finally {
      restore();
      await proxy.close();
    }
  });

  it('a download that stalls mid-body fails once the timeout passes (the request timeout ends with the headers)', async () => {
    const store = freshStore();
    const a = await builder(service, await tempDir('a'), store);
    const manifest = await withStore(store, (s) => readManifest(s, a.pushed!.manifest));
    const digest = Object.values(manifest!.files)[0]!;
    const proxy = await cuttingProxy(s3.endpoint, 1, 'stall');
    const restore = useEnv({ AWS_ENDPOINT_URL_S3: proxy.endpoint });
    const s = await ObjectStore.open(store, { timeoutMs: 1_000 });
    try {
      const started = Date.now();
      await expect(s.get(`${OBJECTS}${digest}`)).rejects.toThrow(/timed out/);
      expect(proxy.cut()).toBe(1);
      expect(Date.now() - started).toBeLessThan(5_000);
      // Nothing is left stalled: the next download passes.
      expect(digestOf((await s.get(`${OBJECTS}${digest}`))!)).toBe(digest);
    } finally {
      s.close();
      restore();
      await proxy.close();
    }
  });

  it('a snapshot in the store newer than the space (its cache version went back) is never taken', async () => {
    const store = freshStore();
    const serve = (port = 0) =>
      startServer({
        space: generateDemoSpace({ stories: 30, seed: 7 }),
        publicToken: TOKEN,
        rateLimit: false,
        admin: true,
        assetUrls: 'self',
        port,
      });
    // Builder A publishes a snapshot of a story published through the control plane.
    const before = await serve();
    const { story } = await admin(before.url, 'POST', '/stories', {
      name: 'Gone',
      slug: 'gone',
      content: { component: 'page' },
    });
    await admin(before.url, 'POST', `/stories/${story.id}/publish`);
    await builder(before, await tempDir('ahead'), store);
    await before.close();
    // The service starts again from its data, on the same port: the edit is gone, its version back.
    const after = await serve(before.port);
    try {
      const out = await tempDir('behind');
      for (const round of ['no snapshot yet', 'a snapshot of the space as it is']) {
        const b = await builder(after, out, store);
        expect(b.pulled, round).toBeUndefined();
        expect(b.warnings.join('\n'), round).toMatch(
          /the newest snapshot in s3:\/\/.* \(cv \d+\) is newer than the space \(cv \d+\): not taken/,
        );
        expect(treeDiff(await readTree(out), await direct(after)), round).toEqual([]);
      }
      // The API unreachable: the sync fails, and the snapshot is the one it had, not the store's.
      const held = await readTree(out);
      await expect(runBuilder({ url: 'http://127.0.0.1:9' } as RunningServer, out, { store })).rejects.toThrow();
      expect(await readTree(out)).toEqual(held);
    } finally {
      await after.close();
    }
  });

  it('an unreachable store: the sync goes to the API directly, with a clear warning', async () => {
    const restore = useEnv({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9' });
    try {
      const out = await tempDir('unreachable');
      const r = await builder(service, out, freshStore());
      expect(r.sync?.mode).toBe('full');
      expect(r.warnings.join('\n')).toMatch(/cannot be reached .*syncing directly from the API/);
      expect(r.pushed).toBeUndefined();
      expect(treeDiff(await readTree(out), await direct(service))).toEqual([]);
    } finally {
      restore();
    }
  });

  it('prune keeps the newest N manifests of each kind and their objects, and spares young objects', async () => {
    const store = freshStore();
    const aDir = await tempDir('a');
    const versions = [(await builder(service, aDir, store)).pushed!.manifest];
    const id = await firstStoryId(aDir);
    for (let i = 0; i < 2; i++) {
      await admin(service.url, 'PUT', `/stories/${id}`, { content: { title: `prune ${i}` } });
      await admin(service.url, 'POST', `/stories/${id}/publish`);
      versions.push((await builder(service, aDir, store)).pushed!.manifest);
    }
    expect(new Set(versions).size).toBe(3);
    await withStore(store, async (s) => {
      const young = await prune(s, { keep: 1, graceMs: 60 * 60_000 });
      expect(young.manifests).toEqual({ kept: 1, removed: 2 });
      expect(young.objects.removed).toBe(0);
      const old = await prune(s, { keep: 1, graceMs: 0, now: new Date(Date.now() + 1000) });
      expect(old.objects.removed).toBeGreaterThan(0);
      const kept = await readManifest(s, versions[2]!);
      const left = new Set<string>();
      for await (const o of s.list(OBJECTS)) left.add(o.key.slice(OBJECTS.length));
      expect([...left].sort()).toEqual([...new Set(Object.values(kept!.files))].sort());
      const manifests: string[] = [];
      for await (const o of s.list(manifestFolder(kept!))) manifests.push(o.key);
      expect(manifests).toEqual([versions[2]]);
    });
    const bDir = await tempDir('b');
    const b = await builder(service, bDir, store);
    expect(b.pulled?.manifest).toBe(versions[2]);
    expect(treeDiff(await readTree(bDir), await direct(service))).toEqual([]);
  });
});

/** The id of the first story of the snapshot in `dir`. */
async function firstStoryId(dir: string): Promise<number> {
  const file = [...(await readTree(dir)).keys()].find((k) => /^stories\/\d+\.json$/.test(k));
  return Number(/(\d+)/.exec(file!)![1]);
}

describe('store: a builder killed while pushing', () => {
  it('leaves a store every reader can use: no manifest without all its objects', async () => {
    const service = await serveDemo(200);
    try {
      const store = freshStore();
      const child = spawnCli(
        ['sync', '--base-url', service.url, '--token', TOKEN, '--out', await tempDir('killed'), '--store', store],
        s3.env,
      );
      const done = collect(child);
      // Killed as soon as its first objects reach the store (hundreds are still to come).
      const prefix = store.slice(`s3://${BUCKET}/`.length);
      await waitFor(() => s3.created.some((k) => k.startsWith(`${prefix}/${OBJECTS}`)), 60_000);
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      expect(s3.created.filter((k) => k.startsWith(`${prefix}/manifests/`))).toEqual([]);
      // A reader finds no snapshot to start from, syncs, and publishes one the next reader uses.
      const first = await builder(service, await tempDir('r1'), store);
      expect(first.pulled).toBeUndefined();
      expect(first.warnings).toEqual([]);
      const secondDir = await tempDir('r2');
      const second = await builder(service, secondDir, store);
      expect(second.pulled?.cv).toBe(first.sync?.cv);
      expect(treeDiff(await readTree(secondDir), await direct(service))).toEqual([]);
    } finally {
      await service.close();
    }
  }, 60_000);
});

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
