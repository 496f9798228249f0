/**
 * The embedded service's space directory changed between runs: the first sync of the next run
 * fetches what the changed files name (space-origin.ts), and its snapshot is byte for byte the one
 * a full sync of the same directory makes. Real pipelines with their embedded service on loopback,
 * a real demo space directory changed as an editor's tool writes it.
 */
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';
import { SpaceStore } from '../../src/server/store.js';
import { type FileDigests, readSpaceDirectory } from '../../src/snapshot/read.js';
import { writeSpaceDirectory } from '../../src/snapshot/write.js';
import { parseOptions } from '../../src/vite/options.js';
import { ContentPipeline, type RefreshResult } from '../../src/vite/pipeline.js';
import { type Origin, readOrigin, startSync, writeOrigin } from '../../src/vite/space-origin.js';
import { readTree, treeDiff } from '../sync/support.js';
import { capturingLogger, clearContentEnv, publishPage } from './support.js';

/** One run of the plugin's pipeline over the space directory `space`: its start, first refresh and close. */
async function run(
  root: string,
  space: string,
  extra: (p: ContentPipeline) => Promise<void> = async () => {},
  version: 'published' | 'draft' = 'published',
  logger = capturingLogger(),
) {
  const options = parseOptions({ embedded: { data: space, admin: true }, version });
  const pipeline = new ContentPipeline(options, root, logger);
  await pipeline.start();
  try {
    const result = await pipeline.refresh();
    await extra(pipeline);
    return result;
  } finally {
    await pipeline.close();
  }
}

/** Every file of a project's snapshot by its path in it; the manifest without the time of the sync. */
const snapshotFiles = (root: string) => readTree(path.join(root, '.content', 'snapshot'));

/**
 * Asserts the snapshot of `root` is byte for byte (but the time of the sync) the one a full sync of
 * `space` makes into a new project beside it, its service on the same port (asset URLs carry it).
 */
async function expectSameAsFullSync(root: string, space: string, version: 'published' | 'draft'): Promise<void> {
  const reference = `${root}-reference`;
  await fs.mkdir(path.join(reference, '.content'), { recursive: true });
  await fs.copyFile(path.join(root, '.content', 'service-port'), path.join(reference, '.content', 'service-port'));
  expect((await run(reference, space, undefined, version)).sync?.mode).toBe('full');
  const [incremental, whole] = await Promise.all([snapshotFiles(root), snapshotFiles(reference)]);
  expect(treeDiff(incremental, whole)).toEqual([]);
}

/** Changes the space directory as the service's store writes it. */
async function change(space: string, edit: (store: SpaceStore) => void): Promise<void> {
  const store = new SpaceStore(await readSpaceDirectory(space));
  edit(store);
  await writeSpaceDirectory(space, store.toData());
}

/** The published stories of a component, in id order. */
const published = (store: SpaceStore, component: string) =>
  [...store.records()].filter((r) => r.published?.story.content.component === component).map((r) => r.id);

