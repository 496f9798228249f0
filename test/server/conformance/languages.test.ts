import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ids, uuidOf } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('contract "Versioning": language in v1 and v2', () => {
  it('contract "starts_with": with a language prefix folder the result holds that language (v1)', async () => {
    const r = await server.api('/v1/cdn/stories', { starts_with: 'de/blog/' });
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual([11, 12, 13, 14]);
    expect(r.body.stories.map((s: { lang: string }) => s.lang)).toEqual(['de', 'de', 'de', 'de']);
    const first = r.body.stories[1];
    expect(first.full_slug).toBe('de/blog/erster-beitrag');
    expect(first.content.title).toBe('Alpha Nachrichten');
  });

  it('contract "starts_with": the [default] prefix reads the default language of a folder named like a language code', async () => {
    for (const api of ['v1', 'v2']) {
      const r = await server.api(`/${api}/cdn/stories`, { starts_with: '[default]/de/' });
      expect(ids(r.body)).toEqual([18]);
      expect(r.body.stories[0].lang).toBe('default');
      expect(r.body.stories[0].full_slug).toBe('de/about');
    }
  });

  it('contract "by_uuids": combined with starts_with=<lang>/* gives that language', async () => {
    const r = await server.api('/v1/cdn/stories', { by_uuids: `${uuidOf(10)},${uuidOf(12)}`, starts_with: 'de/*' });
    expect(ids(r.body)).toEqual([10, 12]);
    expect(r.body.stories.map((s: { content: { title: string } }) => s.content.title)).toEqual([
      'Willkommen',
      'Alpha Nachrichten',
    ]);
  });

  it('contract "language": v2 lists in a language with the language parameter', async () => {
    const r = await server.api('/v2/cdn/stories', { starts_with: 'blog/', language: 'de' });
    expect(ids(r.body)).toEqual([11, 12, 13, 14]);
    expect(r.body.stories.every((s: { lang: string }) => s.lang === 'de')).toBe(true);
    expect(r.body.stories[1].full_slug).toBe('de/blog/erster-beitrag');
    expect(r.body.stories[1].content.title).toBe('Alpha Nachrichten');
    expect(r.body.stories[2].content.title).toBe('Beta story');
  });

  it('contract "Versioning": a v1 language prefix on a single story; untranslated fields fall back to the default', async () => {
    const r = await server.api('/v1/cdn/stories/de/blog/second-post');
    expect(r.status).toBe(200);
    expect(r.body.story.id).toBe(13);
    expect(r.body.story.lang).toBe('de');
    expect(r.body.story.content.title).toBe('Beta story');
  });

  it('contract "Versioning": v1 reads a folder named like a language code as a language (ambiguous), [default] disambiguates', async () => {
    const asLanguage = await server.api('/v1/cdn/stories/de/home');
    expect(asLanguage.body.story.lang).toBe('de');
    const asFolder = await server.api('/v1/cdn/stories/[default]/de/about');
    expect(asFolder.body.story.id).toBe(18);
    expect(asFolder.body.story.lang).toBe('default');
  });

  it('contract "language": in v1 the language parameter applies to id and uuid paths, not to slug paths', async () => {
    const bySlug = await server.api('/v1/cdn/stories/home', { language: 'de' });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.story.lang).toBe('default');
    expect(bySlug.body.story.content.title).toBe('Welcome');
    const byId = await server.api('/v1/cdn/stories/10', { language: 'de' });
    expect(byId.body.story.lang).toBe('de');
    const byUuid = await server.api(`/v1/cdn/stories/${uuidOf(10)}`, { find_by: 'uuid', language: 'de' });
    expect(byUuid.body.story.lang).toBe('de');
    expect(byUuid.body.story.content.title).toBe('Willkommen');
  });

  it('contract "language": a language that is not one of the space gives the default language', async () => {
    const r = await server.api('/v2/cdn/stories/home', { language: 'fr' });
    expect(r.status).toBe(200);
    expect(r.body.story.lang).toBe('default');
  });

  it('contract "Space": language_codes lists the languages of the space', async () => {
    const r = await server.api('/v2/cdn/spaces/me');
    expect(r.body.space.language_codes).toEqual(['de']);
  });
});
