/**
 * A snapshot a newer version wrote (its manifest's format above the one this version writes), as
 * after a downgrade: sync, compile and the service's reader refuse it, naming the format and what
 * to do, and leave it as it was. Sync used to replace it whole in the old format without a word
 * (keeping the records of stories it no longer listed, which the service then served), and compile
 * called it no snapshot.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { FILES, FORMAT_VERSION, readSpaceDirectory } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { readTree, removeTempDirs, tempDir, unpaced } from '../sync/support.js';

const NEWER = new RegExp(`holds a snapshot of format ${FORMAT_VERSION + 1}, written by a newer content-sync`);

let server: TestServer;
let snapshot: string;

beforeAll(async () => {
  server = await startTestServer();
  snapshot = path.join(await tempDir('newer-format'), 'snapshot');
  await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
  const file = path.join(snapshot, FILES.manifest);
  const manifest = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  await fs.writeFile(file, JSON.stringify({ ...manifest, format: FORMAT_VERSION + 1 }));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

describe('a snapshot of a newer format', () => {
  it('is refused by sync, even --full, and left as it was', async () => {
    const before = await readTree(snapshot);
    for (const full of [false, true]) {
      const run = sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, full, ...unpaced() });
      await expect(run).rejects.toThrow(new RegExp(`${NEWER.source}.*another --out \\(or dir\\)`));
    }
    expect(await readTree(snapshot)).toEqual(before);
  });

  it('is refused by compile as newer, not called no snapshot', async () => {
    const out = path.join(await tempDir('newer-format-out'), '.content');
    await expect(compile({ snapshot, out })).rejects.toThrow(NEWER);
  });

  it('is refused by the service’s reader', async () => {
    await expect(readSpaceDirectory(snapshot)).rejects.toThrow(NEWER);
  });
});
