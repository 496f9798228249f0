/**
 * The project's service file: a second pipeline's service does not take the entry of a first one
 * whose process runs, and only a live service answering with a space is borrowed.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';
import { startServer } from '../../src/server/index.js';
import { readSpaceDirectory } from '../../src/snapshot/index.js';
import { parseOptions } from '../../src/vite/options.js';
import { ContentPipeline } from '../../src/vite/pipeline.js';
import { announceService, runningService, type ServiceEntry, withdrawService } from '../../src/vite/service-file.js';
import { capturingLogger, clearContentEnv, PUBLIC_TOKEN, removeDir, startService } from './support.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-service-file-'));
});
afterAll(() => removeDir(dir));

const entry = (over: Partial<ServiceEntry>): ServiceEntry => ({
  url: 'http://127.0.0.1:9',
  publicToken: PUBLIC_TOKEN,
  previewToken: 'preview',
  data: '/space',
  pid: process.pid,
  owner: 'first',
  shape: 'published',
  ...over,
});

describe('the service file', () => {
  it("keeps the entry of a running process's service; a gone process's is replaced; withdrawn by its owner only", async () => {
    const file = path.join(dir, 'a', 'service.json');
    announceService(file, entry({ owner: 'first' }));
    announceService(file, entry({ owner: 'second', url: 'http://127.0.0.1:10' }));
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ owner: 'first' });
    withdrawService(file, 'second');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ owner: 'first' });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    await fs.writeFile(file, JSON.stringify(entry({ owner: 'gone', pid: 2_147_483_646 })));
    announceService(file, entry({ owner: 'second' }));
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ owner: 'second' });
    withdrawService(file, 'second');
    await expect(fs.access(file)).rejects.toThrow();
  });

  it('borrows a live service that answers with a space, of the same directory and shape; nothing else', async () => {
    const service = await startService();
    const other = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as import('node:net').AddressInfo).port}`;
    const file = path.join(dir, 'b', 'service.json');
    const write = (e: ServiceEntry) =>
      fs.mkdir(path.dirname(file), { recursive: true }).then(() => fs.writeFile(file, JSON.stringify(e)));
    try {
      await write(entry({ url: service.url }));
      expect(await runningService(file, '/space', 'published')).toMatchObject({ url: service.url });
      expect(await runningService(file, '/other-space', 'published')).toBeUndefined();
      expect(await runningService(file, '/space', 'draft')).toBeUndefined();
      // The port passed to a server that answers anything: not a space.
      await write(entry({ url: otherUrl }));
      expect(await runningService(file, '/space', 'published')).toBeUndefined();
      await write(entry({ url: service.url, publicToken: 'wrong' }));
      expect(await runningService(file, '/space', 'published')).toBeUndefined();
    } finally {
      await service.close();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe('a build that borrowed a service that went away', () => {
  it('starts a service of its own and syncs from it', async () => {
    clearContentEnv();
    const root = await fs.mkdtemp(path.join(dir, 'gone-'));
    const data = path.join(root, 'space');
    await writeDemoSpace(data, { stories: 10 });
    const other = await startServer({
      space: await readSpaceDirectory(data),
      publicToken: PUBLIC_TOKEN,
      previewToken: 'preview',
      rateLimit: false,
      assetUrls: 'self',
    });
    await fs.mkdir(path.join(root, '.content'), { recursive: true });
    await fs.writeFile(
      path.join(root, '.content', 'service.json'),
      JSON.stringify(entry({ url: other.url, data, shape: JSON.stringify(['published', 'v2', null]) })),
    );
    const logger = capturingLogger();
    const pipeline = new ContentPipeline(parseOptions({ embedded: { data: 'space' } }), root, logger);
    try {
      await pipeline.start({ borrow: true });
      expect(pipeline.server).toBeUndefined();
      expect(logger.text('info')).toContain(
        `syncing from the local Content Delivery Service of process ${process.pid}`,
      );
      await other.close();
      const result = await pipeline.refresh();
      expect(result.sync?.mode).toBe('full');
      expect(pipeline.server).toBeDefined();
      expect(logger.text('warn')).toMatch(/the service at http:\/\/127\.0\.0\.1:\d+ went away .*: starting one here/);
    } finally {
      await pipeline.close();
      await other.close().catch(() => undefined);
    }
  });
});

describe('a dev server beside another process serving the same content', () => {
  it('refuses to start a second service over it (it would rewrite the snapshot the other serves), naming the process', async () => {
    clearContentEnv();
    const root = await fs.mkdtemp(path.join(dir, 'second-'));
    const data = path.join(root, 'space');
    await writeDemoSpace(data, { stories: 10 });
    const other = await startServer({
      space: await readSpaceDirectory(data),
      publicToken: PUBLIC_TOKEN,
      previewToken: 'preview',
      rateLimit: false,
      assetUrls: 'self',
    });
    // The other process: alive for the test's length.
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    await fs.mkdir(path.join(root, '.content'), { recursive: true });
    await fs.writeFile(
      path.join(root, '.content', 'service.json'),
      JSON.stringify(
        entry({ url: other.url, data, pid: holder.pid!, shape: JSON.stringify(['published', 'v2', null]) }),
      ),
    );
    const pipeline = new ContentPipeline(parseOptions({ embedded: { data: 'space' } }), root, capturingLogger());
    try {
      await expect(pipeline.start()).rejects.toThrow(
        new RegExp(`process ${holder.pid} already serves space at ${other.url} into \\.content .*another "dir"`),
      );
      expect(pipeline.server).toBeUndefined();
      // Once that process is gone, the dev server starts its own.
      holder.kill();
      await new Promise((resolve) => holder.once('exit', resolve));
      await pipeline.start();
      expect(pipeline.server).toBeDefined();
    } finally {
      holder.kill();
      await pipeline.close();
      await other.close();
    }
  });
});
