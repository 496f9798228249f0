/**
 * The embedded service's space directory edited while a dev server runs: a real Vite dev server,
 * its embedded service over a demo space on disk, the story files written as an editor or a
 * script would. The page's modules show what the directory holds, a file that cannot be read
 * changes nothing, and the snapshot ends where a fresh sync of the directory does.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ViteDevServer } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { readSpaceDirectory } from '../../src/snapshot/index.js';
import { parseOptions } from '../../src/vite/options.js';
import { ContentPipeline } from '../../src/vite/pipeline.js';
import { isSpaceFile, watchSpaceDirectory } from '../../src/vite/space-watch.js';
import { readTree, treeDiff } from '../sync/support.js';
import {
  capturingLogger,
  clearContentEnv,
  devServer,
  embeddedService,
  project,
  publishNewPage,
  removeDir,
  waitFor,
  type CapturingLogger,
} from './support.js';

interface Record {
  id: number;
  uuid: string;
  published?: { story: { name: string; slug: string; full_slug: string; content: { title?: string } } };
  draft?: unknown;
}

type Entries = { entries: Array<{ id: number; name: string }> };

describe('which files of a space directory count', () => {
  it('takes the files a space directory is read from, not marks, swap files or indexes', () => {
    for (const rel of ['space.json', 'folders.json', 'stories/12.json', 'datasources/3.json', 'workflow_stages.json'])
      expect(isSpaceFile(rel), rel).toBe(true);
    for (const rel of [
      'stories/.12.json.swp',
      'stories/12.json~',
      'indexes/stories.json',
      '.txn.lock',
      'stories/a.json',
    ])
      expect(isSpaceFile(rel), rel).toBe(false);
  });
});

describe('watching a space directory', () => {
  /** A space directory with a stories folder, in a root of its own, watched: how often it called, what it warned. */
  async function watched() {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-watch-'));
    const dir = path.join(root, 'space');
    await fs.mkdir(path.join(dir, 'stories'), { recursive: true });
    const seen = { calls: 0, warnings: [] as string[] };
    const stop = watchSpaceDirectory(
      dir,
      () => seen.calls++,
      (m) => seen.warnings.push(m),
    );
    const done = async () => {
      stop();
      await removeDir(root);
    };
    return { root, dir, seen, done };
  }
  /** Longer than the watch waits for the directory to be quiet. */
  const quiet = () => new Promise((r) => setTimeout(r, 600));

  it('calls once per burst of changes to its files, through folders made or replaced later, not for other files', async () => {
    const { dir, seen, done } = await watched();
    try {
      // Files it is not read from: nothing.
      await fs.writeFile(path.join(dir, '.reader.1234'), '');
      await fs.writeFile(path.join(dir, 'stories', '.12.json.swp'), '');
      await fs.mkdir(path.join(dir, 'indexes'));
      await fs.writeFile(path.join(dir, 'indexes', 'stories.json'), '[]');
      await quiet();
      expect(seen.calls).toBe(0);
      // A burst of saves: one call.
      for (let i = 0; i < 5; i++) await fs.writeFile(path.join(dir, 'stories', `${i}.json`), '{}');
      await fs.writeFile(path.join(dir, 'space.json'), '{}');
      await waitFor('a call', () => seen.calls === 1);
      await quiet();
      expect(seen.calls).toBe(1);
      // A folder of records that did not exist when the watch began.
      await fs.mkdir(path.join(dir, 'datasources'));
      await waitFor('a call for the new folder', () => seen.calls === 2);
      await quiet();
      await fs.writeFile(path.join(dir, 'datasources', '7.json'), '{}');
      await waitFor('a call for a datasource in it', () => seen.calls === 3);
      // The stories folder replaced by another (a tool writing the directory anew): its files still count.
      await fs.mkdir(path.join(dir, 'stories.new'));
      await fs.rm(path.join(dir, 'stories'), { recursive: true });
      await fs.rename(path.join(dir, 'stories.new'), path.join(dir, 'stories'));
      await waitFor('a call for the replaced folder', () => seen.calls === 4);
      await quiet();
      await fs.writeFile(path.join(dir, 'stories', '9.json'), '{}');
      await waitFor('a call for a story in the new folder', () => seen.calls === 5);
      expect(seen.warnings).toEqual([]);
    } finally {
      await done();
    }
  }, 30_000);

  it('follows the directory when a new one is renamed into its place, or it is removed and made again', async () => {
    const { root, dir, seen, done } = await watched();
    try {
      // A space written anew, as `content-sync demo --out` writes it: built aside, renamed into place.
      await fs.mkdir(path.join(root, 'space.new', 'stories'), { recursive: true });
      await fs.rename(dir, path.join(root, 'space.old'));
      await fs.rename(path.join(root, 'space.new'), dir);
      await waitFor('a call for the new directory', () => seen.calls === 1);
      await quiet();
      for (const rel of ['folders.json', 'stories/3.json']) {
        const before = seen.calls;
        await fs.writeFile(path.join(dir, rel), '[]');
        await waitFor(`a call for ${rel} in the new directory`, () => seen.calls === before + 1);
        await quiet();
      }
      // Removed, then made again.
      await fs.rm(dir, { recursive: true });
      await fs.mkdir(path.join(dir, 'stories'), { recursive: true });
      await quiet();
      const before = seen.calls;
      await fs.writeFile(path.join(dir, 'stories', '4.json'), '{}');
      await waitFor('a call for a story in the directory made again', () => seen.calls > before);
      expect(seen.warnings).toEqual([]);
    } finally {
      await done();
    }
  }, 30_000);

  it('says why when the directory cannot be watched, and goes on', () => {
    const warnings: string[] = [];
    const stop = watchSpaceDirectory(
      path.join(os.tmpdir(), 'content-sync-no-such-dir'),
      () => {},
      (m) => warnings.push(m),
    );
    stop();
    expect(warnings).toEqual([
      expect.stringMatching(/^content-sync: stopped watching .*content-sync-no-such-dir for changes: ENOENT/),
    ]);
  });
});

