/**
 * Two instances of the plugin in one process whose modes read other .env files: a build for
 * production while the project's dev server runs (mode development), each with its own settings.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { build, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestStats, RunningServer } from '../../src/server/index.js';
import { contentSync } from '../../src/index.js';
import {
  PUBLIC_TOKEN,
  admin,
  capturingLogger,
  clearContentEnv,
  devServer,
  project,
  removeDir,
  startService,
} from './support.js';

const MAIN = "import { entries } from 'content:index';\nconsole.log(entries.length);\n";

describe('instances of other modes in one process', () => {
  let root: string;
  let development: RunningServer;
  let production: RunningServer;
  let server: ViteDevServer | undefined;
  beforeAll(async () => {
    clearContentEnv();
    [development, production] = await Promise.all([startService(), startService()]);
    root = await project(MAIN);
    const settings = (service: RunningServer) => `CONTENT_BASE_URL=${service.url}\nCONTENT_TOKEN=${PUBLIC_TOKEN}\n`;
    await fs.writeFile(path.join(root, '.env.development'), settings(development));
    await fs.writeFile(path.join(root, '.env.production'), settings(production));
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([development.close(), production.close()]);
    await removeDir(root);
  });

  it("a build syncs from its mode's service while a dev server of another mode holds the same options", async () => {
    ({ server } = await devServer(root, capturingLogger(), {}));
    await admin(production, 'POST', 'stats/reset');
    await build({
      root,
      configFile: false,
      mode: 'production',
      customLogger: capturingLogger(),
      logLevel: 'warn',
      plugins: [contentSync({})],
      build: { outDir: 'dist', emptyOutDir: true },
    });
    // Not the dev server's pipeline, made with the development settings.
    const stats = await admin<RequestStats>(production, 'GET', 'stats');
    expect(stats.total).toBeGreaterThan(0);
  }, 30_000);
});
