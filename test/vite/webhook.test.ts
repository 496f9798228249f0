/**
 * The dev webhook endpoint against a real Vite dev server and the real local
 * service: signatures, limits, coalescing, and reloading exactly the modules
 * whose content changed.
 */
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import type { RunningServer } from '../../src/server/index.js';
import {
  PUBLIC_TOKEN,
  SECRET,
  capturingLogger,
  clearContentEnv,
  devServer,
  postWebhook,
  project,
  publishNewPage,
  publishTitle,
  removeDir,
  startService,
  waitFor,
  type CapturingLogger,
} from './support.js';

const MAIN =
  "import story from 'content:stories/12';\ndocument.querySelector('#app').textContent = story.content.title;\n";
const HOOK = '/__content-sync/webhook';

const published = (id: number, slug: string) =>
  JSON.stringify({ text: 'published', action: 'published', space_id: 4242, story_id: id, full_slug: slug });

const syncLines = (logger: CapturingLogger) =>
  logger.lines.filter((l) => /content-sync: \w+ sync \(cv/.test(l.msg)).length;

describe('dev webhook endpoint', () => {
  let service: RunningServer;
  let root: string;
  let logger: CapturingLogger;
  let server: ViteDevServer;
  let url: string;

  beforeAll(async () => {
    clearContentEnv();
    service = await startService();
    root = await project(MAIN);
    logger = capturingLogger();
    ({ server, url } = await devServer(root, logger, {
      baseUrl: service.url,
      token: PUBLIC_TOKEN,
      webhook: { secret: SECRET },
    }));
  });

  afterAll(async () => {
    await server?.close();
    await service?.close();
    await removeDir(root);
  });

  const event = (id: number, slug: string) =>
    JSON.stringify({ text: 'published', action: 'published', space_id: 4242, story_id: id, full_slug: slug });

  it('answers 202 to a correctly signed webhook', async () => {
    const r = await postWebhook(url + HOOK, event(14, 'blog/third-post'));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ accepted: 1 });
  });

  it('answers 401 to a wrong or missing signature, and changes nothing', async () => {
    const before = syncLines(logger);
    const wrong = await postWebhook(url + HOOK, event(12, 'blog/first-post'), { signature: 'deadbeef'.repeat(5) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('the webhook-signature does not match the body');
    const otherSecret = await postWebhook(url + HOOK, event(12, 'blog/first-post'), { secret: 'not-the-secret' });
    expect(otherSecret.status).toBe(401);
    const missing = await postWebhook(url + HOOK, event(12, 'blog/first-post'), { signature: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('no webhook-signature header: webhooks are signed');
    expect(syncLines(logger)).toBe(before);
  });

  it('answers 413 to a body larger than webhook.maxBytes', async () => {
    const big = JSON.stringify({ action: 'published', space_id: 4242, story_id: 12, text: 'x'.repeat(70 * 1024) });
    const r = await postWebhook(url + HOOK, big);
    expect(r.status).toBe(413);
  });

  it('answers 400 to a body that is not a webhook payload', async () => {
    const notJson = await postWebhook(url + HOOK, '{"action": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/not a webhook payload/);
    const badShape = await postWebhook(
      url + HOOK,
      JSON.stringify({ action: 'published', space_id: 4242, story_id: 'twelve' }),
    );
    expect(badShape.status).toBe(400);
  });

  it('survives a webhook whose sender goes away in the middle of the body', async () => {
    const rejections: unknown[] = [];
    const record = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', record);
    try {
      const { hostname, port } = new URL(url);
      const socket = net.connect(Number(port), hostname);
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      socket.write(
        `POST ${HOOK} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"action":`,
      );
      await new Promise((r) => setTimeout(r, 100));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 300));
      expect(rejections).toEqual([]);
      // The endpoint still answers.
      expect((await postWebhook(url + HOOK, event(14, 'blog/third-post'))).status).toBe(202);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('coalesces a burst of webhooks, then holds the new content and reloads exactly the changed module', async () => {
    const ssr = server.environments.ssr;
    const before = (await server.ssrLoadModule('content:stories/12')) as { default: { content: { title: string } } };
    const other = (await server.ssrLoadModule('content:stories/19')) as { default: { content: { title: string } } };
    expect(before.default.content.title).toBe('Alpha news');
    expect(other.default.content.title).toBe('Runner');
    const file12 = path.join(root, '.content', 'modules', 'stories', '12.js');
    const file19 = path.join(root, '.content', 'modules', 'stories', '19.js');
    // The story as the snapshot has it, which the story module imports.
    const raw12 = path.join(root, '.content', 'modules', 'raw', '12.js');
    const node = (file: string) => [...(ssr.moduleGraph.getModulesByFile(file) ?? [])][0];
    expect(node(file12)).toBeDefined();
    expect(node(file19)).toBeDefined();
    const stamp19 = { hmr: node(file19)!.lastHMRTimestamp, invalidated: node(file19)!.lastInvalidationTimestamp };
    expect(node(raw12)).toBeDefined();
    const stamp12 = node(raw12)!.lastHMRTimestamp;

    // Let the earlier 202 test's work settle, then count from here.
    await waitFor('the initial sync and the earlier webhook to be handled', () => syncLines(logger) >= 2);
    const syncsBefore = syncLines(logger);

    await publishTitle(service, 12, 'Alpha news, revised');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => postWebhook(url + HOOK, event(12, 'blog/first-post'))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));

    await waitFor('the generated module to hold the new title', async () =>
      (await fs.readFile(raw12, 'utf8')).includes('Alpha news, revised'),
    );
    await waitFor('the dev server to reload the module', () => (node(raw12)?.lastHMRTimestamp ?? 0) > stamp12);
    await waitFor('the update to be logged', () => logger.text('info').includes(' reloaded in '));

    const after = (await server.ssrLoadModule('content:stories/12')) as { default: { content: { title: string } } };
    expect(after.default.content.title).toBe('Alpha news, revised');

    // Ten webhooks, far fewer syncs.
    const syncs = syncLines(logger) - syncsBefore;
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThanOrEqual(3);

    // Story 19 did not change: not rewritten, not reloaded.
    expect(node(file19)!.lastHMRTimestamp).toBe(stamp19.hmr);
    expect(node(file19)!.lastInvalidationTimestamp).toBe(stamp19.invalidated);
    const otherAfter = (await server.ssrLoadModule('content:stories/19')) as { default: unknown };
    expect(otherAfter.default).toBe(other.default);
    expect(logger.text('error')).toBe('');
  });
});

describe('dev webhook endpoint, webhooks arriving while a sync is under way', () => {
  it('merges them into one run, whose update is applied and told once', async () => {
    // Every answer 100 ms late: the first run is still syncing when the others arrive.
    const service = await startService(100);
    const root = await project(MAIN);
    const logger = capturingLogger();
    const { server, url } = await devServer(root, logger, {
      baseUrl: service.url,
      token: PUBLIC_TOKEN,
      webhook: { secret: SECRET },
    });
    try {
      await waitFor('the initial sync', () => syncLines(logger) >= 1);
      const reloads = () => logger.lines.filter((l) => l.msg.includes(' reloaded in ')).length;
      await publishTitle(service, 12, 'Alpha, while a burst comes in');
      expect((await postWebhook(url + HOOK, published(12, 'blog/first-post'))).status).toBe(202);
      // Story 13 changes while the run for 12 syncs: seven webhooks of it, each its own batch, all
      // merged into the one run that follows.
      await publishTitle(service, 13, 'Beta, while a burst comes in');
      for (let i = 0; i < 7; i++) {
        expect((await postWebhook(url + HOOK, published(13, 'blog/second-post'))).status).toBe(202);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      const raw13 = path.join(root, '.content', 'modules', 'raw', '13.js');
      await waitFor('the second run to write story 13', async () =>
        (await fs.readFile(raw13, 'utf8')).includes('Beta, while a burst comes in'),
      );
      await waitFor('both runs to be told', () => reloads() >= 2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // One line per run that changed files: the first (story 12) and the merged one (story 13).
      expect(reloads()).toBe(2);
      expect(logger.text('error')).toBe('');
    } finally {
      await server.close();
      await service.close();
      await removeDir(root);
    }
  });
});

describe('dev webhook endpoint without a secret', () => {
  it('answers 404 with a message saying how to turn it on', async () => {
    clearContentEnv();
    const service = await startService();
    const root = await project('export {};\n');
    const logger = capturingLogger();
    const { server, url } = await devServer(root, logger, { baseUrl: service.url, token: PUBLIC_TOKEN });
    try {
      const r = await postWebhook(url + HOOK, JSON.stringify({ action: 'published', space_id: 4242, story_id: 12 }));
      expect(r.status).toBe(404);
      expect(r.body.error).toMatch(/webhook\.secret option or CONTENT_WEBHOOK_SECRET/);
    } finally {
      await server.close();
      await service.close();
      await removeDir(root);
    }
  });
});

describe('dev webhook endpoint of an embedded service with its control plane, without a secret', () => {
  it('takes the changes the service posts, signed with a secret of its own, and no one else’s', async () => {
    clearContentEnv();
    const root = await project('export {};\n');
    const logger = capturingLogger();
    const { server, url } = await devServer(root, logger, {
      embedded: { data: 'space', demo: { stories: 10 }, admin: true },
    });
    try {
      await server.ssrLoadModule('content:index');
      const id = await publishNewPage(server, 'Published without a secret');
      await waitFor('the dev server to serve the new story', async () => {
        const { entries } = (await server.ssrLoadModule('content:index')) as { entries: Array<{ id: number }> };
        return entries.some((e) => e.id === id);
      });
      // The endpoint is on, for the service alone: a request signed with any other secret is refused.
      const body = JSON.stringify({ action: 'published', space_id: 4242, story_id: id });
      expect((await postWebhook(url + HOOK, body)).status).toBe(401);
      expect((await postWebhook(url + HOOK, body, { signature: null })).status).toBe(401);
    } finally {
      await server.close();
      await removeDir(root);
    }
  }, 60_000);
});

describe('an embedded service with its control plane, under a dev server in middleware mode', () => {
  it('hands its changes to the dev server in this process (there is no URL to post them to)', async () => {
    clearContentEnv();
    const root = await project('export {};\n');
    const logger = capturingLogger();
    const server = await createServer({
      root,
      configFile: false,
      customLogger: logger,
      server: { middlewareMode: true, ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 10 }, admin: true } })],
    });
    try {
      expect(server.httpServer).toBeNull();
      await server.ssrLoadModule('content:index');
      const id = await publishNewPage(server, 'Published in middleware mode');
      await waitFor('the dev server to serve the new story', async () => {
        const { entries } = (await server.ssrLoadModule('content:index')) as { entries: Array<{ id: number }> };
        return entries.some((e) => e.id === id);
      });
      expect(logger.text('error')).toBe('');
    } finally {
      await server.close();
      await removeDir(root);
    }
  }, 60_000);
});
