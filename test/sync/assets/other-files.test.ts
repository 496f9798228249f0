/**
 * A space holds more than images and PDFs (a video, an archive, a Word file). The local service
 * serves a stand-in for each, as it does for images, without the image library, so a sync that
 * downloads the space's assets from it (a synced snapshot served as a test double) goes through.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startServer, type RunningServer, type ServiceOptions } from '../../../src/server/index.js';
import { readAssetIndex } from '../../../src/snapshot/index.js';
import { sync } from '../../../src/sync/index.js';
import { removeTempDirs, tempDir, unpaced } from '../support.js';

const PUBLIC = 'other-files-public';
const NAMES = ['clip.mp4', 'bundle.zip', 'brief.docx', 'feed.json', 'LICENSE'];
const servers: RunningServer[] = [];

/** The demo space with one story's content also naming files of other kinds. */
function spaceWithFiles() {
  const space = generateDemoSpace({ stories: 10 });
  const record = space.stories.find((s) => s.published)!;
  const origin = 'https://a.demo-assets.invalid';
  (record.published!.story.content as Record<string, unknown>).downloads = NAMES.map(
    (name, i) => `${origin}/f/${space.space.id}/0x0/0ther${i}/${name}`,
  );
  return space;
}

async function serve(options: Partial<ServiceOptions> = {}): Promise<RunningServer> {
  const server = await startServer({
    space: spaceWithFiles(),
    rateLimit: false,
    publicToken: PUBLIC,
    assetUrls: 'self',
    ...options,
  });
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

describe('assets that are neither images nor PDFs', () => {
  it('are served, the same bytes each time, without the image library', async () => {
    const server = await serve({ imageLibrary: 'sharp-is-not-installed-here' });
    for (const [i, name] of NAMES.entries()) {
      const url = `${server.url}/f/287451/0x0/0ther${i}/${name}`;
      const first = await fetch(url);
      expect(first.status, name).toBe(200);
      const bytes = Buffer.from(await first.arrayBuffer());
      expect(bytes.length).toBeGreaterThan(0);
      expect(Buffer.from(await (await fetch(url)).arrayBuffer())).toEqual(bytes);
      if (name.endsWith('.json')) expect(() => JSON.parse(bytes.toString())).not.toThrow();
    }
  });

  it('are downloaded by a sync with assets from the service', async () => {
    const server = await serve();
    const out = await tempDir();
    await sync({ baseUrl: server.url, token: PUBLIC, out, ...unpaced(), assets: { minBackoffMs: 10 } });
    const index = await readAssetIndex(out);
    for (const [i, name] of NAMES.entries())
      expect(index!.files[`/f/287451/0x0/0ther${i}/${name}`], name).toBeDefined();
  });
});
