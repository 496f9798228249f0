/**
 * A process that syncs the same snapshot again and again (the dev server on
 * every webhook) keeps what its last commit left in memory instead of reading
 * the indexes back: the snapshot it writes must be the one a fresh process
 * would write, and a snapshot someone else wrote meanwhile must be read from
 * disk.
 */
import fsSync, { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { INDEX_FILES, canonicalJson, loadState } from '../../src/snapshot/index.js';
import { sync, type WebhookEvent } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { admin, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from './support.js';

const SPACE = 4242;

let open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});
afterAll(removeTempDirs);

const event = (action: 'published' | 'unpublished' | 'deleted', id: number): WebhookEvent => ({
  action,
  space_id: SPACE,
  story_id: id,
});

async function setup(): Promise<{ url: string; dir: string }> {
  const server = await startTestServer({ admin: true });
  open.push(server);
  const dir = await tempDir('memory');
  expect((await sync({ baseUrl: server.url, token: PUBLIC, out: dir, ...unpaced() })).mode).toBe('full');
  return { url: server.url, dir };
}

/** Runs `run` and counts how many times it read the stories index of `dir` whole (the disk path). */
async function indexReads(dir: string, run: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(fsSync, 'readFileSync');
  try {
    await run();
    return spy.mock.calls.filter(([file]) => String(file) === path.join(dir, INDEX_FILES.stories)).length;
  } finally {
    spy.mockRestore();
  }
}

/** A fresh full sync of the same service into a new directory. */
async function fresh(url: string): Promise<Map<string, string>> {
  const dir = await tempDir('memory-fresh');
  await sync({ baseUrl: url, token: PUBLIC, out: dir, ...unpaced() });
  return readTree(dir);
}

async function edit(url: string, id: number, title: string): Promise<void> {
  await admin(url, 'PUT', `/stories/${id}`, { content: { title } });
  await admin(url, 'POST', `/stories/${id}/publish`);
}

/** Runs the `content-sync sync` command (another process) narrowed to `events`. */
async function syncElsewhere(url: string, dir: string, events: WebhookEvent[]): Promise<void> {
  const file = path.join(await tempDir('memory-events'), 'events.json');
  await fs.writeFile(file, JSON.stringify(events));
  const result = await runCli(['sync', '--base-url', url, '--token', PUBLIC, '--out', dir, '--events', file]);
  expect(result.code, result.stderr).toBe(0);
}

async function copyDir(from: string): Promise<string> {
  const to = await tempDir('memory-copy');
  await fs.cp(from, to, { recursive: true });
  return to;
}

