import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSpace } from '../../helpers/fixture-space.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

// A copy of the fixture with a third language: story 12 is translated into
// German (title) and partly into French (teaser only).
function threeLanguages() {
  const space = fixtureSpace();
  space.space.language_codes = ['de', 'fr'];
  const r12 = space.stories.find((r) => r.id === 12)!;
  r12.published!.story.content = { ...r12.published!.story.content, teaser: 'Default teaser' };
  r12.published!.languages = {
    de: { full_slug: 'de/blog/erster-beitrag', content: { title: 'Alpha Nachrichten', teaser: 'Deutscher Teaser' } },
    fr: { full_slug: 'fr/blog/premier-article', content: { teaser: 'Accroche française' } },
  };
  return space;
}

describe('contract "retrieve one story" / "retrieve multiple stories": fallback_lang', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ space: threeLanguages() });
  });
  afterAll(() => server.close());

  it('an untranslated field falls back to the default language without fallback_lang', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post', { language: 'fr' });
    expect(r.status).toBe(200);
    expect(r.body.story.lang).toBe('fr');
    expect(r.body.story.full_slug).toBe('fr/blog/premier-article');
    expect(r.body.story.content.teaser).toBe('Accroche française');
    expect(r.body.story.content.title).toBe('Alpha news');
  });

  it('with fallback_lang, an untranslated field takes the fallback language, a translated one stays', async () => {
    const r = await server.api('/v2/cdn/stories/blog/first-post', { language: 'fr', fallback_lang: 'de' });
    expect(r.body.story.content.title).toBe('Alpha Nachrichten');
    expect(r.body.story.content.teaser).toBe('Accroche française');
    expect(r.body.story.full_slug).toBe('fr/blog/premier-article');
    expect(r.body.story.lang).toBe('fr');
  });

  it('fallback_lang applies to listings too', async () => {
    const r = await server.api('/v2/cdn/stories', { language: 'fr', fallback_lang: 'de', by_ids: '12' });
    expect(r.body.stories).toHaveLength(1);
    expect(r.body.stories[0].content.title).toBe('Alpha Nachrichten');
  });

  it('v1: a language prefix with fallback_lang', async () => {
    const r = await server.api('/v1/cdn/stories/fr/blog/premier-article', { fallback_lang: 'de' });
    expect(r.status).toBe(200);
    expect(r.body.story.content.title).toBe('Alpha Nachrichten');
  });
});
