/**
 * An output directory an earlier version compiled, compiled by this one: its state file is one this
 * version does not read (an older state version), so the directory is looked at as a fresh one's.
 * The files an earlier compile wrote are its own and replaced or removed, never refused; a project's
 * own file of the same name still is.
 */
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { bytesDiff, readOutput } from './support.js';

const STATE = '.content-sync-compile.json';

let server: TestServer;
let snapshot: string;

beforeAll(async () => {
  server = await startTestServer();
  snapshot = path.join(await tempDir('upgrade'), 'snapshot');
  await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

/** An output as versions before the state's version 4 left it: a state with `buckets`, types.ts without the header. */
async function olderOutput(out: string): Promise<void> {
  await compile({ snapshot, out });
  const state = JSON.parse(readFileSync(path.join(out, STATE), 'utf8')) as Record<string, unknown>;
  const { chunkTotal, ...rest } = state;
  await fs.writeFile(path.join(out, STATE), JSON.stringify({ ...rest, v: 3, buckets: chunkTotal }));
  await fs.rm(path.join(out, 'types.d.ts'));
  await fs.rm(path.join(out, 'types.js'));
  // As those versions wrote it: the types' preamble first, no generated header.
  await fs.writeFile(
    path.join(out, 'types.ts'),
    '/**\n * Any component instance ("blok"). Every generated component type is assignable to it.\n */\nexport type Blok = { component: string; _uid: string; [key: string]: unknown };\n',
  );
}

describe('compile over an earlier version’s output', () => {
  it('removes the types.ts an older version wrote without the header and compiles as into a new directory', async () => {
    const out = path.join(await tempDir('upgrade-out'), '.content');
    await olderOutput(out);
    const upgraded = await compile({ snapshot, out });
    expect(upgraded.mode).toBe('full');
    expect(upgraded.fullBecause).toBe("the last compile's state is not one this version of content-sync reads");
    expect(existsSync(path.join(out, 'types.ts'))).toBe(false);
    const fresh = path.join(await tempDir('upgrade-fresh'), '.content');
    await compile({ snapshot, out: fresh });
    expect(bytesDiff(await readOutput(fresh), await readOutput(out), [STATE])).toEqual([]);
  }, 30_000);

  it('says why it compiles everything over a state an earlier generation of the output wrote, and nothing when there was none', async () => {
    const out = path.join(await tempDir('upgrade-generation'), '.content');
    expect((await compile({ snapshot, out })).fullBecause).toBeUndefined();
    // Same state version, another fingerprint: what an output version raised since gives.
    const state = JSON.parse(readFileSync(path.join(out, STATE), 'utf8')) as Record<string, unknown>;
    await fs.writeFile(
      path.join(out, STATE),
      JSON.stringify({ ...state, fingerprint: 'of an earlier output version' }),
    );
    const again = await compile({ snapshot, out });
    expect(again.mode).toBe('full');
    expect(again.fullBecause).toBe('the compile options or the version of content-sync changed since the last compile');
    expect((await compile({ snapshot, out })).fullBecause).toBeUndefined();
  }, 30_000);

  it('still refuses a types.ts of the project’s own there', async () => {
    const out = path.join(await tempDir('upgrade-own'), '.content');
    await olderOutput(out);
    await fs.writeFile(path.join(out, 'types.ts'), 'export type Mine = string;\n');
    await expect(compile({ snapshot, out })).rejects.toThrow(/did not write \(types\.ts\)/);
    expect(readFileSync(path.join(out, 'types.ts'), 'utf8')).toBe('export type Mine = string;\n');
  }, 30_000);
});
