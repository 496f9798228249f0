/**
 * A space directory whose folders.json, edited by hand, gives a folder the uuid or id of a story
 * or of another folder: refused when read, naming the file, as two stories sharing a uuid are.
 * Loaded, a folder's uuid hid the story's from the control plane (deleting the folder freed the
 * story's uuid for a new story: two stories of one uuid, which the next read refuses).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';
import { SpaceDirectoryError } from '../../src/snapshot/index.js';
import { readSpaceDirectory } from '../../src/snapshot/read.js';

let dir: string;
let foldersFile: string;
let original: string;
let story: { id: number; uuid: string };

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'space-folders-'));
  await writeDemoSpace(dir, { stories: 20 });
  foldersFile = path.join(dir, 'folders.json');
  original = await fs.readFile(foldersFile, 'utf8');
  const names = await fs.readdir(path.join(dir, 'stories'));
  story = JSON.parse(await fs.readFile(path.join(dir, 'stories', names[0]!), 'utf8'));
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** folders.json with its first folder changed by `edit`. */
async function editFirstFolder(edit: (folder: Record<string, unknown>, all: Record<string, unknown>[]) => void) {
  const folders = JSON.parse(original) as Record<string, unknown>[];
  edit(folders[0]!, folders);
  await fs.writeFile(foldersFile, JSON.stringify(folders, null, 2));
}

describe('a space directory whose folders share an identity', () => {
  it('is refused when a folder has the uuid of a story', async () => {
    await editFirstFolder((f) => {
      f.uuid = story.uuid;
    });
    const read = readSpaceDirectory(dir);
    await expect(read).rejects.toBeInstanceOf(SpaceDirectoryError);
    await expect(read).rejects.toThrow(`${foldersFile}: folder `);
    await expect(read).rejects.toThrow(story.uuid);
  });

  it('is refused when two folders share a uuid, or a folder has the id of a story', async () => {
    await editFirstFolder((f, all) => {
      f.uuid = all[1]!.uuid;
    });
    await expect(readSpaceDirectory(dir)).rejects.toThrow(`${foldersFile}: folder `);
    await editFirstFolder((f) => {
      f.id = story.id;
    });
    await expect(readSpaceDirectory(dir)).rejects.toThrow(`${foldersFile}: folder `);
  });

  it('is read as written when every identity is its own', async () => {
    await fs.writeFile(foldersFile, original);
    const space = await readSpaceDirectory(dir);
    expect(space.folders.length).toBe(JSON.parse(original).length);
  });
});

describe('a space directory whose folder of records cannot be read', () => {
  it('is refused, naming it, not read as a space without stories', async () => {
    await fs.writeFile(foldersFile, original);
    const stories = path.join(dir, 'stories');
    const aside = path.join(dir, 'stories-aside');
    await fs.rename(stories, aside);
    try {
      // A file where the folder should be: its entries cannot be listed (as an unreadable folder's cannot).
      await fs.writeFile(stories, 'not a folder');
      await expect(readSpaceDirectory(dir)).rejects.toThrow(`cannot read ${stories}: ENOTDIR`);
      // No folder at all is a space without stories, as a directory made by hand may be.
      await fs.rm(stories);
      expect((await readSpaceDirectory(dir)).stories).toEqual([]);
    } finally {
      await fs.rm(stories, { force: true });
      await fs.rename(aside, stories);
    }
  });
});

describe('a space directory with a record file not named exactly by its id', () => {
  it('is refused: 0<id>.json beside <id>.json would be a second record of one story', async () => {
    const names = (await fs.readdir(path.join(dir, 'stories'))).filter((n) => /^\d+\.json$/.test(n));
    const copy = path.join(dir, 'stories', `0${names[0]}`);
    // Another story's uuid, so that no other check tells the two apart: read before, both were kept.
    const record = JSON.parse(await fs.readFile(path.join(dir, 'stories', names[0]!), 'utf8'));
    record.uuid = '11111111-1111-4111-8111-111111111111';
    for (const v of [record.published, record.draft]) if (v) v.story.uuid = record.uuid;
    await fs.writeFile(copy, JSON.stringify(record));
    try {
      await expect(readSpaceDirectory(dir)).rejects.toThrow(`${copy}: the file name must be the entry's id`);
    } finally {
      await fs.rm(copy);
    }
  });
});
