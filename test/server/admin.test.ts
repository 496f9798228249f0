import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { SPACE_VERSION } from '../helpers/fixture-space.js';

type Answer = Awaited<ReturnType<TestServer['get']>>;

let server: TestServer;

function admin(method: string, path: string, body?: unknown): Promise<Answer> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  return server.get(`/__admin${path}`, init);
}

const published = (slug: string, params: Record<string, string> = {}) => server.api(`/v2/cdn/stories/${slug}`, params);
const draft = (slug: string, params: Record<string, string> = {}) =>
  server.api(`/v2/cdn/stories/${slug}`, { version: 'draft', ...params }, PREVIEW);
const spaceVersion = async (): Promise<number> => (await server.api('/v2/cdn/spaces/me')).body.space.version;

describe('control plane disabled', () => {
  it('without admin, /__admin/* is 404', async () => {
    const s = await startTestServer();
    try {
      for (const [method, path] of [
        ['GET', '/__admin/stats'],
        ['POST', '/__admin/stories'],
        ['GET', '/__admin'],
      ] as const) {
        const a = await s.get(path, {
          method,
          ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
        });
        expect(a.status, `${method} ${path}`).toBe(404);
        expect(a.body).toEqual(expect.any(Array));
      }
      expect(s.service.store.storyCount).toBe(11);
    } finally {
      await s.close();
    }
  });
});

