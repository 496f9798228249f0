/**
 * A build of the project while its dev server runs: the build borrows the dev server's service and
 * compiles into the same directory. An edit the build took before the dev server's own update did
 * still reaches the dev server's modules (that update then finds nothing left to write).
 */
import type { ViteDevServer } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOptions } from '../../src/vite/options.js';
import { ContentPipeline } from '../../src/vite/pipeline.js';
import {
  capturingLogger,
  clearContentEnv,
  devServer,
  embeddedService,
  project,
  publishTitle,
  removeDir,
  waitFor,
} from './support.js';

const OPTIONS = { embedded: { data: 'space', demo: { stories: 12 }, admin: true } };

describe('a build while the dev server runs', () => {
  let root: string | undefined;
  let server: ViteDevServer | undefined;
  afterEach(async () => {
    await server?.close();
    await removeDir(root);
  });

  it("leaves no module of the dev server stale when the build synced an edit before the server's update", async () => {
    clearContentEnv();
    root = await project('');
    // The dev server's update waits a moment after the webhook: the build syncs the edit first.
    ({ server } = await devServer(root, capturingLogger(), { ...OPTIONS, webhook: { secret: 's', coalesceMs: 800 } }));
    const { entries } = await server.ssrLoadModule('content:index');
    const id = (entries as Array<{ id: number; lang: string }>).find((e) => e.lang === 'default')!.id;
    const title = async () => (await server!.ssrLoadModule(`content:stories/${id}`)).default.content.title;
    await title();

    for (const edit of ['First edit', 'Second edit']) {
      await publishTitle(embeddedService(server), id, edit);
      const build = new ContentPipeline(parseOptions(OPTIONS), root, capturingLogger());
      try {
        await build.start({ borrow: true });
        expect(build.server).toBeUndefined();
        expect((await build.refresh()).compile.written.length).toBeGreaterThan(0);
      } finally {
        await build.close();
      }
      await waitFor(`the dev server to show "${edit}"`, async () => (await title()) === edit, 5_000);
    }
  }, 30_000);
});
