/**
 * `resolve_links=link` says whether each target is published. In the draft
 * view a link can reach a story that has no published version (never
 * published, or unpublished since): the links endpoint, whose routing
 * properties these are, reports such a story `published: false` (the
 * recorded real answer storyblok-ruby/cdn-links.json mirrors each story's
 * state), and the published view does not show it at all (contract
 * "Versioning": a story that has not been published is absent from it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, startTestServer, type TestServer } from '../../helpers/server.js';
import { admin as adminAt } from '../../sync/support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ admin: true });
});
afterAll(() => server.close());

const admin = (method: string, route: string, body?: unknown) => adminAt(server.url, method, route, body);
const link = (uuid: string) => ({ fieldtype: 'multilink', linktype: 'story', id: uuid, url: '', cached_url: '' });

describe('resolve_links=link: published', () => {
  it('is false for a target with no published version, in the draft view, and true for a published one', async () => {
    const { story: draftOnly } = await admin('POST', '/stories', {
      name: 'Draft only',
      slug: 'draft-only-target',
      parent_id: 0,
      content: { component: 'page' },
    });
    const { story: published } = await admin('POST', '/stories', {
      name: 'Published',
      slug: 'published-target',
      parent_id: 0,
      content: { component: 'page' },
    });
    await admin('POST', `/stories/${published.id}/publish`);
    const { story: withdrawn } = await admin('POST', '/stories', {
      name: 'Withdrawn',
      slug: 'withdrawn-target',
      parent_id: 0,
      content: { component: 'page' },
    });
    await admin('POST', `/stories/${withdrawn.id}/publish`);
    await admin('POST', `/stories/${withdrawn.id}/unpublish`);
    const { story: holder } = await admin('POST', '/stories', {
      name: 'Holder',
      slug: 'link-holder',
      parent_id: 0,
      content: { component: 'page', a: link(draftOnly.uuid), b: link(published.uuid), c: link(withdrawn.uuid) },
    });
    await admin('POST', `/stories/${holder.id}/publish`);

    const draft = await server.api('/v2/cdn/stories/link-holder', { version: 'draft', resolve_links: 'link' }, PREVIEW);
    expect(draft.status).toBe(200);
    const byUuid = new Map(draft.body.links.map((l: { uuid: string; published: boolean }) => [l.uuid, l.published]));
    expect(byUuid).toEqual(
      new Map([
        [draftOnly.uuid, false],
        [published.uuid, true],
        [withdrawn.uuid, false],
      ]),
    );

    // The published view links only to what it shows, all published.
    const live = await server.api('/v2/cdn/stories/link-holder', { resolve_links: 'link' });
    expect(live.body.links.map((l: { uuid: string; published: boolean }) => [l.uuid, l.published])).toEqual([
      [published.uuid, true],
    ]);
  });
});
