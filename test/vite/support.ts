/**
 * Shared pieces of the plugin tests: a project directory in the temp dir, the
 * real local service, a logger that keeps what the plugin says, signed webhooks.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type Logger, type LogErrorOptions, type LogOptions, type ViteDevServer } from 'vite';
import { type ContentSyncApi, type ContentSyncOptions, contentSync } from '../../src/index.js';
import { signWebhook, startServer, type RunningServer } from '../../src/server/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';

export const PUBLIC_TOKEN = 'plugin-test-public-3f9c2a';
export const PREVIEW_TOKEN = 'plugin-test-preview-8b1d7e';
export const SECRET = 'plugin-test-secret';

/** The plugin reads these when options are missing: tests set everything explicitly. */
export function clearContentEnv(): void {
  delete process.env.CONTENT_BASE_URL;
  delete process.env.CONTENT_TOKEN;
  delete process.env.CONTENT_WEBHOOK_SECRET;
}

/** A project root in the temp dir with an index.html whose script is `main`. */
export async function project(main: string): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-vite-'));
  await fs.writeFile(
    path.join(root, 'index.html'),
    '<!doctype html><html><body><div id="app"></div><script type="module" src="./main.js"></script></body></html>\n',
  );
  await fs.writeFile(path.join(root, 'main.js'), main);
  return root;
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
}

/** The fixture space served with the control plane and fixed tokens (each answer `latencyMs` late). */
export function startService(latencyMs = 0): Promise<RunningServer> {
  return startServer({
    space: fixtureSpace(),
    publicToken: PUBLIC_TOKEN,
    previewToken: PREVIEW_TOKEN,
    rateLimit: false,
    admin: true,
    latencyMs,
  });
}

export interface CapturingLogger extends Logger {
  lines: Array<{ level: 'info' | 'warn' | 'error'; msg: string }>;
  text(level?: 'info' | 'warn' | 'error'): string;
}

/** A Vite logger that keeps every message (the plugin logs through it). */
export function capturingLogger(): CapturingLogger {
  const lines: CapturingLogger['lines'] = [];
  const warned = new Set<string>();
  let hasWarned = false;
  const logger: CapturingLogger = {
    lines,
    text: (level) =>
      lines
        .filter((l) => !level || l.level === level)
        .map((l) => l.msg)
        .join('\n'),
    info: (msg: string, _o?: LogOptions) => void lines.push({ level: 'info', msg }),
    warn: (msg: string, _o?: LogOptions) => {
      hasWarned = true;
      lines.push({ level: 'warn', msg });
    },
    warnOnce: (msg: string, _o?: LogOptions) => {
      if (warned.has(msg)) return;
      warned.add(msg);
      hasWarned = true;
      lines.push({ level: 'warn', msg });
    },
    error: (msg: string, _o?: LogErrorOptions) => void lines.push({ level: 'error', msg }),
    clearScreen: () => {},
    hasErrorLogged: () => lines.some((l) => l.level === 'error'),
    get hasWarned() {
      return hasWarned;
    },
    set hasWarned(v: boolean) {
      hasWarned = v;
    },
  };
  return logger;
}

/** POSTs a webhook body, signed with `secret` unless `signature` is given. */
export async function postWebhook(
  url: string,
  body: string,
  options: { secret?: string; signature?: string | null } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const signature = options.signature === undefined ? signWebhook(body, options.secret ?? SECRET) : options.signature;
  if (signature !== null) headers['webhook-signature'] = signature;
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

/** A control-plane request to the service. */
export async function admin<T = any>(
  service: RunningServer,
  method: string,
  route: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${service.url}/__admin/${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /__admin/${route}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

type WithPlugins = { config: { plugins: ReadonlyArray<{ name: string; api?: unknown }> } };

/** The embedded service of the plugin on `server` (a dev server). */
export function embeddedService(server: WithPlugins): RunningServer {
  const plugin = server.config.plugins.find((p) => p.name === 'vite-plugin-content-sync');
  const service = (plugin?.api as ContentSyncApi | undefined)?.pipeline?.server;
  if (!service) throw new Error('the plugin runs no embedded service');
  return service;
}

/**
 * Creates a page story `name` in the embedded service of the plugin on `server` (its control plane
 * on) and publishes it, as an editor would; its id.
 */
export const publishNewPage = (server: WithPlugins, name: string): Promise<number> =>
  publishPage(embeddedService(server), name);

/** Creates a page story `name` through a service's control plane and publishes it; its id. */
export async function publishPage(service: RunningServer, name: string): Promise<number> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const { story } = await admin<{ story: { id: number } }>(service, 'POST', 'stories', {
    name,
    slug,
    content: { component: 'page', title: name },
  });
  await admin(service, 'POST', `stories/${story.id}/publish`);
  return story.id;
}

/** Changes the title of a story's draft and publishes it, as an editor would. */
export async function publishTitle(service: RunningServer, id: number, title: string): Promise<void> {
  await admin(service, 'PUT', `stories/${id}`, { content: { title } });
  await admin(service, 'POST', `stories/${id}/publish`);
}

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every file under `dir`, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}

/** A Vite dev server of `root` with the plugin made of `options`, listening on loopback, and its URL. */
export async function devServer(
  root: string,
  logger: CapturingLogger,
  options: ContentSyncOptions,
): Promise<{ server: ViteDevServer; url: string }> {
  const server = await createServer({
    root,
    configFile: false,
    customLogger: logger,
    server: { port: 0, host: '127.0.0.1', middlewareMode: false, ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
    plugins: [contentSync(options)],
  });
  await server.listen();
  const url = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  return { server, url };
}
