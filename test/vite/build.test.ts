/**
 * `vite build` with the plugin: against the embedded demo space, against the
 * real local service (request counts from its control plane), offline, and
 * with no token anywhere in what it writes.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { build, type InlineConfig, type Plugin } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestStats, RunningServer } from '../../src/server/index.js';
import { contentSync, type ContentSyncOptions } from '../../src/index.js';
import {
  PUBLIC_TOKEN,
  admin,
  capturingLogger,
  clearContentEnv,
  filesUnder,
  project,
  removeDir,
  startService,
  type CapturingLogger,
} from './support.js';

const MAIN = [
  "import { getStory, entries } from 'content:index';",
  "import story, { de } from 'content:stories/12';",
  'document.querySelector("#app").textContent = `${entries.length} ${story.content.title} ${de.content.title} ${typeof getStory}`;',
  '',
].join('\n');

function config(root: string, logger: CapturingLogger, options: ContentSyncOptions): InlineConfig {
  return {
    root,
    configFile: false,
    customLogger: logger,
    // Keeps Vite's own build report quiet; the plugin's messages still reach the logger.
    logLevel: 'warn',
    plugins: [contentSync(options)],
    build: { outDir: 'dist', emptyOutDir: true },
  };
}

/** A port no one listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function builtText(root: string): Promise<string> {
  const files = await filesUnder(path.join(root, 'dist'));
  return (await Promise.all(files.map((f) => fs.readFile(f, 'utf8')))).join('\n');
}

describe('build with the embedded demo space', () => {
  let root: string;
  beforeAll(async () => {
    clearContentEnv();
    root = await project(
      "import { entries } from 'content:index';\ndocument.querySelector('#app').textContent = String(entries.length);\n",
    );
  });
  afterAll(() => removeDir(root));

  it('writes the bundles, and a warm build spends one request on sync', async () => {
    const options: ContentSyncOptions = { embedded: { data: 'space', demo: { stories: 20 } } };
    const cold = capturingLogger();
    await build(config(root, cold, options));
    const assets = await fs.readdir(path.join(root, 'dist', 'assets'));
    expect(existsSync(path.join(root, 'dist', 'index.html'))).toBe(true);
    expect(assets.some((f) => f.endsWith('.js'))).toBe(true);
    expect(cold.text('info')).toMatch(/content-sync: full sync/);
    expect(existsSync(path.join(root, '.content', 'modules', 'index.js'))).toBe(true);

    const warm = capturingLogger();
    await build(config(root, warm, options));
    expect(warm.text('info')).toMatch(
      /content-sync: unchanged sync \(cv \d+\): 0 stories written, 0 removed; 1 request in/,
    );
    expect(warm.text('error')).toBe('');

    // Offline over that snapshot in a view it was not synced with: an error, not a site without stories.
    await expect(
      build(config(root, capturingLogger(), { ...options, version: 'draft', offline: true })),
    ).rejects.toThrow(/holds the published view, not draft: sync it with that view/);
  });

  it('the demo goes where embedded.data holds only hidden files (a .gitkeep), not over other files', async () => {
    const options: ContentSyncOptions = { embedded: { data: 'kept', demo: { stories: 10 } } };
    await fs.mkdir(path.join(root, 'kept'), { recursive: true });
    await fs.writeFile(path.join(root, 'kept', '.gitkeep'), '');
    await build(config(root, capturingLogger(), options));
    expect(existsSync(path.join(root, 'kept', 'space.json'))).toBe(true);
    expect(existsSync(path.join(root, 'kept', '.gitkeep'))).toBe(true);
    // A directory of someone's files: refused, naming the option, the files as they were.
    await fs.mkdir(path.join(root, 'notes'), { recursive: true });
    await fs.writeFile(path.join(root, 'notes', 'todo.md'), 'mine');
    await expect(
      build(config(root, capturingLogger(), { embedded: { data: 'notes', demo: { stories: 10 } } })),
    ).rejects.toThrow(/option "embedded.data": .*notes holds other files and is not a space directory/);
    expect(await fs.readdir(path.join(root, 'notes'))).toEqual(['todo.md']);
  });
});

describe('a build inside a build, as SvelteKit builds its client inside its server build', () => {
  let root: string;
  beforeAll(async () => {
    clearContentEnv();
    root = await project("import { entries } from 'content:index';\nconsole.log(entries.length);\n");
  });
  afterAll(() => removeDir(root));

  /**
   * An outer build whose plugin list is made anew for a nested build started from its writeBundle
   * (SvelteKit loads the config again): two instances of the plugin over one content directory,
   * the first one's embedded service still running.
   */
  async function nestedBuild(options: ContentSyncOptions): Promise<{ outer: CapturingLogger; inner: CapturingLogger }> {
    const outer = capturingLogger();
    const inner = capturingLogger();
    const nested: Plugin = {
      name: 'nested-build',
      async writeBundle() {
        await build({ ...config(root, inner, options), build: { outDir: 'dist-client', emptyOutDir: true } });
      },
    };
    const outerConfig = config(root, outer, options);
    await build({ ...outerConfig, plugins: [...(outerConfig.plugins ?? []), nested] });
    return { outer, inner };
  }

  it('shares the embedded service: the nested build reads nothing again and the port stays', async () => {
    const options: ContentSyncOptions = { embedded: { data: 'space', demo: { stories: 20 } } };
    const syncs = (log: CapturingLogger) =>
      log.lines.filter((l) => /content-sync: \w+ sync \(cv/.test(l.msg)).map((l) => l.msg.split(' ')[1]);
    // The pipeline speaks through the logger of the instance that started it: the outer build's. The
    // nested build's sync finds the same cache version, which is not said twice.
    const first = await nestedBuild(options);
    expect(syncs(first.outer)).toEqual(['full']);
    const port = await fs.readFile(path.join(root, '.content', 'service-port'), 'utf8');
    const second = await nestedBuild(options);
    expect(syncs(second.outer)).toEqual(['unchanged']);
    for (const log of [first.outer, first.inner, second.outer, second.inner]) {
      expect(log.text('info')).not.toMatch(/reading the whole space/);
      expect(log.text('error')).toBe('');
    }
    // One service for both builds, on the port kept.
    for (const log of [first.outer, second.outer])
      expect(log.lines.filter((l) => /local Content Delivery Service/.test(l.msg))).toHaveLength(1);
    expect(await fs.readFile(path.join(root, '.content', 'service-port'), 'utf8')).toBe(port);
  });

  it('a port of its own (embedded.port) held by another process: an error naming the option', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      await expect(build(config(root, capturingLogger(), { embedded: { data: 'space', port } }))).rejects.toThrow(
        `option "embedded.port": port ${port} is in use (by a dev server of this project, say); stop what holds it, or leave the port to the plugin`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a port of its own (embedded.port) is shared too, not refused as in use', async () => {
    const port = await freePort();
    const { outer, inner } = await nestedBuild({ embedded: { data: 'space', port } });
    expect(outer.text('info')).toContain(`local Content Delivery Service over space at http://127.0.0.1:${port}`);
    expect(outer.text('error') + inner.text('error')).toBe('');
  });
});

