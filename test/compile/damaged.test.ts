/**
 * A snapshot changed by something other than sync: a story record cut short, replaced by JSON
 * that is not a record, or gone; a datasource or the tags file likewise. The compile refuses it,
 * in one thread or several, naming the file and the remedy, instead of compiling the site without
 * that story (or those labels, or tags); `sync --full` puts the files right (the content has not
 * changed), and the compile then gives what an intact snapshot gives.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from '../../src/compile/index.js';
import { DamagedSnapshotError } from '../../src/compile/story.js';
import { INDEX_FILES, type StoryIndexEntry } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { readJsonFile, readTree, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { bytesDiff, readOutput } from './support.js';

const OPTIONS: Omit<CompileOptions, 'snapshot' | 'out'> = { resolveRelations: ['article.author'], resolveLinks: 'url' };
const STATE = '.content-sync-compile.json';

let server: TestServer;
let intact: string;
let expected: Map<string, { text: string; mtimeMs: number }>;
let victim: number;

beforeAll(async () => {
  server = await startTestServer();
  intact = await tempDir('damaged-intact');
  await sync({ baseUrl: server.url, token: PUBLIC, out: intact, ...unpaced() });
  const out = await tempDir('damaged-expected');
  await compile({ snapshot: intact, out, ...OPTIONS });
  expected = await readOutput(out);
  const index = await readJsonFile<StoryIndexEntry[]>(path.join(intact, INDEX_FILES.stories));
  victim = index.find((e) => e.published)!.id;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

/** A copy of the intact snapshot with the victim's record changed by `damage` (given its path). */
async function damagedCopy(damage: (file: string) => void): Promise<string> {
  const dir = await tempDir('damaged-snapshot');
  cpSync(intact, dir, { recursive: true });
  damage(path.join(dir, 'stories', `${victim}.json`));
  return dir;
}

const cases: Array<[string, (file: string) => void, RegExp]> = [
  ['cut short', (f) => writeFileSync(f, readFileSync(f, 'utf8').slice(0, 120)), /is not JSON \(/],
  [
    'JSON that is not a record',
    (f) => writeFileSync(f, JSON.stringify({ ...JSON.parse(readFileSync(f, 'utf8')), published: { story: 'gone' } })),
    /is not a story record \(published\.story: /,
  ],
  ['gone', (f) => rmSync(f), /is missing;/],
];

describe('a compile of a damaged snapshot', () => {
  for (const [what, damage, problem] of cases) {
    it(`refuses a record ${what}, naming it and the remedy, in one thread and in two`, async () => {
      const snapshot = await damagedCopy(damage);
      for (const threads of [1, 2]) {
        const attempt = compile({ snapshot, out: await tempDir('damaged-out'), ...OPTIONS, threads });
        await expect(attempt).rejects.toThrow(problem);
        const err = (await attempt.catch((e: unknown) => e)) as Error;
        expect(err.message).toContain(path.join(snapshot, 'stories', `${victim}.json`));
        expect(err.message).toContain('content-sync sync --full');
        if (threads === 1) expect(err).toBeInstanceOf(DamagedSnapshotError);
      }
    });
  }

  it('refuses a datasource or tags file that is not JSON or not what sync writes, naming it', async () => {
    const datasource = `datasources/${[...(await readTree(path.join(intact, 'datasources'))).keys()][0]!}`;
    const damages: Array<[string, string, RegExp]> = [
      [datasource, '{', /is not JSON \(/],
      [datasource, JSON.stringify({ datasource: { id: 'x' } }), /is not a datasource record \(datasource\.id: /],
      ['tags.json', '[', /is not JSON \(/],
      [
        'tags.json',
        JSON.stringify({ published: [{ taggings_count: 1 }] }),
        /is not a tags file \(published\.0\.name: /,
      ],
    ];
    for (const [rel, text, problem] of damages) {
      const snapshot = await damagedCopy(() => undefined);
      writeFileSync(path.join(snapshot, rel), text);
      const attempt = compile({ snapshot, out: await tempDir('damaged-out'), ...OPTIONS });
      await expect(attempt, rel).rejects.toThrow(problem);
      await expect(attempt, rel).rejects.toThrow(`${path.join(snapshot, rel)} is `);
      await expect(attempt, rel).rejects.toBeInstanceOf(DamagedSnapshotError);
    }
  });

  it('compiles after `sync --full` has put the files right, as from the intact snapshot', async () => {
    const snapshot = await damagedCopy((f) => writeFileSync(f, readFileSync(f, 'utf8').slice(0, 120)));
    const datasource = path.join(
      snapshot,
      'datasources',
      (await readTree(path.join(intact, 'datasources'))).keys().next().value!,
    );
    writeFileSync(datasource, '{');
    const repaired = await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, full: true, ...unpaced() });
    expect(repaired.changed).toEqual({ stories: [], removed: [], datasources: [], tags: false });
    // Every file as in the intact snapshot, the two damaged ones included.
    expect(await readTree(snapshot)).toEqual(await readTree(intact));
    const out = await tempDir('damaged-out');
    await compile({ snapshot, out, ...OPTIONS });
    expect(bytesDiff(await readOutput(out), expected, [STATE])).toEqual([]);
  });
});
