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
import {
  capturingLogger,
  clearContentEnv,
  devServer,
  embeddedService,
  publishNewPage,
  waitFor,
} from '../vite/support.js';

/** The plugin as a project's config imports it (from source here, from the package in an app). */
const ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const IMPORT = `import { contentSync } from ${JSON.stringify(ENTRY)};\n`;
/** Vite 7, as this repository has it beside its own Vite 8. */
const VITE7 = fileURLToPath(new URL('../../node_modules/vite7', import.meta.url));
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
    "loads the config with the project's own Vite, and an Astro config with the Vite inside Astro",
    async () => {
      // This repository resolves Vite 8; each project resolves Vite 7 (as an Astro 6 app may, npm
      // having put Astro's Vite inside it), which its config must be loaded with.
      const probe =
        "import { writeFileSync } from 'node:fs';\n" +
        "const probe = { name: 'probe', configResolved() { writeFileSync('vite-version', this.meta.viteVersion); } };\n";
      const plugins = "[probe, contentSync({ embedded: { data: 'space', demo: { stories: 10 } } })]";
      const app = await projectWith('own-vite', {
        'vite.config.mjs': `${IMPORT}${probe}export default { plugins: ${plugins} };\n`,
      });
      const astro = await projectWith('astro-vite', {
        'astro.config.mjs': `${IMPORT}${probe}export default { vite: { plugins: ${plugins} } };\n`,
        'node_modules/astro/package.json': JSON.stringify({
          name: 'astro',
          exports: { './package.json': './package.json' },
        }),
      });
      await fs.mkdir(path.join(app, 'node_modules'));
      await fs.symlink(VITE7, path.join(app, 'node_modules', 'vite'), 'dir');
      await fs.mkdir(path.join(astro, 'node_modules', 'astro', 'node_modules'));
      await fs.symlink(VITE7, path.join(astro, 'node_modules', 'astro', 'node_modules', 'vite'), 'dir');
      const version = JSON.parse(await fs.readFile(path.join(VITE7, 'package.json'), 'utf8')).version as string;
      for (const dir of [app, astro]) {
        const result = await runCli(['prepare'], ENV, dir);
        expect(result.code, result.stderr).toBe(0);
        expect(await fs.readFile(path.join(dir, 'vite-version'), 'utf8')).toBe(version);
      }
    },
    SLOW,
  );

  it(
    'names Vite and the line that installs it when neither the project nor the package resolves it',
    async () => {
      // npx -p vite-plugin-content-sync outside a project: Vite, an optional peer, is not installed.
      const refuse = `export async function resolve(s, c, next) {
  if (s === 'vite') throw Object.assign(new Error("Cannot find package 'vite' imported from " + c.parentURL), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(s, c);
}`;
      const dir = await projectWith('no-vite', {
        'vite.config.mjs': 'export default {};\n',
        'no-vite.mjs': `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(refuse)}`)});\n`,
      });
      const result = await runCli(
        ['prepare'],
        { ...ENV, NODE_OPTIONS: `--import ${path.join(dir, 'no-vite.mjs')}` },
        dir,
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        "content-sync prepare: loading the project's Vite config needs the package vite, which is not installed: npm i -D vite",
      );
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
    "while a dev server of the project runs, syncs from its service: the port stays, its control plane's edits stay",
    async () => {
      const options = { embedded: { data: 'space', demo: { stories: 20 }, admin: true } } as const;
      const dir = await projectWith('beside-dev', {
        'vite.config.mjs': `${IMPORT}export default { plugins: [contentSync(${JSON.stringify(options)})] };\n`,
        'index.html': '<!doctype html><html><body></body></html>\n',
      });
      clearContentEnv();
      // The dev server in this process, with the options of the project's config.
      const { server } = await devServer(dir, capturingLogger(), options);
      const page = path.join(dir, '.content', 'snapshot', 'stories');
      try {
        await server.ssrLoadModule('content:index');
        const id = await publishNewPage(server, 'Only in the dev server');
        await waitFor('the dev server to sync the page', () => existsSync(path.join(page, `${id}.json`)));
        const port = await fs.readFile(path.join(dir, '.content', 'service-port'), 'utf8');
        const beside = await runCli(['prepare'], ENV, dir);
        expect(beside.code, beside.stderr).toBe(0);
        expect(beside.stdout).toContain(
          `content-sync: syncing from the local Content Delivery Service of process ${process.pid} at ${embeddedService(server).url}`,
        );
        expect(beside.stdout).toMatch(/content-sync: unchanged sync/);
        expect(beside.stdout).not.toMatch(/reading the whole space/);
        expect(existsSync(path.join(page, `${id}.json`))).toBe(true);
        expect(await fs.readFile(path.join(dir, '.content', 'service-port'), 'utf8')).toBe(port);
      } finally {
        await server.close();
      }
      // The dev server gone, its service is too: the next run starts its own, from the directory.
      expect(existsSync(path.join(dir, '.content', 'service.json'))).toBe(false);
      // One a killed process left names a process that is gone: not used.
      await fs.writeFile(
        path.join(dir, '.content', 'service.json'),
        JSON.stringify({
          url: 'http://127.0.0.1:9',
          publicToken: 'p',
          previewToken: 'q',
          data: path.join(dir, 'space'),
          pid: 2_147_483_646,
          owner: 'gone',
          shape: JSON.stringify(['published', 'v2', null]),
        }),
      );
      const alone = await runCli(['prepare'], ENV, dir);
      expect(alone.code, alone.stderr).toBe(0);
      expect(alone.stdout).toMatch(/content-sync: local Content Delivery Service over space at/);
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
      // A flag naming nothing is a usage error, as every command's is.
      expect(c.code).toBe(2);
      expect(c.stderr).toMatch(/--config missing\.config\.mjs: no such file/);
    },
    SLOW,
  );
});
