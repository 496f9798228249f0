/**
 * The packed package inside real framework apps (test/fixtures): a create-vite
 * React app, an Astro app and a SvelteKit app, each installed from the npm
 * registry with the `npm pack` tarball, then: `content-sync prepare`, the
 * framework's own typecheck, its build, a built page in Chromium showing the
 * content, and an open dev page updating after the local service posts a
 * signed webhook for a change published through its control plane.
 *
 * Astro 6 and SvelteKit 3 need Node 22: on an older Node these run under
 * $CONTENT_SYNC_NODE22 (see requirements.ts), and are skipped without it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { admin, launchBrowser, serveStatic, waitFor } from '../e2e/support.js';
import { installFixture, packRepository, type FixtureApp } from './fixture-app.js';
import { freePort, startDevServer, type DevServer } from './processes.js';
import { chromium, nodeAtLeast, shouldRun } from './requirements.js';

interface Framework {
  /** The directory under test/fixtures. */
  fixture: string;
  /** The oldest Node major the framework runs on. */
  node: number;
  /** The framework's own typecheck, run after the types exist. */
  typecheck: Command[];
  build: Command;
  /** Where the build writes the static site. */
  outDir: string;
  /** The dev server on loopback at `port` (Astro takes no port 0). */
  dev: (port: number) => Command;
  /**
   * A content change reaches the open page without reloading it (React Fast Refresh re-runs the
   * module that imports the content); pages rendered on the server are reloaded instead.
   */
  hotUpdate: boolean;
}

/** A binary of the app's node_modules/.bin and its arguments. */
type Command = [bin: string, args: string[]];

const FRAMEWORKS: Framework[] = [
  {
    fixture: 'react',
    node: 20,
    typecheck: [['tsc', ['-b']]],
    build: ['vite', ['build']],
    outDir: 'dist',
    dev: (port) => ['vite', ['--host', '127.0.0.1', '--port', String(port), '--strictPort']],
    hotUpdate: true,
  },
  {
    fixture: 'astro',
    node: 22,
    typecheck: [['astro', ['check']]],
    build: ['astro', ['build']],
    outDir: 'dist',
    dev: (port) => ['astro', ['dev', '--host', '127.0.0.1', '--port', String(port)]],
    hotUpdate: false,
  },
  {
    fixture: 'sveltekit',
    node: 22,
    typecheck: [
      ['svelte-kit', ['sync']],
      ['svelte-check', ['--tsconfig', './tsconfig.json']],
    ],
    build: ['vite', ['build']],
    outDir: 'build',
    dev: (port) => ['vite', ['dev', '--host', '127.0.0.1', '--port', String(port), '--strictPort']],
    hotUpdate: false,
  },
];

const WEBHOOK_PATH = '/__content-sync/webhook';

