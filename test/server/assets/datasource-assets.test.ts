/**
 * An asset URL held by a datasource entry (an icon picked per entry) is delivered at the service's
 * own origin like a story's, so the service's CDN must serve it there too.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ space: generateDemoSpace({ stories: 10 }), admin: true, assetUrls: 'self' });
});
afterAll(() => server.close());

describe('asset URLs in datasource values', () => {
  it('serves the asset a datasource value names at the URL the service delivers for it, in every dimension', async () => {
    const origin = server.service.assets.catalog.origins()[0]!;
    const icon = `${origin}/f/287451/640x480/abcdef1234/icon.png`;
    const iconDe = `${origin}/f/287451/320x240/abcdef5678/icon-de.jpg`;
    const put = await fetch(`${server.url}/__admin/datasources/icons/entries`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        dimensions: [{ name: 'German', entry_value: 'de' }],
        entries: [{ name: 'star', value: icon, dimension_values: { de: iconDe } }],
      }),
    });
    expect(put.status).toBe(200);

    for (const [dimension, size] of [
      [undefined, [640, 480]],
      ['de', [320, 240]],
    ] as const) {
      const res = await server.api('/v2/cdn/datasource_entries', {
        datasource: 'icons',
        ...(dimension ? { dimension } : {}),
      });
      const entry = res.body.datasource_entries[0];
      const delivered: string = dimension ? entry.dimension_value : entry.value;
      expect(delivered.startsWith(server.url)).toBe(true);
      const file = await fetch(delivered);
      expect(file.status).toBe(200);
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual(size);
      expect((await fetch(`${delivered}/m/100x0`)).status).toBe(200);
    }
  });
});