describe('build against the local service', () => {
  let service: RunningServer;
  let root: string;
  const stats = () => admin<RequestStats>(service, 'GET', 'stats');

  beforeAll(async () => {
    clearContentEnv();
    service = await startService();
    root = await project(MAIN);
  });
  afterAll(async () => {
    await service?.close();
    await removeDir(root);
  });

  it('builds the page from the space, then a warm build costs exactly one request', async () => {
    await build(config(root, capturingLogger(), { baseUrl: service.url, token: PUBLIC_TOKEN }));
    const text = await builtText(root);
    expect(text).toContain('Alpha news');
    expect(text).toContain('Alpha Nachrichten');

    await admin(service, 'POST', 'stats/reset');
    await build(config(root, capturingLogger(), { baseUrl: service.url, token: PUBLIC_TOKEN }));
    const s = await stats();
    expect(s.total).toBe(1);
    expect(s.by_route).toEqual({ 'v2 space': 1 });
  });

  it('never writes the token into the bundle, the generated modules or the snapshot', async () => {
    const files = [...(await filesUnder(path.join(root, 'dist'))), ...(await filesUnder(path.join(root, '.content')))];
    expect(files.some((f) => f.includes(`${path.sep}modules${path.sep}`))).toBe(true);
    for (const file of files) {
      const bytes = await fs.readFile(file);
      expect(bytes.includes(PUBLIC_TOKEN), file).toBe(false);
    }
  });

  it("takes CONTENT_BASE_URL and CONTENT_TOKEN from the project's .env files for the mode, as Vite reads them", async () => {
    const staging = await project(MAIN);
    try {
      // Where Vite projects keep their settings: nothing in the environment, the options empty.
      await fs.writeFile(
        path.join(staging, '.env.staging'),
        `CONTENT_BASE_URL=${service.url}\nCONTENT_TOKEN=${PUBLIC_TOKEN}\n`,
      );
      await fs.writeFile(path.join(staging, '.env'), 'CONTENT_TOKEN=not-the-token\n');
      await build({ ...config(staging, capturingLogger(), {}), mode: 'staging' });
      expect(await builtText(staging)).toContain('Alpha Nachrichten');
      // Another mode reads its own files: .env alone holds no base URL (the snapshot stays as it was).
      const production = capturingLogger();
      await build({ ...config(staging, production, {}), mode: 'production' });
      expect(production.text('warn')).toMatch(/CONTENT_BASE_URL \(or the baseUrl option\) not set/);
    } finally {
      await removeDir(staging);
    }
  });

  it('offline: true builds from the snapshot without one request', async () => {
    await admin(service, 'POST', 'stats/reset');
    const logger = capturingLogger();
    await build(config(root, logger, { baseUrl: service.url, token: PUBLIC_TOKEN, offline: true }));
    expect((await stats()).total).toBe(0);
    expect(await builtText(root)).toContain('Alpha news');
  });
});