describe('the embedded space directory edited during a dev server', () => {
  let server: ViteDevServer | undefined;
  let root: string | undefined;

  afterEach(async () => {
    await server?.close();
    await removeDir(root);
    server = root = undefined;
  });

  async function start(admin = false): Promise<{ logger: CapturingLogger; space: string }> {
    clearContentEnv();
    root = await project('export {};\n');
    const logger = capturingLogger();
    ({ server } = await devServer(root, logger, { embedded: { data: 'space', demo: { stories: 12 }, admin } }));
    await server.ssrLoadModule('content:index');
    return { logger, space: path.join(root, 'space') };
  }

  const storyFile = (space: string, id: number) => path.join(space, 'stories', `${id}.json`);
  const readRecord = async (space: string, id: number) =>
    JSON.parse(await fs.readFile(storyFile(space, id), 'utf8')) as Record;
  /** Writes a file as editors do: a temporary file renamed into place. */
  const save = async (file: string, text: string) => {
    await fs.writeFile(`${file}.tmp`, text);
    await fs.rename(`${file}.tmp`, file);
  };
  const entries = async () => ((await server!.ssrLoadModule('content:index')) as Entries).entries;
  const titleOf = async (id: number) =>
    ((await server!.ssrLoadModule(`content:stories/${id}`)) as { default: { content: { title?: string } } }).default
      .content.title;
  const publishedIds = async (space: string) =>
    (await readSpaceDirectory(space)).stories.filter((r) => r.published).map((r) => r.id);

  it('shows a story edited, added or removed in the directory, and keeps what it had when a file cannot be read', async () => {
    const { logger, space } = await start();
    const [id, other] = await publishedIds(space);
    const record = await readRecord(space, id!);
    record.published!.story.content.title = 'Edited on disk';
    await save(storyFile(space, id!), JSON.stringify(record, null, 2));
    await waitFor('the edited title', async () => (await titleOf(id!)) === 'Edited on disk');
    expect(logger.text('info')).toContain(
      'content-sync: the space directory changed: fetching one story or datasource',
    );
    expect(logger.text('info')).not.toContain('reading the whole space');

    // Half a file (a save under way, a typo): the update fails, saying which file; nothing else changes.
    await fs.writeFile(storyFile(space, other!), '{"id": ');
    await waitFor('the failed update', () => logger.text('error').includes(`${other}.json`));
    expect(logger.text('error')).toContain('content-sync: update failed');
    expect(await titleOf(id!)).toBe('Edited on disk');
    expect((await entries()).some((e) => e.id === other)).toBe(true);

    // Removed (the half-written file with it), and a new story added.
    await fs.rm(storyFile(space, other!));
    const added = structuredClone(record);
    added.id = 990001;
    added.uuid = '9e0f6f3c-0000-4000-8000-000000990001';
    for (const v of [added.published, added.draft] as Array<Record['published']>) {
      if (!v) continue;
      Object.assign(v.story, { id: added.id, uuid: added.uuid, name: 'Added on disk', slug: 'added-on-disk' });
      v.story.full_slug = v.story.full_slug.replace(/[^/]+$/, 'added-on-disk');
    }
    await save(storyFile(space, added.id), JSON.stringify(added));
    await waitFor('the removed story gone and the new one listed', async () => {
      const listed = await entries();
      return !listed.some((e) => e.id === other) && listed.some((e) => e.id === added.id && e.name === 'Added on disk');
    });

    // What the dev server synced is what a full sync of the directory as it is now makes (its service on
    // the same port: asset URLs carry it), once the dev server has closed.
    await server!.close();
    server = undefined;
    const reference = `${root}-reference`;
    await fs.mkdir(path.join(reference, '.content'), { recursive: true });
    await fs.copyFile(path.join(root!, '.content', 'service-port'), path.join(reference, '.content', 'service-port'));
    const pipeline = new ContentPipeline(parseOptions({ embedded: { data: space } }), reference, capturingLogger());
    try {
      await pipeline.start();
      expect((await pipeline.refresh()).sync?.mode).toBe('full');
    } finally {
      await pipeline.close();
    }
    const snapshot = (dir: string) => readTree(path.join(dir, '.content', 'snapshot'));
    expect(treeDiff(await snapshot(root!), await snapshot(reference))).toEqual([]);
    await removeDir(reference);
  }, 90_000);

  it('serves the directory again over edits made through the control plane, which it does not hold', async () => {
    const { logger, space } = await start(true);
    const service = embeddedService(server!);
    expect(logger.text('info')).toContain(`at ${service.url} (its control plane: ${service.url}/__admin/)`);
    const pageId = await publishNewPage(server!, 'Only through the control plane');
    await waitFor('the published page', async () => (await entries()).some((e) => e.id === pageId));
    const [id] = await publishedIds(space);
    const record = await readRecord(space, id!);
    record.published!.story.content.title = 'Edited on disk after the control plane';
    await save(storyFile(space, id!), JSON.stringify(record));
    await waitFor('the edited title', async () => (await titleOf(id!)) === 'Edited on disk after the control plane');
    expect((await entries()).some((e) => e.id === pageId)).toBe(false);
    expect(logger.text('info')).toMatch(/the space directory changed: reading the whole space: /);
    // Another service on the same port, which still announces its changes to the dev server.
    const now = embeddedService(server!);
    expect(now).not.toBe(service);
    expect(now.url).toBe(service.url);
    const later = await publishNewPage(server!, 'After the reload');
    await waitFor('a page published after the reload', async () => (await entries()).some((e) => e.id === later));
  }, 90_000);
});
