import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { rawRequest } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const cv = () => server.service.store.space.version;

describe('contract "Conventions": cross-origin resource sharing is supported', () => {
  it('contract "Conventions": CORS headers on a success, with Total and Per-Page exposed', async () => {
    const r = await server.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${cv()}`, {
      headers: { origin: 'https://site.example' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    expect(exposed).toContain('total');
    expect(exposed).toContain('per-page');
  });

  it('contract "Conventions": CORS headers on errors (301, 400, 401, 404, 405, 422)', async () => {
    const answers = [
      [301, await server.get(`/v2/cdn/stories?token=${PUBLIC}`)],
      [400, await server.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${cv()}`, { headers: { accept: 'text/xml' } })],
      [401, await server.get('/v2/cdn/stories')],
      [404, await server.get(`/v2/cdn/stories/none?token=${PUBLIC}&cv=${cv()}`)],
      [422, await server.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${cv()}&bogus=1`)],
    ] as const;
    for (const [status, r] of answers) {
      expect(r.status).toBe(status);
      expect(r.headers.get('access-control-allow-origin'), String(status)).toBe('*');
    }
    const post = await rawRequest(server.url, `/v2/cdn/stories?token=${PUBLIC}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers['access-control-allow-origin']).toBe('*');
  });

  it('contract "Conventions": an OPTIONS preflight is 204 and allows GET', async () => {
    const r = await rawRequest(server.url, '/v2/cdn/stories', {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example', 'access-control-request-method': 'GET' },
    });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-methods']).toMatch(/\bGET\b/);
    // The API only reads: a preflight does not promise methods it answers 405; nor does the control
    // plane when it is off (it answers 404).
    expect(r.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    const admin = await rawRequest(server.url, '/__admin/stories', {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example', 'access-control-request-method': 'POST' },
    });
    expect(admin.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
  });
});