describe('the embedded space directory changed between runs', () => {
  let tmp: string;
  let space: string;
  let root: string;
  let first: RefreshResult;

  beforeAll(async () => {
    clearContentEnv();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'space-origin-'));
    space = path.join(tmp, 'space');
    root = path.join(tmp, 'site');
    await fs.mkdir(root);
    await writeDemoSpace(space, { stories: 60 });
    first = await run(root, space);
  }, 60_000);

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('fetches the stories and datasources whose files changed; the snapshot is the one a full sync makes', async () => {
    expect(first.sync?.mode).toBe('full');
    let edited = 0;
    let deleted = 0;
    let unpublished = 0;
    let datasource = '';
    let byHand = 0;
    await change(space, (store) => {
      const articles = published(store, 'article');
      [edited, deleted, byHand] = [articles[0]!, articles[1]!, articles[2]!];
      unpublished = published(store, 'page')[0]!;
      store.updateStory(edited, { content: { title: 'Written since the last run' } });
      store.publish(edited);
      store.deleteStory(deleted);
      store.unpublish(unpublished);
      const ds = store.datasources()[0]!;
      datasource = ds.slug;
      store.replaceDatasourceEntries(ds.slug, { entries: [{ name: 'added-since', value: 'Added since' }] });
    });
    // Renamed in its file by hand, without a new publication date: a census of the space cannot see
    // that (it asks for what was published since), the file's bytes tell it.
    const file = path.join(space, 'stories', `${byHand}.json`);
    const record = JSON.parse(await fs.readFile(file, 'utf8'));
    record.published.story.name = 'Renamed by hand';
    await fs.writeFile(file, JSON.stringify(record, null, 2));

    const next = await run(root, space);
    expect(next.sync?.mode).toBe('incremental');
    expect(next.sync?.changed.stories).toEqual([edited, byHand].sort((a, b) => a - b));
    expect(next.sync?.changed.removed).toEqual([deleted, unpublished].sort((a, b) => a - b));
    expect(next.sync?.changed.datasources).toHaveLength(1);
    const entries = JSON.parse(
      await fs.readFile(
        path.join(root, '.content', 'snapshot', 'datasources', `${next.sync!.changed.datasources[0]}.json`),
        'utf8',
      ),
    );
    expect(JSON.stringify(entries)).toContain('added-since');
    expect(JSON.stringify(entries)).toContain(datasource);
    await expectSameAsFullSync(root, space, 'published');
  }, 60_000);

  it('takes edits made through the control plane for what they are: the next run syncs the whole space', async () => {
    let created = 0;
    const during = await run(root, space, async (p) => {
      created = await publishPage(p.server!, 'Only in the service');
      const synced = await p.refresh();
      expect(synced.sync?.changed.stories).toContain(created);
    });
    expect(during.sync?.mode).toBe('unchanged');
    // The directory never had that story: the next run starts from the directory and must drop it.
    const logger = capturingLogger();
    const after = await run(root, space, undefined, 'published', logger);
    expect(after.sync?.mode).toBe('full');
    expect(after.sync?.changed.removed).toEqual([created]);
    expect(logger.lines.map((l) => l.msg)).toContain(
      'content-sync: reading the whole space: the snapshot is at another version than the one kept of the space directory (it took edits made through the control plane, say)',
    );
  }, 60_000);

  it('says why it syncs the whole space when the kept port is in use (a dev server of the project, say)', async () => {
    const kept = Number((await fs.readFile(path.join(root, '.content', 'service-port'), 'utf8')).trim());
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(kept, '127.0.0.1', resolve));
    try {
      const logger = capturingLogger();
      const moved = await run(root, space, undefined, 'published', logger);
      expect(moved.sync?.mode).toBe('full');
      const said = logger.lines.map((l) => l.msg).find((m) => m.startsWith('content-sync: reading the whole space:'));
      expect(said).toMatch(
        new RegExp(
          `the service is at http://127\\.0\\.0\\.1:(?!${kept}\\b)\\d+, the snapshot's asset URLs at http://127\\.0\\.0\\.1:${kept} `,
        ),
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 60_000);

  it('syncs the whole space, saying why, over a content directory an earlier version left (no origin, no port kept)', async () => {
    await run(root, space);
    const content = path.join(root, '.content');
    const old = Number((await fs.readFile(path.join(content, 'service-port'), 'utf8')).trim());
    await fs.rm(path.join(content, 'space-origin.json'));
    await fs.rm(path.join(content, 'service-port'));
    // The port the earlier version's service had is another's now (each of its starts took a free one).
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(old, '127.0.0.1', resolve));
    try {
      const logger = capturingLogger();
      const upgraded = await run(root, space, undefined, 'published', logger);
      expect(upgraded.sync?.mode).toBe('full');
      expect(logger.lines.map((l) => l.msg)).toContain(
        'content-sync: reading the whole space: nothing kept says which service the snapshot was synced from (its asset URLs carry it; no space-origin.json beside it, as an earlier version kept none)',
      );
      // No asset URL names the port nothing serves any more.
      const files = await snapshotFiles(root);
      const stories = [...files].filter(([rel]) => rel.startsWith('stories/'));
      expect(stories.some(([, text]) => text.includes('http://127.0.0.1:'))).toBe(true);
      expect(stories.filter(([, text]) => text.includes(`127.0.0.1:${old}/`)).map(([rel]) => rel)).toEqual([]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 60_000);
});

describe('the embedded space directory changed between runs, in the draft view', () => {
  let tmp: string;

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('fetches a draft saved since, and the snapshot is the one a full sync makes', async () => {
    clearContentEnv();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'space-origin-draft-'));
    const space = path.join(tmp, 'space');
    const root = path.join(tmp, 'site');
    await writeDemoSpace(space, { stories: 40 });
    const draft = (r: string) => run(r, space, undefined, 'draft');
    expect((await draft(root)).sync?.mode).toBe('full');
    let saved = 0;
    await change(space, (store) => {
      saved = published(store, 'page')[0]!;
      // Saved, not published: only the draft view shows it.
      store.updateStory(saved, { content: { title: 'A draft saved since the last run' } });
    });
    const next = await draft(root);
    expect(next.sync?.mode).toBe('incremental');
    expect(next.sync?.changed.stories).toEqual([saved]);
    await expectSameAsFullSync(root, space, 'draft');
  }, 60_000);
});

