/**
 * A sync that fails does not lose what it was asked for: the plugin's pipeline against the real
 * local service behind a proxy that refuses every request while the test says so. A sync with
 * events fetches only what they name and then takes the space's current cache version, so the
 * change a failed run was told of must be fetched by the next run, whatever that one is told.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { parseOptions } from '../../src/vite/options.js';
import { ContentPipeline } from '../../src/vite/pipeline.js';
import { reply, startHostile, type Hostile } from '../client/hostile.js';
import { PUBLIC_TOKEN, capturingLogger, clearContentEnv, publishTitle, removeDir, startService } from './support.js';

let service: RunningServer;
let proxy: Hostile;
/** While set, the proxy answers every request 401 (which no retry waits out). */
let refusing = false;
let root: string;

beforeAll(async () => {
  clearContentEnv();
  service = await startService();
  proxy = await startHostile(service.url, async (_req, res, forward) => {
    if (refusing)
      return reply(res, {
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"error":"Unauthorized"}'),
      });
    reply(res, await forward());
  });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-failed-sync-'));
});
afterAll(async () => {
  await proxy?.close();
  await service?.close();
  await removeDir(root);
});

const published = (id: number) => ({ action: 'published' as const, space_id: 4242, story_id: id });

/** A pipeline of a project of its own, syncing through the proxy. */
async function startPipeline(logger = capturingLogger()): Promise<ContentPipeline> {
  const project = await fs.mkdtemp(path.join(root, 'project-'));
  const pipeline = new ContentPipeline(parseOptions({ baseUrl: proxy.url, token: PUBLIC_TOKEN }), project, logger);
  await pipeline.start();
  return pipeline;
}

describe('a sync that failed', () => {
  it.each([
    ['told of a change by a webhook', (p: ContentPipeline) => p.refresh([published(12)])],
    ['of everything (a poll)', (p: ContentPipeline) => p.refresh()],
  ])('%s: the next sync, told of another change only, fetches its change too', async (_name, failing) => {
    const pipeline = await startPipeline();
    try {
      await pipeline.refresh();
      const title = `Changed while the API refused ${Math.random()}`;
      await publishTitle(service, 12, title);
      refusing = true;
      await expect(failing(pipeline)).rejects.toThrow(/401/);
      refusing = false;
      await publishTitle(service, 13, `Changed after ${title}`);
      await pipeline.refresh([published(13)]);
      const story = (id: number) => fs.readFile(path.join(pipeline.snapshotDir, 'stories', `${id}.json`), 'utf8');
      expect(await story(12)).toContain(title);
      expect(await story(13)).toContain(`Changed after ${title}`);
      // Taken in: the run after it is told of nothing it has not synced.
      const again = await pipeline.refresh([published(13)]);
      expect(again.sync?.changed.stories).toEqual([]);
    } finally {
      refusing = false;
      await pipeline.close();
    }
  });

  it('told of a story id the service refuses: the next sync is of everything, and the ones after it are not stuck', async () => {
    const pipeline = await startPipeline();
    try {
      await pipeline.refresh();
      // A safe integer, as a signed webhook may carry: the service takes ids of at most 15 digits.
      await expect(pipeline.refresh([published(1234567890123456)])).rejects.toThrow(/422/);
      const title = `Changed after a refused event ${Math.random()}`;
      await publishTitle(service, 12, title);
      const next = await pipeline.refresh([published(13)]);
      expect(next.sync?.changed.stories).toEqual([12]);
      expect(await fs.readFile(path.join(pipeline.snapshotDir, 'stories', '12.json'), 'utf8')).toContain(title);
      await publishTitle(service, 13, `And then ${title}`);
      const after = await pipeline.refresh([published(13)]);
      expect(after.sync?.changed.stories).toEqual([13]);
    } finally {
      await pipeline.close();
    }
  });

  it('polls: the same cache version is said once, and again after a failure, so the error is not the last line', async () => {
    const logger = capturingLogger();
    const pipeline = await startPipeline(logger);
    const told = () => logger.lines.filter((l) => /content-sync: \w+ sync \(cv/.test(l.msg)).length;
    try {
      await pipeline.refresh();
      await pipeline.refresh();
      expect(told()).toBe(1);
      refusing = true;
      await expect(pipeline.refresh()).rejects.toThrow(/401/);
      refusing = false;
      await pipeline.refresh();
      expect(told()).toBe(2);
      await pipeline.refresh();
      expect(told()).toBe(2);
    } finally {
      refusing = false;
      await pipeline.close();
    }
  });
});
