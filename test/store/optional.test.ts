/**
 * The AWS SDK and the Redis client are loaded only when their feature is configured. The CLI
 * runs with both made impossible to import: a sync without a store succeeds (so it never imported
 * them), and one with a store fails with the line that installs the SDK (so the refusal works).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { runCli } from '../helpers/cli.js';
import { removeTempDirs, tempDir } from '../sync/support.js';
import { BUCKET, serveDemo, syncArgs, WITHOUT_OPTIONAL } from './support.js';

describe('optional dependencies', () => {
  let service: RunningServer;
  beforeAll(async () => {
    service = await serveDemo(20);
  });
  afterAll(async () => {
    await service.close();
    await removeTempDirs();
  });

  const args = async () => syncArgs(service, await tempDir('optional'));

  it('a sync without a store loads neither the AWS SDK nor the Redis client', async () => {
    const r = await runCli(await args(), { ...WITHOUT_OPTIONAL, CONTENT_STORE: '' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/full: \d+ stories written/);
  }, 60_000);

  it('a store without the AWS SDK installed: an error that names the feature and the install line', async () => {
    const r = await runCli([...(await args()), '--store', `s3://${BUCKET}/x`], WITHOUT_OPTIONAL);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the store s3://snapshots/x needs the package @aws-sdk/client-s3, which is not installed: npm i -D @aws-sdk/client-s3',
    );
  }, 60_000);
});