describe('event syncs in one process', () => {
  it('reuse the state of the last commit and write what a fresh sync writes', async () => {
    const { url, dir } = await setup();
    let created = 0;
    const steps: Array<{ name: string; change: () => Promise<void>; events: () => WebhookEvent[] }> = [
      { name: 'edit', change: () => edit(url, 13, 'Beta, revised'), events: () => [event('published', 13)] },
      {
        name: 'unpublish',
        change: async () => void (await admin(url, 'POST', '/stories/14/unpublish')),
        events: () => [event('unpublished', 14)],
      },
      {
        name: 'two edits at both ends',
        change: async () => {
          await edit(url, 11, 'Alpha, revised');
          await edit(url, 20, 'Last, revised');
        },
        events: () => [event('published', 11), event('published', 20)],
      },
      {
        name: 'republish in the middle',
        change: async () => void (await admin(url, 'POST', '/stories/14/publish')),
        events: () => [event('published', 14)],
      },
      {
        name: 'delete',
        change: async () => void (await admin(url, 'DELETE', '/stories/17')),
        events: () => [event('deleted', 17)],
      },
      {
        name: 'create',
        change: async () => {
          created = (
            await admin(url, 'POST', '/stories', {
              name: 'New post',
              slug: 'new-post',
              parent_id: 1,
              content: { component: 'article', title: 'Fresh' },
            })
          ).story.id;
          await admin(url, 'POST', `/stories/${created}/publish`);
        },
        events: () => [event('published', created)],
      },
      {
        name: 'edit again',
        change: () => edit(url, 13, 'Beta, revised twice'),
        events: () => [event('published', 13)],
      },
    ];
    for (const step of steps) {
      await step.change();
      // What this process committed last is what it starts from: the index is not read back.
      expect((await loadState(dir))?.index, step.name).toBeDefined();
      const reads = await indexReads(dir, async () => {
        const result = await sync({ baseUrl: url, token: PUBLIC, out: dir, events: step.events(), ...unpaced() });
        expect(result.mode, step.name).toBe('incremental');
      });
      expect(reads, step.name).toBe(0);
      expect(treeDiff(await readTree(dir), await fresh(url)), step.name).toEqual([]);
      const index = await fs.readFile(path.join(dir, INDEX_FILES.stories), 'utf8');
      expect(canonicalJson(JSON.parse(index)), step.name).toBe(index);
    }
  });

  it('read the snapshot from disk when another process synced it meanwhile', async () => {
    const { url, dir } = await setup();
    await edit(url, 13, 'Beta, revised');
    await syncElsewhere(url, dir, [event('published', 13)]);
    await edit(url, 11, 'Alpha, revised');
    const reads = await indexReads(dir, () =>
      sync({ baseUrl: url, token: PUBLIC, out: dir, events: [event('published', 11)], ...unpaced() }),
    );
    expect(reads).toBe(1);
    // Both changes: the one the other process wrote is not lost to a stale memory.
    expect(treeDiff(await readTree(dir), await fresh(url))).toEqual([]);
    // And this process remembers again from here.
    expect((await loadState(dir))?.index).toBeDefined();
  });

  it('read the snapshot from disk when its index was edited in place', async () => {
    const { url, dir } = await setup();
    // Bring the memory past the full sync first.
    await edit(url, 12, 'Gamma, revised');
    await sync({ baseUrl: url, token: PUBLIC, out: dir, events: [event('published', 12)], ...unpaced() });
    const file = path.join(dir, INDEX_FILES.stories);
    const inode = (await fs.stat(file)).ino;
    const entries = JSON.parse(await fs.readFile(file, 'utf8')) as Array<{ id: number; name: string }>;
    entries.find((e) => e.id === 16)!.name += ' (edited by hand)';
    await fs.writeFile(file, canonicalJson(entries));
    expect((await fs.stat(file)).ino).toBe(inode);
    expect((await loadState(dir))?.index).toBeUndefined();

    // What a fresh process makes of the same snapshot and the same event.
    const elsewhere = await copyDir(dir);
    await edit(url, 13, 'Beta, revised');
    await syncElsewhere(url, elsewhere, [event('published', 13)]);
    const reads = await indexReads(dir, () =>
      sync({ baseUrl: url, token: PUBLIC, out: dir, events: [event('published', 13)], ...unpaced() }),
    );
    expect(reads).toBe(1);
    expect(treeDiff(await readTree(dir), await readTree(elsewhere))).toEqual([]);
    const index = JSON.parse(await fs.readFile(file, 'utf8')) as Array<{ id: number; name: string }>;
    expect(index.find((e) => e.id === 16)!.name).toMatch(/\(edited by hand\)$/);
  });

  it('read the snapshot from disk when its manifest was replaced', async () => {
    const { url, dir } = await setup();
    const manifest = path.join(dir, 'manifest.json');
    // Another writer replaces the manifest (same bytes, a new file): memory no longer vouches for it.
    const text = await fs.readFile(manifest, 'utf8');
    await fs.writeFile(`${manifest}.new`, text);
    await fs.rename(`${manifest}.new`, manifest);
    expect((await loadState(dir))?.index).toBeUndefined();
    await edit(url, 13, 'Beta, revised');
    const reads = await indexReads(dir, () =>
      sync({ baseUrl: url, token: PUBLIC, out: dir, events: [event('published', 13)], ...unpaced() }),
    );
    expect(reads).toBe(1);
    expect(treeDiff(await readTree(dir), await fresh(url))).toEqual([]);
  });
});
