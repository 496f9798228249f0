/**
 * The embedded service keeps its port between runs (its asset URLs are at its own origin), and
 * takes any free port when that one is taken. Real servers on loopback.
 */
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { onKeptPort } from '../../src/vite/service-port.js';
import { fixtureSpace } from '../helpers/fixture-space.js';

describe('the embedded service on the port it had', () => {
  let dir: string;
  let file: string;
  const running: Array<{ close(): Promise<void> }> = [];
  const start = async (port: number): Promise<RunningServer> => {
    const server = await startServer({ space: fixtureSpace(), port });
    running.push(server);
    return server;
  };
  const portOf = (server: RunningServer) => Number(new URL(server.url).port);

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'service-port-'));
    file = path.join(dir, 'service-port');
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('starts on any port the first time, and on that one the next', async () => {
    const first = await onKeptPort(file, start);
    expect((await fetch(`${first.url}/v2/cdn/spaces/me?token=local-public-token`)).status).toBe(200);
    expect(Number((await fs.readFile(file, 'utf8')).trim())).toBe(portOf(first));
    await first.close();
    running.splice(0);
    const second = await onKeptPort(file, start);
    expect(portOf(second)).toBe(portOf(first));
  });

  it('keeps the port in a content directory the first sync has not made yet', async () => {
    const inside = path.join(dir, 'content', 'service-port');
    const first = await onKeptPort(inside, start);
    expect(Number((await fs.readFile(inside, 'utf8')).trim())).toBe(portOf(first));
  });

  it('takes another port when the kept one is taken, and keeps that one', async () => {
    const other = http.createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    running.push({ close: () => new Promise<void>((resolve) => other.close(() => resolve())) });
    const taken = (other.address() as AddressInfo).port;
    await fs.writeFile(file, `${taken}\n`);
    const server = await onKeptPort(file, start);
    expect(portOf(server)).not.toBe(taken);
    expect(Number((await fs.readFile(file, 'utf8')).trim())).toBe(portOf(server));
  });

  it('takes any port when what is kept is not a port', async () => {
    await fs.writeFile(file, 'eighty\n');
    const server = await onKeptPort(file, start);
    expect(portOf(server)).toBeGreaterThan(0);
    expect(Number((await fs.readFile(file, 'utf8')).trim())).toBe(portOf(server));
  });

  it('passes on a failure to start that is not about the port', async () => {
    await expect(
      onKeptPort(file, async () => {
        throw new Error('the space is damaged');
      }),
    ).rejects.toThrow('the space is damaged');
  });
});
