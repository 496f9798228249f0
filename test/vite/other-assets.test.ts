/**
 * With assets: 'download', every asset URL in the modules becomes an import of the snapshot's file,
 * whatever its kind: an archive, a JSON file or a file stored as .bin is emitted as an asset of the
 * build and its URL given, as an image is (Vite read them as modules: a zip failed the build, a
 * JSON file became an object).
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { contentSync } from '../../src/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { clearContentEnv, project, removeDir } from './support.js';

const NAMES = ['bundle.zip', 'feed.json', 'brief.docx', 'clip.mp4'];
const ENTRY = `
import { entries, load } from 'content:index';
export async function downloads() {
  for (const e of entries) {
    const story = await load(e);
    if (story.content.downloads) return story.content.downloads;
  }
}
`;

let server: RunningServer;
let root: string;

beforeAll(async () => {
  clearContentEnv();
  const space = generateDemoSpace({ stories: 10 });
  const record = space.stories.find((s) => s.published)!;
  (record.published!.story.content as Record<string, unknown>).downloads = NAMES.map(
    (name, i) => `https://a.demo-assets.invalid/f/${space.space.id}/0x0/0ther${i}/${name}`,
  );
  server = await startServer({ space, rateLimit: false, publicToken: 'other-assets', assetUrls: 'self' });
  root = await project('');
  await fs.writeFile(path.join(root, 'entry.js'), ENTRY);
});
afterAll(async () => {
  await server?.close();
  await removeDir(root);
});

describe('localized assets that are neither images nor documents Vite knows', () => {
  it('are emitted as files of the build, each module holding its URL', async () => {
    await build({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [contentSync({ baseUrl: server.url, token: 'other-assets', assets: 'download' })],
      build: {
        ssr: 'entry.js',
        ssrEmitAssets: true,
        outDir: 'dist',
        emptyOutDir: true,
        rolldownOptions: { output: { entryFileNames: 'entry.js' } },
      },
    });
    const bundle = (await import(pathToFileURL(path.join(root, 'dist/entry.js')).href)) as {
      downloads(): Promise<unknown[]>;
    };
    const urls = await bundle.downloads();
    expect(urls).toHaveLength(NAMES.length);
    for (const [i, url] of urls.entries()) {
      expect(url, NAMES[i]).toMatch(/^\/assets\/[0-9a-f]{64}-[\w-]+\.(zip|json|bin|mp4)$/);
      expect(existsSync(path.join(root, 'dist', url as string))).toBe(true);
    }
  });
});
