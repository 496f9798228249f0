/**
 * The plugin at the edges of a Vite setup: option values the schema must refuse, configuration
 * errors said without the plugin's stack, control-plane edits reaching a dev server over https, on
 * a LAN address, with CONTENT_WEBHOOK_SECRET set empty or with the plugin twice, a webhook path
 * that takes its own path only, a `dir` holding the app's files, `server.watch: null`, and a
 * project path with glob syntax.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, createServer, type InlineConfig, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { OptionsError } from '../../src/vite/index.js';
import { capturingLogger, clearContentEnv, project, publishNewPage, removeDir, waitFor } from './support.js';

describe('options the schema lets through', () => {
  it.each([
    // Node's setInterval clamps anything above 2^31-1 ms to 1 ms: a poll every millisecond.
    [{ pollMs: 3_000_000_000 }, 'pollMs'],
    [{ webhook: { coalesceMs: 3_000_000_000 } }, 'webhook.coalesceMs'],
    // fetch refuses these ports ("bad port"): the embedded service starts and no sync can reach it.
    [{ embedded: { data: 'space', port: 6000 } }, 'embedded.port'],
    // Not an http(s) origin: every sync retries, then fails with "request to null failed: unknown scheme".
    [{ baseUrl: 'ftp://example.com' }, 'baseUrl'],
    [{ baseUrl: 'mailto:a@example.com' }, 'baseUrl'],
  ])('%j is refused with an error naming %s', (input, name) => {
    expect(() => contentSync(input as never)).toThrow(OptionsError);
    expect(() => contentSync(input as never)).toThrow(`option "${name}"`);
  });
});

describe('configuration errors found at build start', () => {
  const roots: string[] = [];
  beforeAll(clearContentEnv);
  afterAll(async () => {
    for (const r of roots) await removeDir(r);
  });
  const buildWith = async (options: object): Promise<Error> => {
    const root = await project("import { entries } from 'content:index'; console.log(entries.length);\n");
    roots.push(root);
    try {
      await build({
        root,
        configFile: false,
        logLevel: 'silent',
        plugins: [contentSync(options as never)],
      });
    } catch (err) {
      return err as Error;
    }
    throw new Error('the build succeeded');
  };

  it('a space directory that is none names option "embedded.data"', async () => {
    const err = await buildWith({ embedded: { data: 'no-such-space' } });
    expect(err.message).toContain('option "embedded.data"');
  }, 60_000);

  it('an unreadable schema file is said without a stack of the plugin internals', async () => {
    const err = await buildWith({ schema: 'missing.json', embedded: { data: 'space', demo: { stories: 10 } } });
    expect(err.message).toContain('option "schema"');
    const cause = (err as { cause?: Error }).cause ?? err;
    // OptionsError carries no stack; a PipelineError naming an option should not either.
    expect(`${err.stack}\n${cause.stack}`).not.toMatch(/dist\/vite|src\/vite\/pipeline/);
  }, 60_000);
});

describe('control-plane edits reach the dev server', () => {
  const roots: string[] = [];
  const servers: ViteDevServer[] = [];
  beforeAll(clearContentEnv);
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const r of roots) await removeDir(r);
  });

  const seesEdit = async (server: Partial<InlineConfig['server']>, instances = 1): Promise<void> => {
    const root = await project("import { entries } from 'content:index'; console.log(entries.length);\n");
    roots.push(root);
    const logger = capturingLogger();
    const dev = await createServer({
      root,
      configFile: false,
      customLogger: logger,
      server: { port: 0, ws: false, ...server },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: Array.from({ length: instances }, () =>
        contentSync({ embedded: { data: 'space', demo: { stories: 10 }, admin: true } }),
      ),
    });
    servers.push(dev);
    await dev.listen();
    await dev.ssrLoadModule('content:index');
    const id = await publishNewPage(dev, 'Published through the control plane');
    await waitFor(
      'the dev server to take the published story',
      async () => {
        const { entries } = (await dev.ssrLoadModule('content:index')) as { entries: Array<{ id: number }> };
        return entries.some((e) => e.id === id);
      },
      8_000,
    );
    expect(logger.text('warn')).not.toMatch(/webhook .* failed/);
  };

  it('with the plugin in the config twice by mistake (the same options: one service, one pipeline)', async () => {
    await seesEdit({ host: '127.0.0.1' }, 2);
  }, 60_000);

  it('over https (a self-signed certificate, as @vitejs/plugin-basic-ssl makes)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-cert-'));
    roots.push(dir);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const https = {
      key: await fs.readFile(path.join(dir, 'key.pem')),
      cert: await fs.readFile(path.join(dir, 'cert.pem')),
    };
    await seesEdit({ https, host: '127.0.0.1' });
  }, 60_000);

  const lan = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  it.skipIf(!lan)(
    'listening on a LAN address only (vite --host <ip>)',
    async () => {
      await seesEdit({ host: lan! });
    },
    60_000,
  );

  it('with CONTENT_WEBHOOK_SECRET set empty (a CI variable left blank), as with it unset', async () => {
    process.env.CONTENT_WEBHOOK_SECRET = '';
    try {
      await seesEdit({ host: '127.0.0.1' });
    } finally {
      delete process.env.CONTENT_WEBHOOK_SECRET;
    }
  }, 60_000);
});

describe('webhook.path', () => {
  it('answers on its path alone, not on every POST under it (or every POST, at "/")', async () => {
    clearContentEnv();
    let plugin: ReturnType<typeof contentSync>;
    try {
      plugin = contentSync({ embedded: { data: 'space', demo: { stories: 10 } }, webhook: { path: '/' } });
    } catch (err) {
      // Refusing the option is a fix too.
      expect(err).toBeInstanceOf(OptionsError);
      expect((err as Error).message).toContain('option "webhook.path"');
      return;
    }
    const root = await project('console.log(1);\n');
    const dev = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      server: { port: 0, host: '127.0.0.1', ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [
        plugin,
        {
          name: 'app-api',
          configureServer: (s) =>
            void s.middlewares.use('/api/form', (_req, res) => {
              res.end('handled by the app');
            }),
        },
      ],
    });
    try {
      await dev.listen();
      const url = dev.resolvedUrls!.local[0]!;
      const res = await fetch(new URL('/api/form', url), { method: 'POST', body: 'a=1' });
      // Either the option is refused, or the app's POST route still gets its request.
      expect(await res.text()).toBe('handled by the app');
    } finally {
      await dev.close();
      await removeDir(root);
    }
  }, 60_000);
});

describe('the dir option', () => {
  it("leaves the watching of the app's own files under it to Vite (dir: 'src')", async () => {
    clearContentEnv();
    const root = await project('console.log(1);\n');
    await fs.mkdir(path.join(root, 'src'));
    await fs.writeFile(path.join(root, 'src', 'app.js'), 'export const v = 1;\n');
    const dev = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      server: { port: 0, host: '127.0.0.1', ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 10 } }, dir: 'src' })],
    });
    try {
      await dev.listen();
      await dev.ssrLoadModule('/src/app.js');
      const seen: string[] = [];
      dev.watcher.on('change', (f) => seen.push(f));
      await new Promise((r) => setTimeout(r, 300));
      await fs.writeFile(path.join(root, 'src', 'app.js'), 'export const v = 2;\n');
      await waitFor('the watcher to see src/app.js change', () => seen.some((f) => f.endsWith('app.js')), 5_000);
    } finally {
      await dev.close();
      await removeDir(root);
    }
  }, 60_000);
});

describe('server.watch: null', () => {
  it('stays off with the plugin (its config hook must not turn watching on again)', async () => {
    clearContentEnv();
    const root = await project('console.log(1);\n');
    const dev = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      server: { port: 0, host: '127.0.0.1', ws: false, watch: null },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 10 } } })],
    });
    try {
      expect(dev.config.server.watch).toBeNull();
    } finally {
      await dev.close();
      await removeDir(root);
    }
  }, 60_000);
});

describe('a project whose path holds glob characters ("site (copy)")', () => {
  it("keeps Vite's watcher off what the plugin writes, as anywhere else", async () => {
    clearContentEnv();
    const tmp = await project('');
    const root = path.join(tmp, 'site (copy)');
    await fs.mkdir(root);
    const dev = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      server: { port: 0, host: '127.0.0.1', ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync({ embedded: { data: 'space' } })],
    });
    try {
      // The watcher's own test of each path it meets (chokidar's).
      const watcher = dev.watcher as unknown as { _isIgnored(file: string): boolean };
      for (const file of ['.content/modules/index.js', '.content/snapshot/manifest.json', 'space/space.json'])
        expect(watcher._isIgnored(path.join(root, file)), file).toBe(true);
      expect(watcher._isIgnored(path.join(root, 'main.js'))).toBe(false);
    } finally {
      await dev.close();
      await removeDir(tmp);
    }
  }, 60_000);
});
