import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../../helpers/server.js';
import { SPACE_VERSION } from '../../helpers/fixture-space.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('contract "GET /v1/cdn/spaces/me/"', () => {
  it('contract "Space": { space } with id, name, domain, version, language_codes (v1, with and without trailing slash)', async () => {
    for (const path of ['/v1/cdn/spaces/me', '/v1/cdn/spaces/me/']) {
      const r = await server.get(`${path}?token=${PUBLIC}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        space: {
          id: 4242,
          name: 'Fixture space',
          domain: 'https://fixture.example.com/',
          version: SPACE_VERSION,
          language_codes: ['de'],
        },
      });
    }
  });

  it('contract "GET /v1/cdn/spaces/me/": version 2 responses also hold cv, equal to space.version', async () => {
    const r = await server.get(`/v2/cdn/spaces/me/?token=${PREVIEW}`);
    expect(r.status).toBe(200);
    expect(r.body.cv).toBe(SPACE_VERSION);
    expect(r.body.space.version).toBe(SPACE_VERSION);
  });

  it('contract "Versioning" 3: space.version used as cv answers v2 stories without a redirect', async () => {
    const me = await server.get(`/v1/cdn/spaces/me?token=${PUBLIC}`);
    const r = await server.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${me.body.space.version}`);
    expect(r.status).toBe(200);
    expect(r.body.cv).toBe(me.body.space.version);
  });

  it('contract "Authentication": the token decides the space; spaces/me needs one', async () => {
    const r = await server.get('/v2/cdn/spaces/me');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'Unauthorized' });
  });
});
