/**
 * `content-sync prepare` in a project directory: Vite's own config loading
 * (default file, --config, --mode, Astro's `vite` part), the plugin's options
 * and offline rules, and the plugin's errors as a failing exit.
 */
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** The plugin as a project's config imports it (from source here, from the package in an app). */
const ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const IMPORT = `import { contentSync } from ${JSON.stringify(ENTRY)};\n`;
const ENV = { CONTENT_BASE_URL: '', CONTENT_TOKEN: '', CONTENT_WEBHOOK_SECRET: '' };
/** Each case starts the command (and Vite) from source: slow on a busy machine. */
const SLOW = 120_000;

describe('content-sync prepare', () => {
  let root: string;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-prepare-'));
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));

  async function projectWith(name: string, files: Record<string, string>): Promise<string> {
    const dir = path.join(root, name);
    for (const [file, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await fs.writeFile(path.join(dir, file), text);
    }
    return dir;
  }

  it(
    'syncs and compiles with the options of the plugin in vite.config, then works offline from that snapshot',
    async () => {
      // The mode decides the directory: the config is loaded as `vite --mode` loads it.
      const dir = await projectWith('modes', {
        'vite.config.mjs':
          IMPORT +
          "export default ({ mode }) => ({ plugins: [contentSync({ dir: `.content-${mode}`, embedded: { data: 'space', demo: { stories: 20 } } })] });\n",
      });
      const first = await runCli(['prepare', '--mode', 'staging'], ENV, dir);
      // (Standard error may hold the config bundler's timing notes on a busy machine.)
      expect(first.stderr).not.toMatch(/error/i);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/content-sync: full sync \(cv \d+\)/);
      expect(first.stdout).toMatch(/content-sync prepare: \d+ stories ready in \.content-staging \(full sync\)/);
      expect(existsSync(path.join(dir, '.content-staging', 'modules', 'index.js'))).toBe(true);
      expect(existsSync(path.join(dir, '.content-staging', 'snapshot', 'manifest.json'))).toBe(true);
      expect(existsSync(path.join(dir, '.content-production'))).toBe(false);

      // Another config file, offline over the snapshot the first run wrote: no service, no sync.
      await fs.writeFile(
        path.join(dir, 'offline.config.mjs'),
        `${IMPORT}export default { plugins: [[contentSync({ dir: '.content-staging', offline: true })]] };\n`,
      );
      const offline = await runCli(['prepare', '--config', 'offline.config.mjs'], ENV, dir);
      expect(offline.code).toBe(0);
      expect(offline.stdout).not.toMatch(/sync \(cv/);
      expect(offline.stdout).toMatch(/stories ready in \.content-staging \(offline: the existing snapshot\)/);
    },
    SLOW,
  );

  it(
    'finds the plugin in the `vite` part of an Astro config when there is no Vite config',
    async () => {
      const dir = await projectWith('astro', {
        'astro.config.mjs':
          IMPORT +
          "export default { vite: { plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 10 } } })] } };\n",
      });
      const result = await runCli(['prepare'], ENV, dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/stories ready in \.content \(full sync\)/);
      expect(existsSync(path.join(dir, '.content', 'modules', 'index.js'))).toBe(true);
    },
    SLOW,
  );

  it(
    "exits 1 with the plugin's own error, and writes nothing, when offline has no snapshot",
    async () => {
      const dir = await projectWith('no-snapshot', {
        'vite.config.mjs': `${IMPORT}export default { plugins: [contentSync({ offline: true })] };\n`,
      });
      const result = await runCli(['prepare'], ENV, dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/offline is on but .* holds no snapshot; sync once with the API reachable/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(path.join(dir, '.content', 'modules'))).toBe(false);
    },
    SLOW,
  );

  it(
    'says so when the config does not use the plugin, or there is no config',
    async () => {
      const without = await projectWith('without', { 'vite.config.mjs': 'export default { plugins: [] };\n' });
      const empty = await projectWith('empty', { 'package.json': '{}\n' });
      const [a, b, c] = await Promise.all([
        runCli(['prepare'], ENV, without),
        runCli(['prepare'], ENV, empty),
        runCli(['prepare', '--config', 'missing.config.mjs'], ENV, empty),
      ]);
      expect(a.code).toBe(1);
      expect(a.stderr).toMatch(
        /vite\.config\.mjs does not use vite-plugin-content-sync: add contentSync\(\) to its plugins/,
      );
      expect(b.code).toBe(1);
      expect(b.stderr).toMatch(/no Vite config in .*: pass --config FILE/);
      expect(c.code).toBe(1);
      expect(c.stderr).toMatch(/--config missing\.config\.mjs: no such file/);
    },
    SLOW,
  );
});
