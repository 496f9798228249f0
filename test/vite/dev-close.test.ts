/**
 * What the plugin starts for a dev server stops when the server closes, however
 * it ran (listening, as middleware, or never started to listen): the embedded
 * service no longer answers and polling no longer reaches the API. Another
 * server of the same plugin (frameworks start more than one from one config)
 * starts its own and serves the content again; one still open when another closes keeps the
 * service, and its webhooks. In each supported Vite major.
 */
import type { RequestStats } from '../../src/server/index.js';
import type { RunningServer } from '../../src/server/index.js';
import type { InlineConfig, ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync, type ContentSyncApi, type ContentSyncOptions } from '../../src/index.js';
import {
  PUBLIC_TOKEN,
  SECRET,
  admin,
  capturingLogger,
  type CapturingLogger,
  clearContentEnv,
  project,
  publishPage,
  removeDir,
  startService,
  waitFor,
} from './support.js';
import { VITE_MAJORS } from './vite-majors.js';

type Mode = 'listening' | 'middleware' | 'never listened';

const serverConfig = (root: string, plugin: ReturnType<typeof contentSync>, mode: Mode): InlineConfig => ({
  root,
  configFile: false,
  customLogger: capturingLogger() as never,
  server: mode === 'middleware' ? { middlewareMode: true, ws: false } : { port: 0, host: '127.0.0.1', ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
  plugins: [plugin],
});

/** Whether something answers HTTP at `url` (a refused connection: no). */
const answers = async (url: string): Promise<boolean> => {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
};

const api = (plugin: ReturnType<typeof contentSync>) => plugin.api as ContentSyncApi;

describe.each(VITE_MAJORS)('a Vite %s dev server closing', (_major, { createServer }) => {
  const roots: string[] = [];
  let service: RunningServer;
  beforeAll(async () => {
    clearContentEnv();
    service = await startService();
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all(roots.map(removeDir));
  });
  const newRoot = async () => {
    roots.push(await project("import 'content:index';\n"));
    return roots.at(-1)!;
  };

  it.each<Mode>(['listening', 'middleware', 'never listened'])(
    'stops the embedded service (%s), and the next server starts it again',
    async (mode) => {
      const root = await newRoot();
      const plugin = contentSync({ embedded: { data: 'space', demo: { stories: 10 } } });
      for (const round of [1, 2]) {
        const server = await createServer(serverConfig(root, plugin, mode));
        if (mode === 'listening') await server.listen();
        const { entries } = (await server.ssrLoadModule('content:index')) as { entries: unknown[] };
        expect(entries.length, `round ${round}`).toBeGreaterThan(0);
        const url = api(plugin).pipeline?.server?.url;
        expect(url).toBeDefined();
        expect(await answers(url!)).toBe(true);
        await server.close();
        expect(await answers(url!), `round ${round}: the service after the server closed`).toBe(false);
      }
    },
    60_000,
  );

  it.each(['first', 'second'] as const)(
    'keeps what the other open server of the same plugin uses when the %s closes',
    async (closed) => {
      const root = await newRoot();
      const plugin = contentSync({
        embedded: { data: 'space', demo: { stories: 10 }, admin: true },
        webhook: { secret: SECRET },
      });
      const servers: ViteDevServer[] = [];
      try {
        for (const _ of [1, 2]) {
          const server = await createServer(serverConfig(root, plugin, 'listening'));
          servers.push(server);
          await server.listen();
          await server.ssrLoadModule('content:index');
        }
        const service = api(plugin).pipeline?.server;
        expect(service).toBeDefined();
        const [closing, open] = closed === 'first' ? servers : [servers[1]!, servers[0]!];
        await closing!.close();
        // The embedded service goes on for the open server, and posts its changes to that server.
        expect(await answers(service!.url)).toBe(true);
        expect(api(plugin).pipeline?.server).toBe(service);
        const id = await publishPage(service!, `Published after the ${closed} server closed`);
        await waitFor('the open server to serve the new story', async () => {
          const { entries } = (await open!.ssrLoadModule('content:index')) as { entries: Array<{ id: number }> };
          return entries.some((e) => e.id === id);
        });
        await open!.close();
        // The last server closed: so is the service.
        expect(api(plugin).pipeline).toBeUndefined();
        expect(await answers(service!.url)).toBe(false);
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    },
    60_000,
  );

  it('stops polling the API', async () => {
    const options: ContentSyncOptions = { baseUrl: service.url, token: PUBLIC_TOKEN, pollMs: 250 };
    const config = serverConfig(await newRoot(), contentSync(options), 'middleware');
    const server = await createServer(config);
    await server.ssrLoadModule('content:index');
    /** Requests of the Content Delivery API so far (the control plane's own are not counted). */
    const requests = async () => (await admin<RequestStats>(service, 'GET', 'stats')).total;
    const before = await requests();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await requests()).toBeGreaterThan(before);
    // Polls that find the same cache version say nothing each time: one line at the first sync.
    const lines = (config.customLogger as unknown as CapturingLogger).text('info');
    expect(lines.match(/sync \(cv \d+\)/g)).toHaveLength(1);
    await server.close();
    const closed = await requests();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await requests()).toBe(closed);
  }, 60_000);
});
