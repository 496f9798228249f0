import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { uuidOf } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ admin: true });
});
afterAll(() => server.close());

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}/__admin${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBeLessThan(300);
  return res.json();
}

async function createPublished(
  name: string,
  slug: string,
  content: Record<string, unknown>,
): Promise<{ id: number; uuid: string }> {
  const { story } = await admin('POST', '/stories', { name, slug, parent_id: 0, content });
  await admin('POST', `/stories/${story.id}/publish`);
  return { id: story.id, uuid: story.uuid };
}

const idsOf = (list: Array<{ id: number }>) => list.map((s) => s.id);

describe('contract "resolve_relations" (version 2: top-level rels)', () => {
  it('notes "Relations and links": content keeps the uuid; the related story is in rels', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post', { resolve_relations: 'article.author' });
    expect(r.status).toBe(200);
    expect(r.body.story.content.author).toBe(uuidOf(16));
    expect(idsOf(r.body.rels)).toEqual([16]);
    expect(r.body.rels[0].uuid).toBe(uuidOf(16));
    expect(r.body.rels[0].content.name).toBe('Jane Doe');
    expect(r.body).not.toHaveProperty('rel_uuids');
  });

  it('contract "Versioning": rels of a list are unique by uuid; multi-option relations resolve every uuid', async () => {
    const list = await server.api('/v2/cdn/stories', { starts_with: 'blog/', resolve_relations: 'article.author' });
    expect(idsOf(list.body.rels)).toEqual([16, 17]);
    const home = await server.api('/v2/cdn/stories/home', { resolve_relations: 'page.featured' });
    expect(home.body.story.content.featured).toEqual([uuidOf(12), uuidOf(13)]);
    expect(idsOf(home.body.rels)).toEqual([12, 13]);
  });

  it('contract "resolve_relations": several comma-separated component.field entries', async () => {
    const r = await server.api('/v2/cdn/stories', {
      resolve_relations: 'article.author,author.articles',
      by_slugs: 'blog/second-post,authors/jane',
    });
    expect(idsOf(r.body.rels).sort((a, b) => a - b)).toEqual([12, 14, 17]);
  });

  it('contract "Limits": v2 resolves up to 50 referenced stories; the remaining uuids are in rel_uuids', async () => {
    const targets: Array<{ id: number; uuid: string }> = [];
    for (let i = 0; i < 55; i++)
      targets.push(await createPublished(`Target ${i}`, `rel-target-${i}`, { component: 'page', title: `T${i}` }));
    const uuids = targets.map((t) => t.uuid);
    const link = (uuid: string) => ({
      fieldtype: 'multilink',
      linktype: 'story',
      id: uuid,
      url: '',
      cached_url: 'stale',
    });
    await createPublished('Holder', 'rel-holder', {
      component: 'holder',
      refs: uuids,
      links: uuids.map((u) => ({ component: 'item', link: link(u) })),
    });

    const rels = await server.api('/v2/cdn/stories/rel-holder', { resolve_relations: 'holder.refs' });
    expect(rels.status).toBe(200);
    expect(rels.body.rels.map((s: { uuid: string }) => s.uuid)).toEqual(uuids.slice(0, 50));
    // The remaining uuids are listed (the service may list the resolved ones too).
    expect(rels.body.rel_uuids).toEqual(expect.arrayContaining(uuids.slice(50)));
    expect(uuids).toEqual(expect.arrayContaining(rels.body.rel_uuids));
    expect(rels.body.story.content.refs).toEqual(uuids);

    const links = await server.api('/v2/cdn/stories/rel-holder', { resolve_links: 'story' });
    expect(links.body.links.map((s: { uuid: string }) => s.uuid)).toEqual(uuids.slice(0, 50));
    expect(links.body.link_uuids).toEqual(expect.arrayContaining(uuids.slice(50)));
    expect(uuids).toEqual(expect.arrayContaining(links.body.link_uuids));

    const urls = await server.api('/v2/cdn/stories/rel-holder', { resolve_links: 'url' });
    expect(urls.body.links).toHaveLength(55);
    expect(urls.body).not.toHaveProperty('link_uuids');
  });
});

describe('contract "resolve_links" (version 2: top-level links)', () => {
  it('contract "resolve_links": url gives {id, uuid, name, slug, full_slug, url}; the multilink stays as it is', async () => {
    const r = await server.api('/v2/cdn/stories/home', { resolve_links: 'url' });
    expect(r.body.links).toEqual([
      {
        id: 12,
        uuid: uuidOf(12),
        name: 'First post',
        slug: 'first-post',
        full_slug: 'blog/first-post',
        url: 'blog/first-post',
      },
    ]);
    expect(r.body.story.content.cta).toEqual({
      fieldtype: 'multilink',
      linktype: 'story',
      id: uuidOf(12),
      url: '',
      cached_url: 'blog/old-first-post',
    });
  });

  it('contract "resolve_links": story gives the full story object', async () => {
    const r = await server.api('/v2/cdn/stories/home', { resolve_links: 'story' });
    expect(r.body.links).toHaveLength(1);
    expect(r.body.links[0].id).toBe(12);
    expect(r.body.links[0].full_slug).toBe('blog/first-post');
    expect(r.body.links[0].content.title).toBe('Alpha news');
  });

  it('contract "resolve_links": link (v2) gives routing properties such as translated slugs', async () => {
    const r = await server.api('/v2/cdn/stories/home', { resolve_links: 'link' });
    expect(r.body.links).toHaveLength(1);
    const link = r.body.links[0];
    expect(link).toMatchObject({
      id: 12,
      uuid: uuidOf(12),
      slug: 'blog/first-post',
      full_slug: 'blog/first-post',
      name: 'First post',
      is_folder: false,
      parent_id: 1,
      is_startpage: false,
    });
    expect(link.translated_slugs).toEqual([{ path: 'blog/erster-beitrag', name: 'First post', lang: 'de' }]);
  });

  it('notes "Relations and links": internal link marks inside rich text are resolved too', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post', { resolve_links: 'url' });
    expect(r.body.links).toEqual([
      {
        id: 13,
        uuid: uuidOf(13),
        name: 'Second post',
        slug: 'second-post',
        full_slug: 'blog/second-post',
        url: 'blog/second-post',
      },
    ]);
  });

  it('contract "Versioning": without resolve parameters rels and links are empty arrays', async () => {
    const r = await server.api('/v2/cdn/stories/home');
    expect(r.body.rels).toEqual([]);
    expect(r.body.links).toEqual([]);
  });
});

