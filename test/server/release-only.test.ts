/**
 * A story created in a release exists only there until the release is merged: `from_release`
 * delivers it, no view does without it. The control plane takes it as the story it is: it moves
 * with its folder, keeps its slug and its folder taken, and refuses (422, not a 500) the draft
 * changes it cannot make to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PREVIEW, startTestServer, type TestServer } from '../helpers/server.js';

const ID = 30;
const UUID = '00000000-0000-4000-8000-000000000030';

/** The fixture space with story 30 (spring/staged, alone in its folder) in release 7 only. */
function spaceWithReleaseOnlyStory() {
  const space = fixtureSpace();
  const staged = structuredClone(space.stories.find((r) => r.id === 13)!.releases!['7']!);
  Object.assign(staged.story, {
    id: ID,
    uuid: UUID,
    name: 'Staged',
    slug: 'staged',
    full_slug: 'spring/staged',
    parent_id: 6,
    published_at: null,
    first_published_at: null,
  });
  space.folders.push({
    id: 6,
    uuid: '00000000-0000-4000-8000-000000000006',
    name: 'Spring',
    slug: 'spring',
    full_slug: 'spring',
    parent_id: 0,
    position: 4,
  });
  space.stories.push({ id: ID, uuid: UUID, published: null, draft: null, releases: { '7': staged } });
  return space;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ space: spaceWithReleaseOnlyStory(), admin: true });
});
afterAll(() => server.close());

function admin(method: string, route: string, body?: unknown) {
  return server.get(`/__admin${route}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
}
const inRelease = (slug: string) => server.api(`/v2/cdn/stories/${slug}`, { from_release: '7' });

describe('a story only in a release', () => {
  it('is delivered from its release only', async () => {
    expect((await inRelease('spring/staged')).body.story).toMatchObject({ id: ID, release_id: 7 });
    expect((await server.api('/v2/cdn/stories/spring/staged', { version: 'draft' }, PREVIEW)).status).toBe(404);
  });

  it('is refused the changes of a draft with a 422 that says why, and listed', async () => {
    for (const [method, route, body] of [
      ['PUT', `/stories/${ID}`, { name: 'Edited' }],
      ['POST', `/stories/${ID}/publish`, undefined],
      ['POST', `/stories/${ID}/unpublish`, undefined],
    ] as const) {
      const answer = await admin(method, route, body);
      expect(answer.status, `${method} ${route}`).toBe(422);
      expect(answer.body.error).toMatch(/only in release 7/);
    }
    const listed = (await admin('GET', '/stories')).body.stories.find((s: { id: number }) => s.id === ID);
    expect(listed).toMatchObject({ full_slug: 'spring/staged', published: false });
  });

  it('keeps its slug taken and its folder not empty', async () => {
    const taken = await admin('POST', '/stories', { name: 'Other', slug: 'staged', parent_id: 6 });
    expect(taken.status).toBe(422);
    expect(taken.body.error).toMatch(/already taken/);
    const emptied = await admin('DELETE', '/stories/6');
    expect(emptied.status).toBe(422);
    expect(emptied.body.error).toMatch(/not empty/);
  });

  it('moves with its folder, and is deleted', async () => {
    expect((await admin('PUT', '/stories/6', { slug: 'summer' })).status).toBe(200);
    expect((await inRelease('summer/staged')).body.story).toMatchObject({ id: ID, full_slug: 'summer/staged' });
    expect((await inRelease('spring/staged')).status).toBe(404);
    expect((await admin('DELETE', `/stories/${ID}`)).status).toBe(200);
    expect((await admin('GET', `/stories/${ID}`)).status).toBe(404);
    // Gone without a new cache version (nothing published changed): the CDN does not answer for it.
    expect((await inRelease('summer/staged')).status).toBe(404);
    expect((await server.api('/v2/cdn/stories', { from_release: '7' })).body.stories).not.toContainEqual(
      expect.objectContaining({ id: ID }),
    );
    expect((await admin('DELETE', '/stories/6')).status).toBe(200);
  });
});
