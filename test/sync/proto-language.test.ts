/**
 * Language codes are data, never keys that reach an object's prototype: a space whose languages
 * are named `__proto__`, `constructor` or `toString` has each served, translated through the
 * control plane, synced and compiled like any other language (`<lang>/` before the full slug,
 * its own translation or none), and a translation in one never shows in another story.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { languageExports } from '../../src/compile/emit.js';
import type { StoryVersion } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { importFresh } from '../compile/support.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PREVIEW, startTestServer, type TestServer } from '../helpers/server.js';
import { admin, removeTempDirs, tempDir, unpaced } from './support.js';

const ODD = ['__proto__', 'constructor', 'toString'];
const LANGUAGES = ['default', 'de', ...ODD];

let server: TestServer;

beforeAll(async () => {
  const space = fixtureSpace();
  space.space.language_codes = ['de', ...ODD];
  // Story 12 is translated in de and in __proto__, an own key as JSON.parse gives it.
  const first = space.stories.find((r) => r.id === 12)!.published!;
  first.languages = JSON.parse(
    JSON.stringify(first.languages).replace(
      '{',
      '{"__proto__":{"full_slug":"__proto__/blog/proto-post","content":{"title":"Proto title"}},',
    ),
  ) as StoryVersion['languages'];
  // A name of its own in de: the index then notes what a link to it shows there (link_fields).
  first.languages!.de!.name = 'Erster Beitrag';
  server = await startTestServer({ space, admin: true });
});
afterAll(async () => {
  await server?.close();
  await removeTempDirs();
});

const story = async (id: number, lang: string, version = 'published') =>
  (await server.api(`/v2/cdn/stories/${id}`, { language: lang, version }, PREVIEW)).body.story;

describe('a language named like an object key', () => {
  it('is served under its code, with its own translation or none', async () => {
    const proto = await story(12, '__proto__');
    expect([proto.full_slug, proto.lang, proto.content.title]).toEqual([
      '__proto__/blog/proto-post',
      '__proto__',
      'Proto title',
    ]);
    for (const lang of ['constructor', 'toString']) {
      const s = await story(12, lang);
      expect([s.full_slug, s.lang, s.content.title]).toEqual([`${lang}/blog/first-post`, lang, 'Alpha news']);
    }
  });

  it('takes a translation through the control plane for its story alone', async () => {
    // __proto__ last: on a service that assigns it, it would change what every object has.
    for (const lang of ['constructor', 'toString', '__proto__'])
      await admin(server.url, 'PUT', '/stories/13', {
        lang,
        name: `Name in ${lang}`,
        content: { title: lang },
      });
    for (const lang of ODD) {
      const s = await story(13, lang, 'draft');
      expect([s.full_slug, s.name, s.content.title]).toEqual([`${lang}/blog/second-post`, `Name in ${lang}`, lang]);
      expect((await story(14, lang, 'draft')).content.title).not.toBe(lang);
    }
    expect(Object.hasOwn(Object.prototype.toString, 'content')).toBe(false);
    expect(Object.hasOwn(Object, 'content')).toBe(false);
    await admin(server.url, 'POST', '/stories/13/publish');
  });

  it('is synced and compiled as the service delivers it', async () => {
    const root = await tempDir('proto-language');
    const snapshot = path.join(root, 'snapshot');
    const out = path.join(root, 'modules');
    await sync({ baseUrl: server.url, token: PREVIEW, out: snapshot, ...unpaced() });
    await compile({ snapshot, out });
    const names = languageExports(LANGUAGES);
    for (const id of [12, 13, 14]) {
      const mod = await importFresh<Record<string, { full_slug: string; content: unknown }>>(
        path.join(out, 'stories', `${id}.js`),
      );
      for (const lang of LANGUAGES) {
        const delivered = await story(id, lang);
        expect([id, lang, mod[names.get(lang)!]?.full_slug]).toEqual([id, lang, delivered.full_slug]);
        expect(mod[names.get(lang)!]!.content).toEqual(delivered.content);
      }
    }
    // Home's call to action links to story 12: resolved, it shows 12's name in each language.
    const linked = path.join(root, 'linked');
    await compile({ snapshot, out: linked, resolveLinks: 'url' });
    const home = await importFresh<Record<string, { content: { cta: { story: { name: string } } } }>>(
      path.join(linked, 'stories', '10.js'),
    );
    for (const lang of LANGUAGES)
      expect([lang, home[names.get(lang)!]!.content.cta.story.name]).toEqual([lang, (await story(12, lang)).name]);
  }, 30_000);
});
