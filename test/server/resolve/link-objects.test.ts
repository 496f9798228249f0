/**
 * `resolve_links=link` gives the link objects of the links endpoint. The space here is the one the
 * storyblok-ruby recordings come from (its stories, its folder as the links endpoint lists it), with
 * one more story that links to each of them; every link object must carry what the recorded links
 * endpoint says of that target.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { startServer, type RunningServer } from '../../../src/server/index.js';
import type { SpaceData } from '../../../src/snapshot/index.js';
import { describeRealdata, realdata } from '../../helpers/realdata.js';

type Link = Record<string, unknown> & { uuid: string };

const TOKEN = 'links-public';

function multilink(uuid: string): Record<string, unknown> {
  return { id: uuid, url: '', linktype: 'story', fieldtype: 'multilink', cached_url: '' };
}

describeRealdata('storyblok-ruby: link objects as the recorded links endpoint gives them', () => {
  const recorded = realdata<{ links: Record<string, Link> }>('storyblok-ruby/cdn-links.json').links;
  const drafts = realdata<{ stories: Story[] }>('storyblok-ruby/cdn-stories-draft.json').stories;
  const published = realdata<{ story: Story }>('storyblok-ruby/cdn-story-published.json').story;
  const folder = Object.values(recorded).find((l) => l.is_folder)!;
  const hub: Story = {
    ...published,
    id: 18409900,
    uuid: '0f0e0d0c-0b0a-4909-8807-060504030201',
    name: 'hub',
    slug: 'hub',
    full_slug: 'hub',
    content: {
      _uid: 'e1d2c3b4-a5f6-4789-8abc-def012345678',
      component: 'hub',
      links: Object.keys(recorded).map(multilink),
    },
  };
  let server: RunningServer;

  beforeAll(async () => {
    const space: SpaceData = {
      space: realdata('storyblok-ruby/cdn-space.json').space,
      stories: [...drafts, published, hub].map((s) => ({ id: s.id, uuid: s.uuid, published: { story: s } })),
      folders: [
        {
          id: folder.id as number,
          uuid: folder.uuid,
          name: folder.name as string,
          slug: folder.slug as string,
          full_slug: folder.slug as string,
          parent_id: 0,
          position: folder.position as number,
        },
      ],
      datasources: [],
      releases: [],
      workflowStages: [],
    };
    server = await startServer({ space, publicToken: TOKEN, rateLimit: false });
  });
  afterAll(() => server.close());

  it('v2 resolve_links=link: slug is the full slug, a folder is not published', async () => {
    const cv = realdata('storyblok-ruby/cdn-space.json').space.version;
    const res = await fetch(`${server.url}/v2/cdn/stories/hub?token=${TOKEN}&cv=${cv}&resolve_links=link`);
    const links = ((await res.json()) as { links: Link[] }).links;
    expect(links.map((l) => l.uuid).sort()).toEqual(Object.keys(recorded).sort());
    for (const link of links) {
      const real = recorded[link.uuid]!;
      const shared = Object.fromEntries(Object.keys(real).map((k) => [k, link[k]]));
      expect(shared, String(real.slug)).toEqual(real);
    }
  });
});
