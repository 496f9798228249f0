/**
 * A snapshot whose indexes cannot be read (deleted as if derived, left out of a commit, damaged): the
 * sync reads the whole space, says why, and leaves the snapshot a fresh sync would make. Without the
 * index nothing named the records of stories deleted since, and they stayed: serve served them.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_FILES, readSpaceDirectory } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { admin, readTree, removeTempDirs, tempDir, treeDiff, unpaced } from './support.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ admin: true });
});

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('a snapshot without its indexes', () => {
  it('is read whole, saying why, and keeps no record of a story deleted since', async () => {
    const out = await tempDir('unindexed');
    await sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced() });
    const before = await readSpaceDirectory(out);
    const gone = before.stories.find((r) => r.published && !r.published.story.is_folder)!.id;
    await admin(server.url, 'DELETE', `/stories/${gone}`);
    for (const rel of Object.values(INDEX_FILES)) await fs.rm(path.join(out, rel), { force: true });

    const result = await sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced() });
    expect(result.mode).toBe('full');
    expect(result.fullBecause).toBe("the snapshot's indexes could not be read");
    expect(result.changed.removed).toEqual([gone]);
    expect((await readSpaceDirectory(out)).stories.map((r) => r.id)).not.toContain(gone);
    const fresh = await tempDir('unindexed-fresh');
    await sync({ baseUrl: server.url, token: PUBLIC, out: fresh, ...unpaced() });
    expect(treeDiff(await readTree(out), await readTree(fresh))).toEqual([]);
  });
});
