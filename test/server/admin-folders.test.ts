import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

const admin = (method: string, path: string, body?: unknown) =>
  server.get(`/__admin${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });

describe('control plane: the story list', () => {
  beforeEach(async () => {
    server = await startTestServer({ admin: true });
  });
  afterEach(async () => {
    await server.close();
  });

  it('lists folders too, with is_folder: the ids a story is moved into or a folder renamed by', async () => {
    const made = await admin('POST', '/stories', { name: 'Guides', slug: 'guides', is_folder: true });
    expect(made.status).toBe(201);
    const list = await admin('GET', '/stories');
    const folders = (list.body.stories as Array<{ id: number; full_slug: string; is_folder: boolean }>).filter(
      (s) => s.is_folder,
    );
    expect(folders.map((f) => f.full_slug)).toContain('guides');
    expect(folders.find((f) => f.full_slug === 'guides')?.id).toBe(made.body.story.id);
    // The fixture's own folders are there as well.
    expect(folders.length).toBeGreaterThan(1);
  });

  it('a folder by id: GET gives it, publish and unpublish say it is a folder, not that it does not exist', async () => {
    const made = await admin('POST', '/stories', { name: 'Guides', slug: 'guides', is_folder: true });
    const id = made.body.story.id;
    const got = await admin('GET', `/stories/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.folder).toMatchObject({ id, full_slug: 'guides' });
    for (const action of ['publish', 'unpublish']) {
      const a = await admin('POST', `/stories/${id}/${action}`);
      expect(a.status, action).toBe(422);
      expect(a.body.error).toMatch(/is a folder/);
    }
    expect((await admin('GET', '/stories/99999999')).status).toBe(404);
  });
});
