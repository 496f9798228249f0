/**
 * The project's service file: a second pipeline's service does not take the entry of a first one
 * whose process runs, and only a live service answering with a space is borrowed.
 */
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceService, runningService, type ServiceEntry, withdrawService } from '../../src/vite/service-file.js';
import { PUBLIC_TOKEN, removeDir, startService } from './support.js';

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
