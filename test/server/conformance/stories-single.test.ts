import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, startTestServer, type TestServer } from '../../helpers/server.js';
import { NOT_FOUND, uuidOf } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('contract "GET /v1/cdn/stories/(:full_slug|:id|:uuid)": one story', () => {
  it('contract "Single story": a full slug with slashes answers { story } (v2)', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post');
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(12);
    expect(r.body.story.full_slug).toBe('blog/first-post');
    expect(r.body.story.lang).toBe('default');
    expect(r.body.story.content.title).toBe('Alpha news');
  });

  it('contract "Single story": a full slug with slashes answers { story } (v1)', async () => {
    const r = await server.api('/v1/cdn/stories/products/shoes/runner');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['story']);
    expect(r.body.story.id).toBe(19);
  });

  it('contract ":id": a numeric id path answers the story', async () => {
    for (const api of ['v1', 'v2']) {
      const r = await server.api(`/${api}/cdn/stories/17`);
      expect(r.status).toBe(200);
      expect(r.body.story.id).toBe(17);
      expect(r.body.story.full_slug).toBe('authors/john');
    }
  });

  it('contract ":uuid": a uuid path with find_by=uuid answers the story', async () => {
    const r = await server.api(`/v2/cdn/stories/${uuidOf(13)}`, { find_by: 'uuid' });
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(13);
    expect(r.body.story.uuid).toBe(uuidOf(13));
    const v1 = await server.api(`/v1/cdn/stories/${uuidOf(13)}`, { find_by: 'uuid' });
    expect(v1.body.story.id).toBe(13);
  });

  it('contract ":uuid": a uuid path without find_by=uuid is not found', async () => {
    const r = await server.api(`/v2/cdn/stories/${uuidOf(13)}`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual(NOT_FOUND);
  });

  it('contract ":full_slug": the [default] prefix addresses the default language in a root folder named like a language code', async () => {
    for (const api of ['v1', 'v2']) {
      const r = await server.api(`/${api}/cdn/stories/[default]/de/about`);
      expect(r.status).toBe(200);
      expect(r.body.story.id).toBe(18);
      expect(r.body.story.lang).toBe('default');
      expect(r.body.story.full_slug).toBe('de/about');
      expect(r.body.story.content.title).toBe('About the de folder');
    }
  });

  it('contract "Versioning" (v2 language): the path identifies the story only, so a folder named "de" is not a language', async () => {
    const r = await server.api('/v2/cdn/stories/de/about');
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(18);
    expect(r.body.story.lang).toBe('default');
    expect(r.body.story.full_slug).toBe('de/about');
  });

  it('notes "Query semantics": a start page answers to its folder path, with and without the trailing slash', async () => {
    for (const path of ['blog', 'blog/']) {
      const r = await server.api(`/v2/cdn/stories/${path}`);
      expect(r.status).toBe(200);
      expect(r.body.story.id).toBe(11);
      expect(r.body.story.is_startpage).toBe(true);
      expect(r.body.story.full_slug).toBe('blog/');
    }
  });

  it('contract "Versioning" (v1 language): a language code prefixed to the path gives the localized story', async () => {
    const r = await server.api('/v1/cdn/stories/de/home');
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(10);
    expect(r.body.story.lang).toBe('de');
    expect(r.body.story.full_slug).toBe('de/home');
    expect(r.body.story.content.title).toBe('Willkommen');
  });

  it('contract "translated_slugs": v1 reads a story by its translated path under the language prefix', async () => {
    const r = await server.api('/v1/cdn/stories/de/blog/erster-beitrag');
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(12);
    expect(r.body.story.lang).toBe('de');
    expect(r.body.story.full_slug).toBe('de/blog/erster-beitrag');
    expect(r.body.story.content.title).toBe('Alpha Nachrichten');
  });

  it('contract "translated_slugs": a story carries path, name and lang of each translation', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post');
    expect(r.body.story.translated_slugs).toEqual([{ path: 'blog/erster-beitrag', name: 'First post', lang: 'de' }]);
    expect(r.body.story.default_full_slug).toBe('blog/first-post');
  });

  it('contract "language": v2 takes the language parameter on a slug path', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post', { language: 'de' });
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(12);
    expect(r.body.story.lang).toBe('de');
    expect(r.body.story.full_slug).toBe('de/blog/erster-beitrag');
    expect(r.body.story.content.title).toBe('Alpha Nachrichten');
  });

  it('contract "language": the language parameter localizes a story read by id or uuid (v1 and v2)', async () => {
    const byId = await server.api('/v1/cdn/stories/10', { language: 'de' });
    expect(byId.body.story.lang).toBe('de');
    expect(byId.body.story.content.title).toBe('Willkommen');
    const byUuid = await server.api(`/v2/cdn/stories/${uuidOf(10)}`, { find_by: 'uuid', language: 'de' });
    expect(byUuid.body.story.lang).toBe('de');
    expect(byUuid.body.story.full_slug).toBe('de/home');
    expect(byUuid.body.story.content.title).toBe('Willkommen');
  });

  it('contract "Story": fields of the story table are present', async () => {
    const { body } = await server.api('/v2/cdn/stories/blog/first-post');
    const s = body.story;
    for (const key of [
      'id',
      'uuid',
      'name',
      'slug',
      'full_slug',
      'created_at',
      'published_at',
      'first_published_at',
      'release_id',
      'lang',
      'content',
      'position',
      'is_startpage',
      'parent_id',
      'group_id',
      'alternates',
      'tag_list',
    ]) {
      expect(s).toHaveProperty(key);
    }
    expect(s.content.component).toBe('article');
    expect(typeof s.content._uid).toBe('string');
    expect(s.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(s.tag_list).toEqual(['news', 'tech']);
  });

  it('contract "version": version=draft with the preview token shows the edited draft', async () => {
    const draft = await server.api('/v2/cdn/stories/blog/first-post', { version: 'draft' }, PREVIEW);
    expect(draft.status).toBe(200);
    expect(draft.body.story.content.title).toBe('Alpha news (edited)');
    const published = await server.api('/v2/cdn/stories/blog/first-post', { version: 'published' }, PREVIEW);
    expect(published.body.story.content.title).toBe('Alpha news');
  });

  it('contract "from_release": a single story in the version of a release', async () => {
    const r = await server.api('/v2/cdn/stories/blog/second-post', { from_release: '7' });
    expect(r.status).toBe(200);
    expect(r.body.story.content.title).toBe('Beta story (release)');
    expect(r.body.story.release_id).toBe(7);
  });

  it('contract "Version 2 additionally accepts content_type and resolve_assets" on a single story', async () => {
    const r = await server.api('/v2/cdn/stories/products/shoes/runner', {
      content_type: 'product',
      resolve_assets: '1',
    });
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(19);
    expect(r.body.assets).toEqual([
      {
        id: 501,
        filename: 'https://assets.example.com/runner.jpg',
        alt: 'Runner',
        title: '',
        copyright: '',
        focus: '',
        name: '',
        source: '',
        is_external_url: false,
        meta_data: {},
      },
    ]);
  });

  it('contract "Errors" 404: an unknown slug, id or uuid', async () => {
    for (const path of [
      '/v2/cdn/stories/blog/nope',
      '/v2/cdn/stories/999999',
      `/v1/cdn/stories/${uuidOf(999)}?find_by=uuid`,
    ]) {
      const r = await server.api(path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual(NOT_FOUND);
    }
  });
});
