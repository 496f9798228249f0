/**
 * Two compiles into one output directory (a dev server's and a build's, say): one writes at a
 * time, the other waits, so the directory and its state are always one compile's, of one
 * snapshot. Real compiles, in this process and as `content-sync compile` processes side by side.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/compile.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { LOCK_FILE, WriterLock } from '../../src/snapshot/lock.js';
import { INDEX_FILES, type StoryIndexEntry } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { collect, spawnCli } from '../helpers/cli.js';
import { admin, readJsonFile, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { DEMO_RESOLVE, bytesDiff, demoCompileArgs, readOutput } from './support.js';

const TOKEN = 'concurrent-public';
const STATE = '.content-sync-compile.json';
const OPTIONS: Omit<CompileOptions, 'snapshot' | 'out'> = { ...DEMO_RESOLVE, declaration: false };

let server: RunningServer;
/** The space before and after 40 stories were edited and published. */
let before: string;
let after: string;

beforeAll(async () => {
  server = await startServer({
    space: generateDemoSpace({ stories: 300 }),
    publicToken: TOKEN,
    rateLimit: false,
    admin: true,
  });
  before = await tempDir('compile-concurrent-before');
  await sync({ baseUrl: server.url, token: TOKEN, out: before, ...unpaced() });
  const index = await readJsonFile<StoryIndexEntry[]>(path.join(before, INDEX_FILES.stories));
  for (const e of index.filter((r) => r.published).slice(0, 40)) {
    await admin(server.url, 'PUT', `/stories/${e.id}`, { name: `${e.name} (edited)` });
    await admin(server.url, 'POST', `/stories/${e.id}/publish`);
  }
  after = await tempDir('compile-concurrent-after');
  await sync({ baseUrl: server.url, token: TOKEN, out: after, ...unpaced() });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

/** The output a compile of `snapshot` into a fresh directory writes. */
async function freshOutput(snapshot: string) {
  const fresh = await tempDir('compile-concurrent-fresh');
  await compile({ snapshot, out: fresh, ...OPTIONS });
  return readOutput(fresh);
}

describe('two compiles into one output directory', () => {
  it('has the second wait, writing nothing, until the first is done', async () => {
    const out = await tempDir('compile-concurrent-wait');
    mkdirSync(out, { recursive: true });
    const first = await WriterLock.take(out);
    let settled = false;
    const second = compile({ snapshot: after, out, ...OPTIONS }).finally(() => {
      settled = true;
    });
    await sleep(600);
    expect(settled).toBe(false);
    // Nothing but the lock (and, for an instant, the draft of the waiting compile's next attempt at it).
    expect(readdirSync(out).filter((f) => !f.startsWith(`${LOCK_FILE}.draft~`))).toEqual([LOCK_FILE]);
    await first.release();
    expect((await second).mode).toBe('full');
    expect(existsSync(path.join(out, LOCK_FILE))).toBe(false);
    expect(bytesDiff(await readOutput(out), await freshOutput(after))).toEqual([]);
  }, 60_000);

  it('leaves one snapshot’s output, which the next compile keeps (processes side by side)', async () => {
    const expected = await freshOutput(after);
    for (let round = 0; round < 3; round++) {
      const out = await tempDir('compile-concurrent-race');
      await compile({ snapshot: before, out, ...OPTIONS });
      const args = (snapshot: string) => demoCompileArgs(snapshot, out, ['--declaration', 'none']);
      const results = await Promise.all([collect(spawnCli(args(before))), collect(spawnCli(args(after)))]);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      await compile({ snapshot: after, out, ...OPTIONS });
      // The state's type observations may be listed in another order after an incremental compile.
      expect(bytesDiff(await readOutput(out), expected, [STATE]), `round ${round}`).toEqual([]);
    }
  }, 120_000);
});