describe('control plane', () => {
  beforeEach(async () => {
    server = await startTestServer({ admin: true, maxBodyBytes: 4096 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('lists every story by id, with its name, full slug and whether it is published', async () => {
    const created = await admin('POST', '/stories', {
      name: 'Listed',
      slug: 'listed',
      content: { component: 'article' },
    });
    const list = await admin('GET', '/stories');
    expect(list.status).toBe(200);
    const stories = list.body.stories as Array<{ id: number; name: string; full_slug: string; published: boolean }>;
    const ids = stories.map((s) => s.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(stories.find((s) => s.id === created.body.story.id)).toMatchObject({
      name: 'Listed',
      full_slug: 'listed',
      published: false,
    });
    expect(stories.filter((s) => s.published).length).toBeGreaterThan(0);
  });

  it('creates a draft: 201 with id, uuid and full slug derived from parent_id', async () => {
    const created = await admin('POST', '/stories', {
      name: 'New post',
      slug: 'new-post',
      parent_id: 1,
      content: { component: 'article', title: 'Fresh' },
    });
    expect(created.status).toBe(201);
    const story = created.body.story;
    expect(story).toMatchObject({ name: 'New post', slug: 'new-post', full_slug: 'blog/new-post', parent_id: 1 });
    expect(story.id).toEqual(expect.any(Number));
    expect(story.id).toBeGreaterThan(20);
    expect(story.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(story.content).toMatchObject({ component: 'article', title: 'Fresh' });

    const root = await admin('POST', '/stories', { name: 'At the root', uuid: 'my-own-uuid' });
    expect(root.status).toBe(201);
    expect(root.body.story).toMatchObject({ uuid: 'my-own-uuid', slug: 'at-the-root', full_slug: 'at-the-root' });
    expect(root.body.story.id).not.toBe(story.id);

    const duplicate = await admin('POST', '/stories', { name: 'Again', uuid: 'my-own-uuid' });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.error).toMatch(/uuid/);
  });

  it('a draft is absent from the published view and visible in the draft view; publishing shows it and advances the cache version', async () => {
    const before = await spaceVersion();
    expect(before).toBe(SPACE_VERSION);
    const { body } = await admin('POST', '/stories', {
      name: 'New post',
      slug: 'new-post',
      parent_id: 1,
      content: { component: 'article', title: 'Fresh' },
    });
    const id: number = body.story.id;

    expect((await published('blog/new-post')).status).toBe(404);
    expect(
      (await server.api('/v2/cdn/stories', { starts_with: 'blog/' })).body.stories.map((s: { id: number }) => s.id),
    ).not.toContain(id);
    const asDraft = await draft('blog/new-post');
    expect(asDraft.status).toBe(200);
    expect(asDraft.body.story).toMatchObject({ id, content: { title: 'Fresh' } });
    expect(await spaceVersion()).toBe(before);

    const done = await admin('POST', `/stories/${id}/publish`);
    expect(done.status).toBe(200);
    expect(done.body.story).toMatchObject({ id, full_slug: 'blog/new-post' });
    expect(done.body.story.published_at).toEqual(expect.any(String));

    const after = await spaceVersion();
    expect(after).toBeGreaterThan(before);
    const live = await published('blog/new-post');
    expect(live.status).toBe(200);
    expect(live.body.cv).toBe(after);
    expect(live.body.story.id).toBe(id);

    const stale = await server.api('/v2/cdn/stories/blog/new-post', { cv: String(before) });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toContain(`cv=${after}`);
    const staleList = await server.api('/v2/cdn/stories', { cv: String(before) });
    expect(staleList.status).toBe(301);
  });

  it('PUT changes the draft only; the published version changes on publish', async () => {
    const v0 = await spaceVersion();
    const put = await admin('PUT', '/stories/13', {
      name: 'Second (renamed)',
      content: { title: 'Beta edited' },
      tag_list: ['x'],
    });
    expect(put.status).toBe(200);
    expect(put.body.story).toMatchObject({
      id: 13,
      name: 'Second (renamed)',
      content: { title: 'Beta edited', component: 'article' },
      tag_list: ['x'],
    });

    expect((await published('blog/second-post')).body.story).toMatchObject({
      name: 'Second post',
      content: { title: 'Beta story' },
    });
    expect((await draft('blog/second-post')).body.story).toMatchObject({
      name: 'Second (renamed)',
      content: { title: 'Beta edited' },
    });
    expect(await spaceVersion()).toBe(v0);

    await admin('POST', '/stories/13/publish');
    expect(await spaceVersion()).toBeGreaterThan(v0);
    expect((await published('blog/second-post')).body.story).toMatchObject({
      name: 'Second (renamed)',
      content: { title: 'Beta edited' },
    });
  });

  it('a new slug or parent moves the story, published version included, and advances the version', async () => {
    const v0 = await spaceVersion();
    const renamed = await admin('PUT', '/stories/12', { slug: 'premier' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.story.full_slug).toBe('blog/premier');
    const v1 = await spaceVersion();
    expect(v1).toBeGreaterThan(v0);
    expect((await published('blog/first-post')).status).toBe(404);
    const moved = await published('blog/premier');
    expect(moved.status).toBe(200);
    // Only the structure moved: the published content is still the published one.
    expect(moved.body.story).toMatchObject({
      id: 12,
      slug: 'premier',
      full_slug: 'blog/premier',
      content: { title: 'Alpha news' },
    });

    const reparented = await admin('PUT', '/stories/12', { parent_id: 2 });
    expect(reparented.body.story.full_slug).toBe('authors/premier');
    expect(await spaceVersion()).toBeGreaterThan(v1);
    expect((await published('authors/premier')).body.story).toMatchObject({ id: 12, parent_id: 2 });

    const toRoot = await admin('PUT', '/stories/12', { parent_id: 0 });
    expect(toRoot.body.story.full_slug).toBe('premier');
    expect((await published('premier')).body.story.id).toBe(12);

    const bad = await admin('PUT', '/stories/12', { parent_id: 12 });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/parent_id/);
  });

  it('a folder renamed, moved or deleted advances the version: links to it show it in the published view', async () => {
    const folder = (await admin('POST', '/stories', { name: 'Empty', slug: 'empty', is_folder: true })).body.story;
    const link = { fieldtype: 'multilink', linktype: 'story', id: folder.uuid, url: '', cached_url: 'empty' };
    const hub = (await admin('POST', '/stories', { name: 'Hub', slug: 'hub', content: { component: 'page', link } }))
      .body.story;
    await admin('POST', `/stories/${hub.id}/publish`);
    const shown = async () => (await published('hub', { resolve_links: 'url' })).body.links;
    // Answered once, so that a stale answer would come from the CDN cache.
    expect(await shown()).toMatchObject([{ name: 'Empty', full_slug: 'empty' }]);

    const v0 = await spaceVersion();
    await admin('PUT', `/stories/${folder.id}`, { name: 'Renamed' });
    const v1 = await spaceVersion();
    expect(v1).toBeGreaterThan(v0);
    expect(await shown()).toMatchObject([{ name: 'Renamed', full_slug: 'empty' }]);

    // A folder with no story in it moves too.
    await admin('PUT', `/stories/${folder.id}`, { slug: 'moved' });
    const v2 = await spaceVersion();
    expect(v2).toBeGreaterThan(v1);
    expect(await shown()).toMatchObject([{ name: 'Renamed', full_slug: 'moved', url: 'moved' }]);

    expect((await admin('DELETE', `/stories/${folder.id}`)).status).toBe(200);
    expect(await spaceVersion()).toBeGreaterThan(v2);
    expect(await shown()).toEqual([]);
  });

  it('a slug already taken in the folder is refused with 422, and nothing changes', async () => {
    const v0 = await spaceVersion();
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/stories', { name: 'Copy', slug: 'first-post', parent_id: 1 }],
      ['POST', '/stories', { name: 'Blog', slug: 'blog', is_folder: true }],
      ['POST', '/stories', { name: 'Another start page', parent_id: 1, is_startpage: true }],
      ['PUT', '/stories/12', { slug: 'second-post' }],
      ['PUT', '/stories/16', { parent_id: 1, slug: 'draft-only' }],
      ['PUT', '/stories/2', { slug: 'blog' }],
    ];
    for (const [method, path, body] of cases) {
      const a = await admin(method, path, body);
      expect(a.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect(a.body.error).toMatch(/^slug: .*already taken/);
    }
    expect(server.service.store.storyCount).toBe(11);
    expect(await spaceVersion()).toBe(v0);
    expect((await published('blog/first-post')).body.story.id).toBe(12);
    expect((await published('authors/jane')).body.story.id).toBe(16);
    // The same slug in another folder is fine.
    expect((await admin('POST', '/stories', { name: 'Elsewhere', slug: 'first-post', parent_id: 2 })).status).toBe(201);
  });

  it('content nested deeper than the service accepts is refused with 422 naming the depth; publishing still works', async () => {
    const v0 = await spaceVersion();
    // Arrays in arrays, written as text: small enough for this server's 4 KB body limit.
    const deep = `${'['.repeat(1200)}1${']'.repeat(1200)}`;
    for (const [method, path] of [
      ['PUT', '/stories/12'],
      ['POST', '/stories'],
    ] as const) {
      const a = await admin(
        method,
        path,
        `{"name":"Deep","slug":"deep","content":{"component":"post","body":${deep}}}`,
      );
      expect(a.status, `${method} ${path}`).toBe(422);
      expect(a.body.error).toBe('content: nested 1201 levels deep, more than the 1000 the service accepts');
    }
    expect(await spaceVersion()).toBe(v0);
    expect((await admin('POST', '/stories/12/publish')).status).toBe(200);
  });

  it('content whose component or _uid is not a string is refused with 422: delivered, it failed every sync of the space', async () => {
    const v0 = await spaceVersion();
    const { component } = (await published('blog/first-post')).body.story.content;
    for (const content of [{ component: 123 }, { component: null }, { _uid: 5 }, { component: ['post'] }]) {
      for (const [method, path, extra] of [
        ['PUT', '/stories/12', {}],
        ['PUT', '/stories/12', { lang: 'de' }],
        ['POST', '/stories', { name: 'Odd', slug: 'odd' }],
      ] as const) {
        const a = await admin(method, path, { ...extra, content });
        expect(a.status, `${method} ${path} ${JSON.stringify({ ...extra, content })}`).toBe(422);
        expect(a.body.error).toBe('content: component and _uid are strings, as the delivery API gives them');
      }
    }
    expect(await spaceVersion()).toBe(v0);
    expect((await admin('POST', '/stories/12/publish')).status).toBe(200);
    expect((await published('blog/first-post')).body.story.content.component).toBe(component);
  });

  it('a new slug moves the story in every release too, as moving its folder does', async () => {
    // Story 13 (blog/second-post) has a version in release 7.
    const moved = await admin('PUT', '/stories/13', { slug: 'second-moved' });
    expect(moved.status).toBe(200);
    const staged = await published('blog/second-moved', { from_release: '7' });
    expect(staged.status).toBe(200);
    expect(staged.body.story).toMatchObject({
      id: 13,
      full_slug: 'blog/second-moved',
      release_id: 7,
      content: { title: 'Beta story (release)' },
    });
    expect((await published('13', { from_release: '7' })).body.story.full_slug).toBe('blog/second-moved');
    expect((await published('blog/second-post', { from_release: '7' })).status).toBe(404);
  });

  it('moving a folder changes the full slug of every child', async () => {
    const v0 = await spaceVersion();
    const moved = await admin('PUT', '/stories/1', { slug: 'news' });
    expect(moved.status).toBe(200);
    expect(moved.body.story).toMatchObject({ id: 1, full_slug: 'news' });
    expect(await spaceVersion()).toBeGreaterThan(v0);

    const list = await server.api('/v2/cdn/stories', { starts_with: 'news/' });
    const slugs = list.body.stories.map((s: { full_slug: string }) => s.full_slug).sort();
    expect(slugs).toEqual(['news/', 'news/first-post', 'news/second-post', 'news/third-post']);
    expect((await server.api('/v2/cdn/stories', { starts_with: 'blog/' })).body.stories).toEqual([]);
    expect((await published('news/first-post')).body.story.id).toBe(12);
    expect((await draft('news/draft-only')).body.story.id).toBe(15);
    expect((await draft('news/first-post')).body.story.content.title).toBe('Alpha news (edited)');

    // Nested folders move with their parent.
    await admin('PUT', '/stories/4', { slug: 'shop' });
    expect((await published('shop/shoes/runner')).body.story.id).toBe(19);
    await admin('PUT', '/stories/5', { parent_id: 0 });
    expect((await published('shoes/trail')).body.story.id).toBe(20);
  });

  it('unpublish gives 404 in the published view; delete removes it from every view', async () => {
    const v0 = await spaceVersion();
    const off = await admin('POST', '/stories/14/unpublish');
    expect(off.status).toBe(200);
    expect(await spaceVersion()).toBeGreaterThan(v0);
    expect((await published('blog/third-post')).status).toBe(404);
    expect((await draft('blog/third-post')).status).toBe(200);

    const v1 = await spaceVersion();
    const gone = await admin('DELETE', '/stories/12');
    expect(gone.status).toBe(200);
    expect(await spaceVersion()).toBeGreaterThan(v1);
    expect((await published('blog/first-post')).status).toBe(404);
    expect((await draft('blog/first-post')).status).toBe(404);
    expect((await published('12')).status).toBe(404);
    expect((await admin('DELETE', '/stories/12')).status).toBe(404);
    expect((await admin('POST', '/stories/12/publish')).status).toBe(404);
  });

  it('PUT datasources/:slug/entries replaces entries, creating a missing datasource, with dimension values', async () => {
    const v0 = await spaceVersion();
    const put = await admin('PUT', '/datasources/colors/entries', {
      entries: [
        { name: 'red', value: 'Crimson', dimension_values: { de: 'Karmesin' } },
        { name: 'black', value: 'Black', dimension_values: { de: 'Schwarz' } },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.datasource).toMatchObject({ id: 100, slug: 'colors' });
    expect(await spaceVersion()).toBeGreaterThan(v0);

    const plain = await server.api('/v2/cdn/datasource_entries', { datasource: 'colors' });
    expect(plain.body.datasource_entries.map((e: { name: string; value: string }) => [e.name, e.value])).toEqual([
      ['red', 'Crimson'],
      ['black', 'Black'],
    ]);
    expect(plain.body.datasource_entries[0].id).toBe(1101);
    const german = await server.api('/v2/cdn/datasource_entries', { datasource: 'colors', dimension: 'de' });
    expect(german.body.datasource_entries.map((e: { dimension_value: string | null }) => e.dimension_value)).toEqual([
      'Karmesin',
      'Schwarz',
    ]);

    const created = await admin('PUT', '/datasources/sizes/entries', {
      name: 'Sizes',
      dimensions: [{ name: 'French', entry_value: 'fr' }],
      entries: [{ name: 's', value: 'Small', dimension_values: { fr: 'Petit' } }],
    });
    expect(created.status).toBe(200);
    expect(created.body.datasource).toMatchObject({
      name: 'Sizes',
      slug: 'sizes',
      dimensions: [{ name: 'French', entry_value: 'fr' }],
    });
    const all = await server.api('/v2/cdn/datasources');
    expect(all.body.datasources.map((d: { slug: string }) => d.slug)).toEqual(['colors', 'countries', 'sizes']);
    const fr = await server.api('/v2/cdn/datasource_entries', { datasource: 'sizes', dimension: 'fr' });
    expect(fr.body.datasource_entries).toEqual([
      { id: expect.any(Number), name: 's', value: 'Small', dimension_value: 'Petit' },
    ]);

    const twice = await admin('PUT', '/datasources/sizes/entries', {
      entries: [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' },
      ],
    });
    expect(twice.status).toBe(422);
    expect(twice.body.error).toMatch(/"a"/);
  });

  it('PUT datasources/:slug/entries refused for a missing datasource creates nothing', async () => {
    const v0 = await spaceVersion();
    const refused = await admin('PUT', '/datasources/refused/entries', {
      entries: [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' },
      ],
    });
    expect(refused.status).toBe(422);
    const all = await server.api('/v2/cdn/datasources');
    expect(all.body.datasources.map((d: { slug: string }) => d.slug)).not.toContain('refused');
    expect(await spaceVersion()).toBe(v0);
  });

  it('PUT datasources/:slug/entries refuses a dimension twice and a value in a dimension the datasource lacks', async () => {
    const twice = await admin('PUT', '/datasources/colors/entries', {
      dimensions: [
        { name: 'German', entry_value: 'de' },
        { name: 'Deutsch', entry_value: 'de' },
      ],
      entries: [],
    });
    expect(twice.status).toBe(422);
    expect(twice.body.error).toMatch(/"de" appears twice/);
    // The dimension removed, its values kept: served for dimension=de, though no client reading the
    // datasource's dimensions would ask for them.
    const lacking = await admin('PUT', '/datasources/colors/entries', {
      dimensions: [],
      entries: [{ name: 'red', value: 'Red', dimension_values: { de: 'Rot' } }],
    });
    expect(lacking.status).toBe(422);
    expect(lacking.body.error).toMatch(/"red" has a value in dimension "de"/);
    const colors = (await server.api('/v2/cdn/datasources')).body.datasources.find(
      (d: { slug: string }) => d.slug === 'colors',
    );
    expect(colors.dimensions.map((d: { entry_value: string }) => d.entry_value)).toEqual(['de']);
  });

  it('lang on PUT sets a translation, visible with language=de', async () => {
    const put = await admin('PUT', '/stories/13', {
      lang: 'de',
      name: 'Zweiter Beitrag',
      content: { title: 'Beta Geschichte' },
    });
    expect(put.status).toBe(200);
    const german = await draft('blog/second-post', { language: 'de' });
    expect(german.body.story).toMatchObject({
      id: 13,
      lang: 'de',
      name: 'Zweiter Beitrag',
      content: { title: 'Beta Geschichte' },
    });
    // The default language is untouched.
    expect((await draft('blog/second-post')).body.story.content.title).toBe('Beta story');
    await admin('POST', '/stories/13/publish');
    expect((await published('blog/second-post', { language: 'de' })).body.story.content.title).toBe('Beta Geschichte');
    expect((await published('blog/second-post')).body.story.content.title).toBe('Beta story');

    const unknown = await admin('PUT', '/stories/13', { lang: 'fr', content: { title: 'x' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/lang fr/);
  });

  it.each([
    ['POST', '/stories', { name: 42 }, /^name: /],
    ['POST', '/stories', { name: 'ok', slug: 'a/b' }, /^slug: .*nor contain/],
    [
      'POST',
      '/stories',
      { name: 'ok', translated_slugs: [{ lang: 'de', path: 'blog/../x' }] },
      /^translated_slugs\.0\.path: /,
    ],
    [
      'POST',
      '/stories',
      { name: 'ok', translated_slugs: [{ lang: 'de', path: '/x' }] },
      /^translated_slugs\.0\.path: /,
    ],
    ['POST', '/stories', { name: 'ok', parent_id: 'one' }, /^parent_id: /],
    ['POST', '/stories', { name: 'ok', parent_id: 999 }, /parent_id 999/],
    ['POST', '/stories', { name: 'ok', content: [] }, /^content: /],
    ['POST', '/stories', { name: 'ok', tag_list: 'a' }, /^tag_list: /],
    ['POST', '/stories', { name: 'ok', colour: 'red' }, /colour/],
    ['POST', '/stories', [1, 2], /body/],
    ['PUT', '/stories/12', { uuid: 'other' }, /uuid/],
    ['PUT', '/datasources/colors/entries', {}, /^entries: /],
    ['PUT', '/datasources/colors/entries', { entries: [{ name: '', value: 'x' }] }, /^entries\.0\.name: /],
    ['PUT', '/datasources/colors/entries', { entries: [{ name: 'a', value: 1 }] }, /^entries\.0\.value: /],
  ])('%s %s with a bad body is 422 naming the field', async (method, path, body, message) => {
    const before = server.service.store.storyCount;
    const a = await admin(method, path, body);
    expect(a.status).toBe(422);
    expect(a.body.error).toMatch(message);
    expect(server.service.store.storyCount).toBe(before);
  });

  // Slugs that would make paths leading elsewhere (`/\\host`, `..`) or nowhere (`%`, empty).
  it.each(['\\evil.example', '.', '..', '100%', 'tab\tbed', 'a?b'])(
    'the slug %j is 422 on create and on update',
    async (slug) => {
      const before = server.service.store.storyCount;
      const created = await admin('POST', '/stories', { name: 'ok', slug });
      expect(created.status).toBe(422);
      expect(created.body.error).toMatch(/^slug: .*nor contain/);
      expect(server.service.store.storyCount).toBe(before);
      const updated = await admin('PUT', '/stories/12', { slug });
      expect(updated.status).toBe(422);
    },
  );

  it("a folder's start page keeps its empty slug and a translated path ending in /, on create and on update", async () => {
    const folder = await admin('POST', '/stories', { name: 'Guides', slug: 'guides', is_folder: true });
    expect(folder.status).toBe(201);
    const input = {
      name: 'Guides',
      slug: '',
      parent_id: folder.body.story.id,
      is_startpage: true,
      translated_slugs: [{ lang: 'de', path: 'anleitungen/' }],
    };
    const created = await admin('POST', '/stories', input);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.story.full_slug).toBe('guides/');
    // Sent back as the service holds it.
    const updated = await admin('PUT', `/stories/${created.body.story.id}`, {
      slug: created.body.story.slug,
      translated_slugs: input.translated_slugs,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  });

  it('an empty slug or a translated path ending in / is 422 for anything but a start page', async () => {
    const outer = await admin('POST', '/stories', { name: 'Outer', slug: 'outer', is_folder: true });
    expect(outer.status).toBe(201);
    const parent_id = outer.body.story.id;
    const before = server.service.store.storyCount;
    const refused = [
      // A folder named by nothing: its children's paths would hold an empty segment (outer//child).
      { name: 'Empty', slug: '', is_folder: true, parent_id },
      // A story that is no start page, at the site's root or in a folder.
      { name: 'Root', slug: '' },
      { name: 'Inner', slug: '', parent_id },
      // Translated paths a start page has, on a page that is not one.
      { name: 'T', slug: 't', translated_slugs: [{ lang: 'de', path: '' }] },
      { name: 'U', slug: 'u', translated_slugs: [{ lang: 'de', path: 'x/' }] },
      { name: 'F', slug: 'f', is_folder: true, translated_slugs: [{ lang: 'de', path: 'ordner/' }] },
    ];
    for (const body of refused) {
      const r = await admin('POST', '/stories', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error, JSON.stringify(body)).toMatch(/only a start page/);
    }
    expect(server.service.store.storyCount).toBe(before);
    // A name that makes no slug (no latin letter or digit), with none given: a slug of its id.
    const unnamed = await admin('POST', '/stories', { name: '日本語', parent_id });
    expect(unnamed.status).toBe(201);
    expect(unnamed.body.story.slug).toBe(`story-${unnamed.body.story.id}`);

    // On update: a page emptied of its slug, a start page made an ordinary page, a folder's slug emptied.
    const page = await admin('POST', '/stories', { name: 'Page', slug: 'page', parent_id });
    expect((await admin('PUT', `/stories/${page.body.story.id}`, { slug: '' })).status).toBe(422);
    const start = await admin('POST', '/stories', { name: 'Start', slug: '', parent_id, is_startpage: true });
    expect(start.status).toBe(201);
    expect((await admin('PUT', `/stories/${start.body.story.id}`, { is_startpage: false })).status).toBe(422);
    expect((await admin('PUT', `/stories/${parent_id}`, { slug: '' })).status).toBe(422);
    // Nothing moved.
    expect(server.service.store.record(page.body.story.id).draft!.story.full_slug).toBe('outer/page');
    expect(server.service.store.record(start.body.story.id).draft!.story.full_slug).toBe('outer/');
  });

  it('invalid JSON is 400; an oversized body is 413; an unknown route is 404', async () => {
    const bad = await admin('POST', '/stories', '{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: expect.stringMatching(/JSON/) });

    const huge = await admin('POST', '/stories', {
      name: 'big',
      content: { component: 'page', text: 'x'.repeat(10_000) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ error: expect.stringMatching(/4096/) });
    expect(server.service.store.storyCount).toBe(11);

    const unknown = await admin('GET', '/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/nothing-here/);
    expect((await admin('PATCH', '/stories/12', { name: 'x' })).status).toBe(404);
    expect((await admin('PUT', '/stories/99999', { name: 'x' })).status).toBe(404);
    // The service still answers after the oversized body.
    expect((await published('blog/first-post')).status).toBe(200);
  });

  it('stats count requests by route and by status, 429s included; reset starts over', async () => {
    const limited = await startTestServer({ admin: true, rateLimit: true });
    try {
      const cv = limited.service.store.space.version;
      await limited.get(`/v2/cdn/stories/blog/first-post?token=${PUBLIC}&cv=${cv}`);
      await limited.get(`/v2/cdn/stories/blog/first-post?token=${PUBLIC}&cv=${cv}`);
      await limited.get(`/v2/cdn/stories/nope?token=${PUBLIC}&cv=${cv}`);
      await limited.get(`/v1/cdn/stories?token=wrong`);
      await limited.get(`/v2/cdn/stories/blog/first-post?token=${PUBLIC}`);
      // Listings at per_page 100 cost a fifth of the budget each: the burst meets 429s.
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          limited.get(`/v2/cdn/stories?token=${PUBLIC}&cv=${cv}&per_page=100&page=${i + 1}`),
        ),
      );
      const tooMany = burst.filter((a) => a.status === 429).length;
      expect(tooMany).toBeGreaterThan(0);

      const stats = (await limited.get('/__admin/stats')).body;
      expect(stats.total).toBe(35);
      expect(stats.cached).toBe(1);
      expect(stats.by_route).toEqual({ 'v2 story': 4, 'v1 stories': 1, 'v2 stories': 30 });
      expect(stats.by_status).toEqual({ '200': 2 + 30 - tooMany, '404': 1, '401': 1, '301': 1, '429': tooMany });
      expect(Date.parse(stats.since)).not.toBeNaN();

      const reset = await limited.get('/__admin/stats/reset', { method: 'POST' });
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ total: 0, cached: 0, by_route: {}, by_status: {} });
      expect((await limited.get('/__admin/stats')).body.total).toBe(0);
    } finally {
      await limited.close();
    }
  });
});

describe('a control-plane request whose sender goes away mid-body', () => {
  it('is dropped as a bad request, not logged as an error of the service, which goes on', async () => {
    const lines: string[] = [];
    const s = await startTestServer({ admin: true, log: (line) => lines.push(line) });
    try {
      const { port } = new URL(s.url);
      for (const path of ['/__admin/stories', '/__admin/assets']) {
        await new Promise<void>((resolve) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => {
            socket.write(
              `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"name":`,
            );
            setTimeout(() => socket.destroy(), 50);
          });
          socket.on('close', () => resolve());
        });
      }
      // The service heard both go away, and still answers.
      await new Promise((r) => setTimeout(r, 100));
      expect((await s.get('/__admin/stats')).status).toBe(200);
      expect(lines.filter((l) => /internal error/.test(l))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
