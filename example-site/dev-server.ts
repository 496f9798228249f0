/**
 * The example site on Vite's dev server: every page rendered on request by
 * the same server entry the build prerenders with, against the embedded
 * service with its control plane on. A change published through the control
 * plane reaches open pages: the service posts a signed webhook to the dev
 * server, the plugin syncs and recompiles what changed and the browser reloads.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createServer, type Plugin, type ViteDevServer } from 'vite';
import { siteConfig, siteRoot } from './vite.config.js';

type ServerEntry = typeof import('./src/entry-server.js');

export interface DevServerOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  logLevel?: 'info' | 'warn' | 'error' | 'silent';
  /** Relative to example-site; default the content directory of `stories` (.content for 200) */
  contentDir?: string;
  /** Stories of the demo space (default 200, as `npm run example`). */
  stories?: number;
}

export interface RunningDevServer {
  server: ViteDevServer;
  /** The site, e.g. http://127.0.0.1:5173/ */
  url: string;
  /** The embedded Content Delivery Service, with its control plane under /__admin/. */
  serviceUrl: string;
  /** The service's tokens (they must not appear in any output). */
  tokens: string[];
  /** Where the generated content modules are. */
  modulesDir: string;
  close(): Promise<void>;
}

/** Renders every HTML request through src/entry-server.ts, after Vite's own middlewares. */
function renderPages(): Plugin {
  /** Pages refused already told of (each once, as content changes bring new ones). */
  const told = new Set<string>();
  return {
    name: 'example-site:render-pages',
    configureServer(server) {
      const tell = (entry: ServerEntry) => {
        for (const { message } of entry.refusedRoutes()) {
          if (told.has(message)) continue;
          told.add(message);
          server.config.logger.warn(`example-site: ${message}`);
        }
      };
      return () => {
        server.middlewares.use((req, res, next) => {
          if (req.method !== 'GET' && req.method !== 'HEAD') return next();
          // Appended to an origin, not resolved against one: `//` or `//host/x` would be another
          // host's URL (or none: Invalid URL, a 500).
          const pathname = new URL(`http://localhost${req.originalUrl ?? req.url ?? '/'}`).pathname;
          if (pathname.startsWith('/@') || /\.[a-z0-9]+$/i.test(pathname)) return next();
          void (async () => {
            try {
              const template = await server.transformIndexHtml(
                pathname,
                await fs.readFile(path.join(siteRoot, 'index.html'), 'utf8'),
                req.originalUrl,
              );
              const entry = (await server.ssrLoadModule('/src/entry-server.ts')) as ServerEntry;
              tell(entry);
              const page = await entry.render(pathname);
              res.statusCode = page.status;
              res.setHeader('content-type', 'text/html; charset=utf-8');
              res.setHeader('cache-control', 'no-store');
              res.end(req.method === 'HEAD' ? undefined : entry.fillTemplate(template, page));
            } catch (err) {
              if (err instanceof Error) server.ssrFixStacktrace(err);
              next(err);
            }
          })();
        });
      };
    },
  };
}

export async function startDevServer(options: DevServerOptions = {}): Promise<RunningDevServer> {
  const { config, content } = siteConfig({
    dev: true,
    ...(options.contentDir ? { contentDir: options.contentDir } : {}),
    ...(options.stories ? { stories: options.stories } : {}),
  });
  const server = await createServer({
    ...config,
    logLevel: options.logLevel ?? 'info',
    plugins: [...(config.plugins ?? []), renderPages()],
    server: {
      ...config.server,
      port: options.port ?? 5173,
      host: options.host ?? '127.0.0.1',
      strictPort: options.port !== undefined && options.port !== 0,
    },
  });
  await server.listen();
  const pipeline = content.api?.pipeline;
  const service = pipeline?.server;
  const url = server.resolvedUrls?.local[0];
  if (!pipeline || !service || !url) {
    await server.close();
    throw new Error('the dev server started without the embedded content service');
  }
  return {
    server,
    url,
    serviceUrl: service.url,
    tokens: [service.service.publicToken, service.service.previewToken],
    modulesDir: pipeline.modulesDir,
    close: () => server.close(),
  };
}
