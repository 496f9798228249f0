/**
 * Starts the real local service on a free loopback port for a test.
 */
import { startServer, type RunningServer, type ServiceOptions } from '../../src/server/index.js';
import { fixtureSpace } from './fixture-space.js';

export const PUBLIC = 'test-public';
export const PREVIEW = 'test-preview';

export interface TestServer extends RunningServer {
  /** GET a path (with query) and return status, headers and parsed JSON body. Redirects are not followed. */
  get(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** Same as get, with `token` (public by default) and the current `cv` added. */
  api(
    path: string,
    params?: Record<string, string>,
    token?: string,
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
}

export async function startTestServer(options: Partial<ServiceOptions> = {}): Promise<TestServer> {
  const server = await startServer({
    space: fixtureSpace(),
    publicToken: PUBLIC,
    previewToken: PREVIEW,
    rateLimit: false,
    ...options,
  });
  const get: TestServer['get'] = async (path, init) => {
    const res = await fetch(server.url + path, { redirect: 'manual', ...init });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, body, text };
  };
  const api: TestServer['api'] = (path, params = {}, token = PUBLIC) => {
    const q = new URLSearchParams({ token, ...params });
    if (!('cv' in params)) q.set('cv', String(server.service.store.space.version));
    return get(`${path}${path.includes('?') ? '&' : '?'}${q}`);
  };
  return Object.assign(server, { get, api });
}
