/**
 * `content-sync compile` killed with SIGKILL while it writes: the compile removes its state when it
 * starts writing and writes it last, so the next compile, finding none, compiles in full and removes
 * the files of the directory no story has any more. Whatever the instant, that next compile ends
 * where a fresh one does, and the modules of a story deleted before the killed run are gone.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/compile.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { INDEX_FILES, type StoryIndexEntry } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { collect, spawnCli } from '../helpers/cli.js';
import { admin, readJsonFile, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { DEMO_RESOLVE, bytesDiff, demoCompileArgs, readOutput } from './support.js';

const TOKEN = 'kill-public';
const STATE = '.content-sync-compile.json';
const OPTIONS: Omit<CompileOptions, 'snapshot' | 'out'> = DEMO_RESOLVE;
/** After the compile removed its state (it is writing), how long the child runs before it is killed. */
const DELAYS_MS = [0, 40, 150];

let server: RunningServer;
let snapshot: string;

beforeAll(async () => {
  server = await startServer({
    space: generateDemoSpace({ stories: 400 }),
    publicToken: TOKEN,
    rateLimit: false,
    admin: true,
  });
  snapshot = await tempDir('compile-kill-snapshot');
  await sync({ baseUrl: server.url, token: TOKEN, out: snapshot, ...unpaced() });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

/** Starts `content-sync compile --full` into `out` and kills it `delay` ms after its state file is gone (if it is still running). */
async function killedCompile(out: string, delay: number): Promise<{ killed: boolean }> {
  const child = spawnCli(demoCompileArgs(snapshot, out, ['--full', '--threads', '1']));
  const done = collect(child);
  let ended = false;
  void done.then(() => (ended = true));
  while (!ended && existsSync(path.join(out, STATE))) await sleep(1);
  if (!ended && delay > 0) await sleep(delay);
  if (!ended) child.kill('SIGKILL');
  const result = await done;
  // Killed, or it ended first (the kill came too late): then it succeeded.
  const killed = result.signal === 'SIGKILL';
  if (!killed) expect(result.code, result.stderr).toBe(0);
  return { killed };
}

describe('a compile killed while it writes', () => {
  it('is followed by a full compile that ends where a fresh one does, stories deleted before it removed', {
    timeout: 120_000,
  }, async () => {
    const out = await tempDir('compile-kill-out');
    await compile({ snapshot, out, ...OPTIONS });
    for (const delay of DELAYS_MS) {
      const index = await readJsonFile<StoryIndexEntry[]>(path.join(snapshot, INDEX_FILES.stories));
      const gone = index.filter((e) => e.published)[10]!.id;
      await admin(server.url, 'DELETE', `/stories/${gone}`);
      await sync({ baseUrl: server.url, token: TOKEN, out: snapshot, ...unpaced() });

      const { killed } = await killedCompile(out, delay);
      // Killed before it wrote its state (nearly always: the state is the last file), the next compile starts over.
      const stateLeft = existsSync(path.join(out, STATE));
      const next = await compile({ snapshot, out, ...OPTIONS });
      if (!stateLeft) expect(next.mode, `killed: ${killed}`).toBe('full');
      for (const rel of [`raw/${gone}.js`, `stories/${gone}.js`])
        expect(existsSync(path.join(out, rel)), rel).toBe(false);
      const fresh = await tempDir('compile-kill-fresh');
      await compile({ snapshot, out: fresh, ...OPTIONS });
      expect(bytesDiff(await readOutput(out), await readOutput(fresh), [STATE])).toEqual([]);
    }
  });
});
