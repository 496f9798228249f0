/**
 * The plugin's `store` option: `vite build` of two projects on one space; the first publishes
 * its snapshot, the second starts from it.
 */
import path from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import type { RunningServer } from '../../src/server/index.js';
import { readTree, treeDiff } from '../sync/support.js';
import { capturingLogger, clearContentEnv, PUBLIC_TOKEN, project, removeDir, startService } from '../vite/support.js';
import { BUCKET, startS3, type TestS3, useEnv } from './support.js';

let s3: TestS3;
let service: RunningServer;
let restoreEnv: () => void;
const roots: string[] = [];

beforeAll(async () => {
  clearContentEnv();
  s3 = await startS3();
  restoreEnv = useEnv(s3.env);
  service = await startService();
});
afterAll(async () => {
  restoreEnv();
  await Promise.all([s3.close(), service.close(), ...roots.map(removeDir)]);
});

async function buildProject(): Promise<{ root: string; log: string }> {
  const root = await project("import { getStory } from 'content:index';\nconsole.log(getStory);\n");
  roots.push(root);
  const logger = capturingLogger();
  await build({
    root,
    configFile: false,
    customLogger: logger,
    logLevel: 'info',
    plugins: [contentSync({ baseUrl: service.url, token: PUBLIC_TOKEN, store: `s3://${BUCKET}/plugin` })],
    build: { outDir: 'dist', emptyOutDir: true },
  });
  return { root, log: logger.text() };
}

it('publishes the snapshot of one build, and the next build starts from it', async () => {
  const first = await buildProject();
  expect(first.log).toMatch(/published cv \d+ to s3:\/\/snapshots\/plugin/);
  const second = await buildProject();
  expect(second.log).toMatch(/took cv \d+ from s3:\/\/snapshots\/plugin/);
  expect(second.log).not.toMatch(/published cv/);
  const snapshot = (root: string) => readTree(path.join(root, '.content', 'snapshot'));
  expect(treeDiff(await snapshot(first.root), await snapshot(second.root))).toEqual([]);
}, 60_000);