/** The Vite packages in an app: at the top of its node_modules, or inside a package there (Astro 6's own Vite 7). */
async function installedVites(dir: string): Promise<string[]> {
  const top = path.join(dir, 'node_modules');
  const packages: string[] = [];
  for (const entry of await fs.readdir(top, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const at = path.join(top, entry.name);
    if (entry.name.startsWith('@')) for (const name of await fs.readdir(at)) packages.push(path.join(at, name));
    else packages.push(at);
  }
  const vites = [path.join(top, 'vite'), ...packages.map((p) => path.join(p, 'node_modules', 'vite'))];
  return vites.filter((vite) => existsSync(path.join(vite, 'package.json')));
}

/** The tarball, packed once for every framework of this file. */
let tarball: Promise<string> | undefined;
let browser: Promise<Browser> | undefined;

afterAll(async () => {
  await (await browser?.catch(() => undefined))?.close();
  const packed = await tarball?.catch(() => undefined);
  if (packed) await fs.rm(path.dirname(packed), { recursive: true, force: true });
});

for (const framework of FRAMEWORKS) {
  const node = nodeAtLeast(framework.node);
  describe.runIf(shouldRun(`${framework.fixture} fixture`, node, chromium()))(
    `the packed package in the ${framework.fixture} fixture`,
    () => {
      let service: RunningServer;
      let app: FixtureApp;
      const publicToken = randomBytes(8).toString('hex');
      const secret = randomBytes(8).toString('hex');
      /** Names of the published articles of the default language, as the service delivers them. */
      let articles: string[];

      beforeAll(async () => {
        service = await startServer({
          space: generateDemoSpace({ stories: 20 }),
          publicToken,
          previewToken: randomBytes(8).toString('hex'),
          rateLimit: false,
          admin: true,
        });
        const res = await fetch(
          `${service.url}/v2/cdn/stories?token=${publicToken}&per_page=100&filter_query[component][in]=article&cv=${service.service.store.space.version}`,
        );
        articles = ((await res.json()) as { stories: Array<{ name: string }> }).stories.map((s) => s.name).sort();
        expect(articles.length).toBeGreaterThan(0);
        tarball ??= packRepository(process.execPath);
        app = await installFixture(framework.fixture, await tarball, node.binary!, {
          CONTENT_BASE_URL: service.url,
          CONTENT_TOKEN: publicToken,
          CONTENT_WEBHOOK_SECRET: secret,
          ASTRO_TELEMETRY_DISABLED: '1',
        });
      }, 900_000);

      afterAll(async () => {
        await app?.release();
        await service?.close();
      });

      it("installs one Vite, the framework's: the package's peer adds none beside it", async () => {
        expect(await installedVites(app.dir)).toEqual([expect.stringContaining('vite')]);
      });

      it('writes the modules and their types with content-sync prepare, before any build', async () => {
        const printed = await app.bin('content-sync', ['prepare']);
        expect(printed).toMatch(
          /content-sync prepare: \d+ stories ready in \.content \(full sync\); types: \.content\/content\.d\.ts/,
        );
        expect(existsSync(path.join(app.dir, '.content', 'content.d.ts'))).toBe(true);
      }, 300_000);

      it('passes its own typecheck over the generated types', async () => {
        for (const command of framework.typecheck) await app.bin(...command);
      }, 300_000);

      it('builds with the content synced from the service', async () => {
        await app.bin(...framework.build);
      }, 300_000);

      it('serves a built page that shows the content in Chromium', async () => {
        const site = await serveStatic(path.join(app.dir, framework.outDir));
        const page = await (await (browser ??= launchBrowser())).newPage();
        try {
          await page.goto(`${site.url}/`);
          await waitFor('the home title', async () => (await page.locator('main > h1').textContent()) === 'Welcome');
          const listed = await page.locator('#articles > li').allTextContents();
          expect(listed.sort()).toEqual(articles);
        } finally {
          await page.close();
          await site.close();
        }
      }, 120_000);

      it('updates an open dev page after the service posts a signed webhook', async () => {
        let dev: DevServer | undefined;
        const page = await (await (browser ??= launchBrowser())).newPage();
        try {
          const [bin, args] = framework.dev(await freePort());
          dev = await startDevServer(app.binPath(bin), args, { cwd: app.dir, env: app.env });
          // The service signs every change to published content with the secret the dev server has.
          service.service.setWebhook({ url: `${dev.url}${WEBHOOK_PATH}`, secret });
          // A page rendered on the server shows its title before Vite's client connects; a change
          // sent before that would reach no one.
          const connected = page.waitForEvent('console', {
            predicate: (m) => m.text().includes('[vite] connected'),
            timeout: 60_000,
          });
          await page.goto(`${dev.url}/`);
          await waitFor(
            'the home title on the dev page',
            async () => (await page.locator('main > h1').textContent()) === 'Welcome',
            60_000,
          );
          await connected;
          // Gone if the page is reloaded.
          await page.evaluate(() => Object.assign(window, { beforeTheChange: true }));

          const home = (await fetch(
            `${service.url}/v2/cdn/stories/home?token=${publicToken}&cv=${service.service.store.space.version}`,
          ).then((r) => r.json())) as { story: { id: number } };
          const title = `Edited ${randomBytes(4).toString('hex')}`;
          await admin(service.url, 'PUT', `stories/${home.story.id}`, { content: { title } });
          await admin(service.url, 'POST', `stories/${home.story.id}/publish`);

          await waitFor(
            'the open page to show the new title',
            async () =>
              (await page
                .locator('main > h1')
                .textContent()
                .catch(() => null)) === title,
            60_000,
          ).catch((err: Error) => {
            throw new Error(`${err.message}\ndev server output:\n${dev?.output()}`);
          });
          const kept = await page.evaluate(() => 'beforeTheChange' in window);
          expect(kept, 'whether the page was updated in place (not reloaded)').toBe(framework.hotUpdate);
        } finally {
          service.service.setWebhook(undefined);
          await page.close();
          await dev?.close();
        }
      }, 180_000);
    },
  );
}
