/**
 * Content nested far deeper than any real story (a hostile or broken server): a sync refuses it
 * naming the story and its depth, never with a bare "Maximum call stack size exceeded", and the
 * previous snapshot stays exactly as it was.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { SyncError, sync } from '../../src/sync/index.js';
import { reply, startHostile } from '../client/hostile.js';
import { readTree, removeTempDirs, tempDir, unpaced } from './support.js';

const TOKEN = 'nesting-public';
/** Deep enough to overflow the canonical writer (not the versions' build), and the versions' build too. */
const DEPTHS = [3_000, 20_000];

let service: RunningServer;
let dir: string;

beforeAll(async () => {
  service = await startServer({ space: generateDemoSpace({ stories: 30 }), publicToken: TOKEN, rateLimit: false });
  dir = path.join(await tempDir('hostile-nesting'), 'snapshot');
  await sync({ baseUrl: service.url, token: TOKEN, out: dir, ...unpaced() });
});
afterAll(async () => {
  await service?.close();
  await removeTempDirs();
});

it.each(DEPTHS)(
  'a story nested %i levels deep: the sync fails naming it, the snapshot is untouched',
  {
    timeout: 60_000,
  },
  async (depth) => {
    const before = await readTree(dir);
    // Written as text: JSON.stringify itself cannot produce a value this deep.
    const deep = `${'{"x":'.repeat(depth)}1${'}'.repeat(depth)}`;
    let first: string | undefined;
    const proxy = await startHostile(service.url, async (req, res, forward) => {
      const answer = await forward();
      if (new URL(req.url ?? '/', 'http://x').pathname.endsWith('/cdn/stories')) {
        const text = answer.body.toString();
        first ??= /"full_slug":"([^"]+)"/.exec(text)?.[1];
        answer.body = Buffer.from(text.replace('"content":{', `"content":{"deep":${deep},`));
        if (answer.headers['content-length']) answer.headers['content-length'] = String(answer.body.length);
      }
      reply(res, answer);
    });
    try {
      const run = sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, ...unpaced() });
      await expect(run).rejects.toBeInstanceOf(SyncError);
      await expect(run).rejects.toThrow(
        new RegExp(
          `story \\d+ \\(${first}\\): its content is nested ${depth + 1} levels deep.*the snapshot is as it was`,
        ),
      );
    } finally {
      await proxy.close();
    }
    expect(await readTree(dir)).toEqual(before);
  },
);