describe('contract "Versioning": version 1 nests resolved references inside the referencing field', () => {
  it('notes "Relations and links": v1 resolve_relations replaces a single uuid with the story object', async () => {
    const r = await server.api('/v1/cdn/stories/blog/first-post', { resolve_relations: 'article.author' });
    expect(r.body.story.content.author.id).toBe(16);
    expect(r.body.story.content.author.uuid).toBe(uuidOf(16));
    expect(r.body).not.toHaveProperty('rels');
  });

  it('notes "Relations and links": v1 resolve_relations replaces each uuid of an array', async () => {
    const r = await server.api('/v1/cdn/stories/home', { resolve_relations: 'page.featured' });
    expect(idsOf(r.body.story.content.featured)).toEqual([12, 13]);
  });

  it('contract "resolve_relations": relations inside already resolved entries are not resolved', async () => {
    const r = await server.api('/v1/cdn/stories/blog/first-post', {
      resolve_relations: 'article.author,author.articles',
    });
    expect(r.body.story.content.author.id).toBe(16);
    expect(r.body.story.content.author.content.articles).toEqual([uuidOf(12), uuidOf(14)]);
  });

  it('notes "Relations and links": v1 resolve_links=story adds story to the multilink and refreshes cached_url', async () => {
    const r = await server.api('/v1/cdn/stories/home', { resolve_links: 'story' });
    const cta = r.body.story.content.cta;
    expect(cta.story.id).toBe(12);
    expect(cta.story.content.title).toBe('Alpha news');
    expect(cta.cached_url).toBe('blog/first-post');
    expect(cta.id).toBe(uuidOf(12));
  });

  it('contract "resolve_links": v1 url mode nests {name, id, uuid, slug, full_slug, url}', async () => {
    const r = await server.api('/v1/cdn/stories', { by_slugs: 'home', resolve_links: 'url' });
    const cta = r.body.stories[0].content.cta;
    expect(cta.story).toEqual({
      id: 12,
      uuid: uuidOf(12),
      name: 'First post',
      slug: 'first-post',
      full_slug: 'blog/first-post',
      url: 'blog/first-post',
    });
    expect(cta.cached_url).toBe('blog/first-post');
  });

  it('contract "language": a link to a folder shows its path in the language, as links to its stories do', async () => {
    const folder = (
      await admin('POST', '/stories', {
        name: 'Guides',
        slug: 'guides',
        is_folder: true,
        translated_slugs: [{ lang: 'de', path: 'anleitungen', name: 'Anleitungen' }],
      })
    ).story;
    const child = (
      await admin('POST', '/stories', {
        name: 'Setup',
        slug: 'setup',
        parent_id: folder.id,
        content: { component: 'page' },
        translated_slugs: [{ lang: 'de', path: 'anleitungen/einrichtung', name: 'Einrichtung' }],
      })
    ).story;
    await admin('POST', `/stories/${child.id}/publish`);
    const plain = await admin('POST', '/stories', { name: 'Plain', slug: 'plain', is_folder: true });
    const ml = (uuid: string) => ({ fieldtype: 'multilink', linktype: 'story', id: uuid, url: '', cached_url: '' });
    const hub = await createPublished('Guide hub', 'guide-hub', {
      component: 'page',
      folder: ml(folder.uuid),
      child: ml(child.uuid),
      plain: ml(plain.story.uuid),
    });

    const v1 = (await server.api(`/v1/cdn/stories/${hub.id}`, { resolve_links: 'url', language: 'de' })).body.story;
    expect(v1.content.child.cached_url).toBe('de/anleitungen/einrichtung');
    expect(v1.content.folder.cached_url).toBe('de/anleitungen');
    expect(v1.content.folder.story).toMatchObject({ full_slug: 'de/anleitungen', url: 'de/anleitungen' });
    // A folder without a translated path: under the language, as an untranslated story is.
    expect(v1.content.plain.cached_url).toBe('de/plain');

    const v2 = await server.api('/v2/cdn/stories/guide-hub', { resolve_links: 'link', language: 'de' });
    const paths = Object.fromEntries(
      v2.body.links.map((l: { name: string; real_path: string }) => [l.name, l.real_path]),
    );
    expect(paths).toEqual({ Guides: '/de/anleitungen', Setup: '/de/anleitungen/einrichtung', Plain: '/de/plain' });

    // The default language is as before.
    const plainV1 = (await server.api(`/v1/cdn/stories/${hub.id}`, { resolve_links: 'url' })).body.story;
    expect(plainV1.content.folder.cached_url).toBe('guides');
  });
});
