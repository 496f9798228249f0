/**
 * A story the delivery contract refuses (content without `component`, as a broken or hostile
 * server may send): the sync fails naming the story, not only its place in one page of a listing
 * the user never sees, and the snapshot stays as it was.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { SchemaError } from '../../src/client/index.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { reply, startHostile } from '../client/hostile.js';
import { readTree, removeTempDirs, tempDir, unpaced } from './support.js';

const TOKEN = 'contract-public';
let service: RunningServer;
let dir: string;

beforeAll(async () => {
  service = await startServer({ space: fixtureSpace(), publicToken: TOKEN, rateLimit: false });
  dir = path.join(await tempDir('contract-story'), 'snapshot');
  await sync({ baseUrl: service.url, token: TOKEN, out: dir, ...unpaced() });
});
afterAll(async () => {
  await service?.close();
  await removeTempDirs();
});

it('content without component: the sync fails naming the story by id and full slug', async () => {
  const before = await readTree(dir);
  const proxy = await startHostile(service.url, async (_req, res, forward) => {
    const answer = await forward();
    const body = JSON.parse(answer.body.toString()) as { stories?: Array<{ id: number; content: object }> };
    const story = body.stories?.find((s) => s.id === 12);
    if (story) {
      delete (story.content as { component?: string }).component;
      answer.body = Buffer.from(JSON.stringify(body));
    }
    reply(res, answer);
  });
  try {
    const run = sync({ baseUrl: proxy.url, token: TOKEN, out: dir, full: true, ...unpaced() });
    await expect(run).rejects.toBeInstanceOf(SchemaError);
    await expect(run).rejects.toThrow(/at stories\[\d+\]\.content\.component \(id 12, full_slug "blog\/first-post"\)/);
  } finally {
    await proxy.close();
  }
  expect(await readTree(dir)).toEqual(before);
});
