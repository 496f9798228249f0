/**
 * A snapshot synced with its assets (`sync --assets`), served as a local mirror: its asset URLs
 * answer the files the snapshot holds, the bytes the service it was synced from served, not
 * stand-ins the mirror draws. A real service whose asset was given its own bytes, a real sync.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { readAssetIndex } from '../../src/snapshot/index.js';
import { readSpaceDirectory } from '../../src/snapshot/read.js';
import { sync } from '../../src/sync/index.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';

const PUBLIC = 'mirror-assets-public';
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await removeTempDirs();
});

async function serve(space: Parameters<typeof startServer>[0]['space'], adminOn = false): Promise<RunningServer> {
  const server = await startServer({ space, rateLimit: false, publicToken: PUBLIC, assetUrls: 'self', admin: adminOn });
  servers.push(server);
  return server;
}

async function bytesAt(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('a snapshot synced with its assets, served', () => {
  it('answers its asset URLs with the files it holds, and renditions are made from them', async () => {
    const origin = await serve(generateDemoSpace({ stories: 20 }), true);
    const out = await tempDir('mirror-assets');
    const run = (full = false) =>
      sync({ baseUrl: origin.url, token: PUBLIC, out, full, ...unpaced(), assets: { minBackoffMs: 10 } });
    await run();
    const [assetPath, held] = Object.entries((await readAssetIndex(out))!.files).find(
      ([, f]) => f.type === 'image/png',
    )!;
    // The asset's own bytes, as a real space's are: a red square of the URL's size, which no stand-in is.
    const red = await sharp({
      create: { width: held.width, height: held.height, channels: 3, background: '#ff0000' },
    })
      .png()
      .toBuffer();
    const { id } = origin.service.assets.catalog.get(assetPath)!;
    await admin(origin.url, 'PUT', `/assets/${id}`, { data: red.toString('base64') });
    await run(true);
    expect(await bytesAt(`${origin.url}${assetPath}`)).toEqual(red);

    const mirror = await serve(await readSpaceDirectory(out));
    expect(await bytesAt(`${mirror.url}${assetPath}`)).toEqual(red);
    const thumb = await bytesAt(`${mirror.url}${assetPath}/m/20x20/filters:format(png)`);
    const { data } = await sharp(thumb).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([255, 0, 0]);
  });
});
