/**
 * sharp is an optional peer dependency. Without it, what needs it answers 501
 * naming the feature and the install line, and everything else still works.
 * The service is pointed at a module name that is not installed, so the real
 * loader fails as it would without sharp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetReferences } from '../../../src/api/assets.js';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { loadSharp } from '../../../src/server/assets/sharp.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const MISSING = 'sharp-is-not-installed-here';
const INSTALL = 'npm i -D sharp';

let server: TestServer;
let urls: string[];

beforeAll(async () => {
  server = await startTestServer({
    space: generateDemoSpace({ stories: 20 }),
    assetUrls: 'self',
    admin: true,
    imageLibrary: MISSING,
  });
  const { body } = await server.api('/v2/cdn/stories', { per_page: '100' });
  const stories = body.stories as Array<{ content: unknown }>;
  urls = [...new Set(stories.flatMap((s) => assetReferences(s.content).map((r) => r.url)))];
});
afterAll(() => server.close());

describe('the service without sharp', () => {
  it('answers 501 for the image service and raster stand-ins, naming the feature and the install line', async () => {
    const jpeg = urls.find((u) => /\.jpe?g$/.test(u))!;
    const resized = await fetch(`${jpeg}/m/200x0`);
    expect(resized.status).toBe(501);
    const body = (await resized.json()) as { error: string };
    expect(body.error).toContain('the image service (/m/) needs the image library sharp');
    expect(body.error).toContain('it is not installed');
    expect(body.error).toContain(INSTALL);

    const original = await fetch(jpeg);
    expect(original.status).toBe(501);
    expect(((await original.json()) as { error: string }).error).toMatch(/stand-ins .* needs the image library sharp/);
  });

  it('still serves SVGs, documents and the API, and refuses raster uploads with 501', async () => {
    for (const ext of ['.svg', '.pdf']) {
      const url = urls.find((u) => u.endsWith(ext))!;
      expect((await fetch(url)).status, url).toBe(200);
      expect((await fetch(`${url}/m/100x100`)).status, url).toBe(200);
    }
    expect((await server.api('/v2/cdn/stories', { per_page: '1' })).status).toBe(200);
    const upload = await fetch(`${server.url}/__admin/assets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'new.png', data: Buffer.from('not really a png').toString('base64') }),
    });
    expect(upload.status).toBe(501);
    expect(((await upload.json()) as { error: string }).error).toContain(
      `adding an image through the control plane needs the image library sharp, an optional peer dependency, and it is not installed: ${INSTALL}`,
    );
  });

  it('the loader loads sharp when it is there, and says so when a module by that name cannot be found', async () => {
    expect(typeof (await loadSharp('a test'))).toBe('function');
    await expect(loadSharp('resizing at build time', MISSING)).rejects.toThrow(
      `resizing at build time needs the image library sharp, an optional peer dependency, and it is not installed: ${INSTALL}`,
    );
  });
});