describe('build when the API cannot be reached', () => {
  let root: string;
  let deadUrl: string;

  beforeAll(async () => {
    clearContentEnv();
    root = await project(MAIN);
    // A snapshot from a service that then goes away: its port is closed.
    const service = await startService();
    deadUrl = service.url;
    await build(config(root, capturingLogger(), { baseUrl: service.url, token: PUBLIC_TOKEN }));
    await service.close();
  });
  afterAll(() => removeDir(root));

  it("offline: 'auto' builds from the snapshot with a loud warning", async () => {
    const logger = capturingLogger();
    await build(config(root, logger, { baseUrl: deadUrl, token: PUBLIC_TOKEN, offline: 'auto' }));
    expect(logger.text('warn')).toMatch(/THE API CANNOT BE REACHED/);
    expect(logger.text('warn')).toMatch(/content may be stale/);
    expect(await builtText(root)).toContain('Alpha news');
  });

  it("offline: 'auto' fails on a CONTENT_BASE_URL no request can use, not taking it for an API out of reach", async () => {
    // An API URL copied whole (?token= and all): a mistake in the configuration, which no service
    // coming back would mend; building from the snapshot would keep it stale without an error.
    process.env.CONTENT_BASE_URL = `${deadUrl}/v2/cdn/stories?token=${PUBLIC_TOKEN}`;
    const logger = capturingLogger();
    try {
      const built = build(config(root, logger, { token: PUBLIC_TOKEN, offline: 'auto' }));
      await expect(built).rejects.toThrow(/the base URL .* has a query/);
      expect(logger.text('warn')).not.toMatch(/CANNOT BE REACHED/);
    } finally {
      delete process.env.CONTENT_BASE_URL;
    }
  });

  it.each(['constructor', '__proto__', 'hasOwnProperty'])(
    'refuses content:%s with the unknown-import message',
    async (name) => {
      const other = await project(`import x from 'content:${name}';\nconsole.log(x);\n`);
      try {
        const built = build(config(other, capturingLogger(), { offline: true, dir: path.join(root, '.content') }));
        await expect(built).rejects.toThrow(`unknown import "content:${name}"`);
      } finally {
        await removeDir(other);
      }
    },
  );

  it('offline: false fails even with a snapshot', async () => {
    await expect(
      build(config(root, capturingLogger(), { baseUrl: deadUrl, token: PUBLIC_TOKEN, offline: false })),
    ).rejects.toThrow();
  });

  it('fails with a clear message when there is no snapshot either', async () => {
    const empty = await project(MAIN);
    try {
      await expect(build(config(empty, capturingLogger(), { baseUrl: deadUrl, token: PUBLIC_TOKEN }))).rejects.toThrow(
        /no snapshot yet and the sync failed/,
      );
    } finally {
      await removeDir(empty);
    }
  });

  it('offline: true without a snapshot says to sync once', async () => {
    const empty = await project(MAIN);
    try {
      await expect(build(config(empty, capturingLogger(), { offline: true }))).rejects.toThrow(
        /offline is on but .* holds no snapshot/,
      );
    } finally {
      await removeDir(empty);
    }
  });

  it('fails with a message naming the missing settings when neither API nor snapshot is configured', async () => {
    const empty = await project(MAIN);
    try {
      await expect(build(config(empty, capturingLogger(), {}))).rejects.toThrow(/CONTENT_BASE_URL .* CONTENT_TOKEN/);
    } finally {
      await removeDir(empty);
    }
  });
});
