/**
 * A dev server of the draft view over the embedded service with its control plane: a draft saved,
 * created or moved without publishing posts no webhook (the real service posts none), and still
 * reaches the page; a reload of the space directory takes out drafts only the control plane made.
 * A real Vite dev server, the real service in process, real files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  capturingLogger,
  clearContentEnv,
  devServer,
  embeddedService,
  project,
  removeDir,
  waitFor,
  type CapturingLogger,
} from './support.js';

interface Entry {
  id: number;
  lang: string;
  name: string;
  full_slug: string;
}

describe('a dev server of the draft view, over the embedded service', () => {
  let root: string;
  let logger: CapturingLogger;
  let server: ViteDevServer;

  const entries = async (): Promise<Entry[]> =>
    ((await server.ssrLoadModule('content:index')) as { entries: Entry[] }).entries.filter((e) => e.lang === 'default');
  const entryOf = async (id: number) => (await entries()).find((e) => e.id === id);

  beforeAll(async () => {
    clearContentEnv();
    root = await project('export {};\n');
    logger = capturingLogger();
    ({ server } = await devServer(root, logger, {
      version: 'draft',
      embedded: { data: 'space', demo: { stories: 20 }, admin: true },
    }));
    await server.ssrLoadModule('content:index');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await removeDir(root);
  });

  it('shows a draft saved, a draft created and a draft moved, none of them published', async () => {
    const service = embeddedService(server);
    const page = (await entries()).find((e) => !e.full_slug.endsWith('/'))!;
    await admin(service, 'PUT', `stories/${page.id}`, { name: 'Saved, not published' });
    await waitFor('the saved draft', async () => (await entryOf(page.id))?.name === 'Saved, not published');

    const { story } = await admin<{ story: { id: number } }>(service, 'POST', 'stories', {
      name: 'Only a draft',
      slug: 'only-a-draft',
      content: { component: 'page', title: 'Only a draft' },
    });
    await waitFor('the created draft', async () => (await entryOf(story.id))?.full_slug === 'only-a-draft');

    await admin(service, 'PUT', `stories/${story.id}`, { slug: 'only-a-draft-moved' });
    await waitFor('the moved draft', async () => (await entryOf(story.id))?.full_slug === 'only-a-draft-moved');
    expect(logger.text('error')).toBe('');
  }, 60_000);

  it('takes out, when the space directory is reloaded, the drafts only the control plane made', async () => {
    const service = embeddedService(server);
    const { story } = await admin<{ story: { id: number } }>(service, 'POST', 'stories', {
      name: 'Gone with the reload',
      slug: 'gone-with-the-reload',
      content: { component: 'page', title: 'Gone with the reload' },
    });
    await waitFor('the created draft', async () => (await entryOf(story.id)) !== undefined);
    // An edit of the directory (as by hand): the service starts again over it, without that draft.
    const space = path.join(root, 'space', 'space.json');
    const text = await fs.readFile(space, 'utf8');
    await fs.writeFile(space, `${text.trimEnd()}\n\n`);
    await waitFor('the reload to take the draft out', async () => (await entryOf(story.id)) === undefined);
    expect(logger.text('error')).toBe('');
  }, 60_000);
});
