/**
 * A Redis URL carries its password (`redis://default:PASSWORD@host:6379`, as managed Redis hands it
 * out for CONTENT_REDIS_URL); what the builder prints goes to terminals and CI logs, so it names
 * the Redis by its host alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { runCli } from '../helpers/cli.js';
import { removeTempDirs, tempDir } from '../sync/support.js';
import { serveDemo, syncArgs, WITHOUT_OPTIONAL } from './support.js';

const PASSWORD = 'redis-pass-7c1e9a';
// Port 9 (discard) on loopback: nothing listens, the connection is refused.
const URL_WITH_PASSWORD = `redis://default:${PASSWORD}@127.0.0.1:9`;
describe('the Redis password in what a builder prints', () => {
  let service: RunningServer;
  beforeAll(async () => {
    service = await serveDemo(20);
  });
  afterAll(async () => {
    await service.close();
    await removeTempDirs();
  });

  it('a Redis that cannot be reached is named without its password', async () => {
    const r = await runCli([...syncArgs(service, await tempDir('redis-pass')), '--redis', URL_WITH_PASSWORD]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Redis at redis:\/\/127\.0\.0\.1:9 cannot be reached/);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  }, 60_000);

  it('a Redis without the client installed is named without its password', async () => {
    const r = await runCli(
      [...syncArgs(service, await tempDir('redis-pass')), '--redis', URL_WITH_PASSWORD],
      WITHOUT_OPTIONAL,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the coordination through redis://127.0.0.1:9 needs the package ioredis');
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  }, 60_000);
});
