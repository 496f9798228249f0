/**
 * Paths the compile makes from full slugs stay on the site: a full slug that starts with a slash
 * or a backslash (the API sends none; a space edited by hand or a hostile source can) must not
 * become `//host/...`, which a browser follows to another host.
 */
import { describe, expect, it } from 'vitest';
import { entryMeta } from '../../src/compile/emit.js';
import { createResolver, type StoryLookup } from '../../src/compile/resolve/index.js';
import type { Story } from '../../src/api/index.js';
import { story, uuid } from './resolve/fixtures.js';

const HOSTILE = ['/evil.example/x', '//evil.example/x', '\\evil.example\\x', '/\t/evil.example', '\n\\evil.example'];

/** Where a browser on the site goes for `href`. */
const hostOf = (href: string) => new URL(href, 'https://site.example/page/').host;

function lookupOf(stories: readonly Story[]): StoryLookup {
  const byUuid = new Map(stories.map((s) => [s.uuid, s]));
  const byId = new Map(stories.map((s) => [s.id, s]));
  return { byUuid: (u) => byUuid.get(u), byId: (id) => byId.get(id), folderByUuid: () => undefined };
}

describe('site paths from full slugs', () => {
  it.each(HOSTILE)('an entry of a story at %j has a path on the site', (fullSlug) => {
    const path = entryMeta(story(1, {}, { full_slug: fullSlug }), 'default').path;
    expect(path.startsWith('/')).toBe(true);
    expect(hostOf(path)).toBe('site.example');
    expect(hostOf(`${path}/`)).toBe('site.example');
  });

  it('an ordinary full slug keeps its path', () => {
    expect(entryMeta(story(1, {}, { full_slug: 'blog/post/' }), 'default').path).toBe('/blog/post');
    expect(entryMeta(story(1, {}, { full_slug: 'de/blog/post' }), 'de').path).toBe('/de/blog/post');
  });

  it.each(HOSTILE)('rich-text hrefs and real paths of links to a story at %j stay on the site', (fullSlug) => {
    const target = story(1, { component: 'article' }, { full_slug: fullSlug });
    const mark = { type: 'link', attrs: { href: '/old', uuid: uuid(1), linktype: 'story' } };
    const page = story(2, {
      link: { id: uuid(1), url: '', linktype: 'story', fieldtype: 'multilink', cached_url: 'old' },
      text: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'see', marks: [mark] }] }] },
    });
    const lookup = lookupOf([target, page]);
    for (const links of ['url', 'link'] as const) {
      const c = createResolver({ links }, lookup).resolve(page).story.content as Record<string, any>;
      const href: string = c.text.content[0].content[0].marks[0].attrs.href;
      expect(hostOf(href), `${links}: ${href}`).toBe('site.example');
      if (links === 'link') expect(hostOf(c.link.story.real_path)).toBe('site.example');
    }
  });
});
