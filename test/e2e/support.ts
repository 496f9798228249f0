/**
 * Shared helpers of the browser tests: the system Chromium through
 * playwright-core, a static file server for a built site, the control plane
 * of the embedded content service, and polling.
 */
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { readSpaceDirectory } from '../../src/snapshot/read.js';
import { writeSpaceDirectory } from '../../src/snapshot/write.js';
import { SpaceStore } from '../../src/server/store.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Chromium as installed by the system (CI: `apt-get install chromium`). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the browser tests need Chromium at ${CHROMIUM}; install it (Debian/Ubuntu: sudo apt-get install -y chromium)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/** Serves a built site: `/x/` answers `/x/index.html`; anything missing answers 404.html with status 404. */
export async function serveStatic(root: string): Promise<StaticServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      let pathname: string;
      try {
        pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
      } catch {
        res.writeHead(400).end();
        return;
      }
      const file = path.join(
        root,
        path.normalize(pathname).replace(/^([/\\])+/, ''),
        pathname.endsWith('/') ? 'index.html' : '',
      );
      const inside = file === root || file.startsWith(root + path.sep);
      const body = inside ? await fs.readFile(file).catch(() => undefined) : undefined;
      if (body) {
        res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(body);
        return;
      }
      const notFound = await fs.readFile(path.join(root, '404.html')).catch(() => 'not found');
      res.writeHead(404, { 'content-type': TYPES['.html']! }).end(notFound);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request to the control plane of the embedded service; throws unless it answers 2xx. */
export async function admin(
  serviceUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  route: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(new URL(`/__admin/${route}`, serviceUrl), {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /__admin/${route}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Calls `probe` until it returns a value other than undefined or false; fails after `timeoutMs` with what it saw last. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : String(last)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Every file under a directory, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The files under `dirs` that contain any of `secrets`, with the secret found. */
export async function filesContaining(dirs: readonly string[], secrets: readonly string[]): Promise<string[]> {
  const hits: string[] = [];
  for (const dir of dirs) {
    for (const file of await filesUnder(dir)) {
      const text = await fs.readFile(file, 'latin1');
      for (const secret of secrets) if (text.includes(secret)) hits.push(`${file}: ${secret}`);
    }
  }
  return hits;
}

/** The generated collection index of a modules directory, loaded fresh. */
export async function loadIndex(modulesDir: string): Promise<GeneratedIndex> {
  const url = pathToFileURL(path.join(modulesDir, 'index.js'));
  url.searchParams.set('t', String(Date.now()));
  return (await import(url.href)) as GeneratedIndex;
}

export interface IndexEntry {
  id: number;
  uuid: string;
  lang: string;
  name: string;
  full_slug: string;
  path: string;
  component: string;
  is_startpage: boolean;
}

export interface GeneratedIndex {
  entries: IndexEntry[];
  byComponent(component: string, lang?: string): IndexEntry[];
  bySlug(fullSlug: string, lang?: string): IndexEntry | undefined;
  byUuid(uuid: string, lang?: string): IndexEntry | undefined;
  load(entry: IndexEntry): Promise<{ uuid: string; name: string; content: Record<string, unknown> }>;
}

export const SITE_ROOT = fileURLToPath(new URL('../../example-site/', import.meta.url));

export interface SiteBuild {
  outDir: string;
  pages: number;
  /** Pages the build rendered (the others are made from what they were last rendered from). */
  rendered: number;
  /** Pages whose file the build wrote. */
  rewritten: number;
  durationMs: number;
  tokens: string[];
  modulesDir: string;
  /** Pages not written (each one warned about). */
  refused: string[];
}

export interface SiteDevServer {
  /** Vite's dev server (its logger, for what the site tells). */
  server: { config: { logger: { warn(message: string, options?: unknown): void } } };
  url: string;
  serviceUrl: string;
  tokens: string[];
  modulesDir: string;
  close(): Promise<void>;
}

export interface SiteApi {
  buildSite(options: {
    outDir?: string;
    stories?: number;
    contentDir?: string;
    logLevel?: 'info' | 'warn' | 'error' | 'silent';
  }): Promise<SiteBuild>;
  startDevServer(options: {
    port?: number;
    logLevel?: 'info' | 'warn' | 'error' | 'silent';
    contentDir?: string;
  }): Promise<SiteDevServer>;
}

/**
 * The example site's build and dev server. Loaded at run time: the site is
 * typed against its generated modules, which exist only once it has synced,
 * so it is type-checked on its own (see built-site.test.ts), not with the tests.
 */
export async function siteApi(): Promise<SiteApi> {
  const build = (await import(pathToFileURL(path.join(SITE_ROOT, 'site-build.ts')).href)) as Pick<SiteApi, 'buildSite'>;
  const dev = (await import(pathToFileURL(path.join(SITE_ROOT, 'dev-server.ts')).href)) as Pick<
    SiteApi,
    'startDevServer'
  >;
  return { buildSite: build.buildSite, startDevServer: dev.startDevServer };
}

/** The example site built once into a temp directory of its own: its content and output beside each other. */
export interface SiteInTemp {
  tmp: string;
  api: SiteApi;
  contentDir: string;
  outDir: string;
  first: SiteBuild;
}

/** Builds the example site (over a demo of `stories`, or the default) into a fresh temp directory named by `label`. */
export async function siteInTemp(label: string, stories?: number): Promise<SiteInTemp> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), `example-${label}-`));
  const api = await siteApi();
  const contentDir = path.join(tmp, 'content');
  const outDir = path.join(tmp, 'dist');
  const first = await api.buildSite({ outDir, contentDir, ...(stories ? { stories } : {}), logLevel: 'silent' });
  return { tmp, api, contentDir, outDir, first };
}

/** Changes the space directory of a site's content as the service's control plane would, and publishes it. */
export async function changeSpace(contentDir: string, edit: (store: SpaceStore) => void): Promise<void> {
  const dir = path.join(contentDir, 'space');
  const store = new SpaceStore(await readSpaceDirectory(dir));
  edit(store);
  await writeSpaceDirectory(dir, store.toData());
}