describe('what the first sync after a start fetches', () => {
  let tmp: string;
  let space: string;
  let kept: Origin;
  const SERVICE = 'http://127.0.0.1:4000';

  /** The directory as the service reads it now. */
  async function now(service = SERVICE) {
    const digests: FileDigests = new Map();
    const data = await readSpaceDirectory(space, digests);
    return { data, origin: { version: data.space.version, service, files: Object.fromEntries(digests) } };
  }

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'space-origin-unit-'));
    space = path.join(tmp, 'space');
    await writeDemoSpace(space, { stories: 20 });
    kept = (await now()).origin;
  }, 60_000);

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('is nothing more when no file changed, and the files changed when some did', async () => {
    const same = await now();
    expect(startSync(kept, kept.version, same.origin, same.data)).toEqual({ full: false, events: [] });
    // A file written again with the same bytes is no change; the version of the space is not compared.
    await change(space, () => {});
    const rewritten = await now();
    expect(startSync(kept, kept.version, rewritten.origin, rewritten.data)).toEqual({ full: false, events: [] });
    const ids = [...rewritten.data.stories].map((r) => r.id);
    const target = path.join(space, 'stories', `${ids[0]}.json`);
    const before = await fs.readFile(target, 'utf8');
    try {
      // Edited by hand, without a new publication date: still told by its bytes.
      await fs.writeFile(target, before.replace(/"name": "/, '"name": "Renamed '));
      const edited = await now();
      expect(startSync(kept, kept.version, edited.origin, edited.data)).toEqual({
        full: false,
        events: [{ action: 'published', space_id: edited.data.space.id, story_id: ids[0] }],
      });
    } finally {
      await fs.writeFile(target, before);
    }
  });

  it('reads back what it kept, and nothing from a file that is not an origin', async () => {
    const file = path.join(tmp, 'space-origin.json');
    writeOrigin(file, kept);
    expect(readOrigin(file)).toEqual(kept);
    for (const text of [
      '',
      '{"version": 1',
      'null',
      '[]',
      '{"version": "1", "service": "x", "files": {}}',
      '{"version": 1, "service": "x", "files": null}',
    ])
      await fs.writeFile(file, text).then(() => expect(readOrigin(file), text).toBeUndefined());
    expect(readOrigin(path.join(tmp, 'missing.json'))).toBeUndefined();
    // Kept where it cannot be written (a directory in its place): nothing thrown, nothing kept.
    const blocked = path.join(tmp, 'blocked');
    await fs.mkdir(blocked);
    expect(() => writeOrigin(blocked, kept)).not.toThrow();
    expect(readOrigin(blocked)).toBeUndefined();
    expect((await fs.readdir(tmp)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('is everything when the origin cannot tell, and says why', async () => {
    const same = await now();
    const reason = (start: ReturnType<typeof startSync>) => (start.full ? start.reason : 'not full');
    // No snapshot yet: everything, with nothing to explain.
    expect(startSync(kept, undefined, same.origin, same.data)).toEqual({ full: true, events: [] });
    // No origin kept: everything (the service the snapshot's asset URLs name is not known).
    expect(reason(startSync(undefined, kept.version + 1, same.origin, same.data))).toBe(
      'the space directory changed since the snapshot was synced',
    );
    expect(reason(startSync(undefined, same.origin.version, same.origin, same.data))).toMatch(
      /^nothing kept says which service the snapshot was synced from/,
    );
    // One of another snapshot: everything unless the snapshot is at the space's version.
    expect(startSync({ ...kept, version: kept.version - 1 }, same.origin.version, same.origin, same.data).full).toBe(
      false,
    );
    expect(reason(startSync(kept, kept.version + 1, same.origin, same.data))).toMatch(
      /^the snapshot is at another version than the one kept of the space directory/,
    );
    // The service on another origin: asset URLs differ in every story.
    const moved = await now('http://127.0.0.1:4001');
    expect(reason(startSync(kept, kept.version, moved.origin, moved.data))).toMatch(
      /^the service is at http:\/\/127\.0\.0\.1:4001, the snapshot's asset URLs at http:/,
    );
    // A file events cannot name: the space's settings, folders; a datasource gone.
    for (const rel of ['space.json', 'folders.json']) {
      const changed = { ...same.origin, files: { ...same.origin.files, [rel]: 'changed' } };
      expect(reason(startSync(kept, kept.version, changed, same.data))).toBe(`${rel} changed`);
    }
    const gone = same.data.datasources[0]!.datasource.id;
    const { [`datasources/${gone}.json`]: _, ...withoutDatasource } = same.origin.files;
    const lessData = { ...same.data, datasources: same.data.datasources.filter((d) => d.datasource.id !== gone) };
    expect(reason(startSync(kept, kept.version, { ...same.origin, files: withoutDatasource }, lessData))).toBe(
      'a datasource is gone',
    );
    // Most stories changed: one pass over everything.
    const most = Object.fromEntries(
      Object.entries(same.origin.files).map(([rel, d]) => [rel, rel.startsWith('stories/') ? `${d}x` : d]),
    );
    expect(reason(startSync(kept, kept.version, { ...same.origin, files: most }, same.data))).toBe(
      'most stories changed',
    );
  });
});
