/**
 * A space directory read again with what the last read took (RecordFileCache, as the embedded
 * service reads its directory after each save): the record files changed since are read again, the
 * others taken as read, and the result is what a fresh read gives. A real demo directory, changed
 * as tools change files (in place keeping the modification time, removed, added).
 */
import { promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';
import { SpaceStore } from '../../src/server/store.js';
import { type FileDigests, RecordFileCache, readSpaceDirectory } from '../../src/snapshot/index.js';

let dir: string;
const storyFile = (id: number) => path.join(dir, 'stories', `${id}.json`);

/** Until every file of the directory is older than the cache's settling time (2 s): only such files are kept. */
async function settled(): Promise<void> {
  let newest = 0;
  for (const sub of ['stories', 'datasources'])
    for (const name of await fs.readdir(path.join(dir, sub))) {
      const st = statSync(path.join(dir, sub, name));
      newest = Math.max(newest, st.mtimeMs, st.ctimeMs);
    }
  while (Date.now() < newest + 2_100) await new Promise((r) => setTimeout(r, 100));
}

async function read(cache?: RecordFileCache) {
  const digests: FileDigests = new Map();
  const space = await readSpaceDirectory(dir, digests, cache);
  return { space, digests };
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'space-reread-'));
  await writeDemoSpace(dir, { stories: 20 });
  await settled();
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('a space directory read again with what the last read took', () => {
  it('reads the files changed since, takes the others as read, and gives what a fresh read gives', async () => {
    const cache = new RecordFileCache();
    const first = await read(cache);
    const [edited, removed, kept] = first.space.stories.map((r) => r.id);
    // Edited in place to the same size, its modification time put back (as cp -p and rsync -t do).
    const before = statSync(storyFile(edited!));
    const text = await fs.readFile(storyFile(edited!), 'utf8');
    const name = first.space.stories[0]!.published!.story.name;
    await fs.writeFile(
      storyFile(edited!),
      text.replaceAll(`"name": ${JSON.stringify(name)}`, `"name": ${JSON.stringify(name.replace(/./, '#'))}`),
    );
    await fs.utimes(storyFile(edited!), before.atime, before.mtime);
    await fs.rm(storyFile(removed!));
    const added = JSON.parse(text.replaceAll(String(edited), '990001'));
    added.uuid = '9e0f6f3c-0000-4000-8000-000000990001';
    for (const v of [added.published, added.draft]) if (v) v.story.uuid = added.uuid;
    await fs.writeFile(storyFile(990001), JSON.stringify(added));

    const again = await read(cache);
    const fresh = await read();
    expect(again.space).toEqual(fresh.space);
    expect(again.digests).toEqual(fresh.digests);
    expect(again.space.stories.find((r) => r.id === edited)!.published!.story.name).toBe(name.replace(/./, '#'));
    expect(again.space.stories.some((r) => r.id === removed)).toBe(false);
    // An unchanged file is taken as the first read took it, not read again.
    const keptRecord = (data: typeof first) => data.space.stories.find((r) => r.id === kept);
    expect(keptRecord(again)).toBe(keptRecord(first));
  });

  it('gives a new service the records as the files hold them, not as the control plane of the last one changed them', async () => {
    const cache = new RecordFileCache();
    const first = await read(cache);
    // One the first test left as it was (its files settled, so kept), published without a draft.
    const id = first.space.stories.slice(3).find((r) => r.published && !r.draft && r.id !== 990001)!.id;
    const store = new SpaceStore(first.space);
    store.updateStory(id, { content: { title: 'Changed through the control plane' } });
    store.publish(id);
    const again = new SpaceStore((await read(cache)).space);
    expect(again.record(id)).toEqual((await read()).space.stories.find((r) => r.id === id));
  });
});
