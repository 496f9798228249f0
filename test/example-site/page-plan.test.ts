import { describe, expect, it } from 'vitest';
import { pageUrl } from '../../example-site/src/page-paths.js';
import { planPages } from '../../example-site/src/page-plan.js';

/** The site's own pages first (as site.ts orders them), then stories. */
const site = [
  { url: '/404.html', what: 'the not-found page', page: 'not found' },
  { url: '/', what: 'home story 1', page: 'home' },
  { url: '/de/', what: 'home story 1 (de)', page: 'home de' },
  { url: '/tags/', what: 'the tags index', page: 'tags' },
  { url: '/tags/news/', what: 'tag "news"', page: 'news' },
];

const story = (id: number, path: string) => ({ url: pageUrl(path), what: `story ${id}`, page: `story ${id}` });

describe('planPages: one page per file, decided before rendering', () => {
  it('keeps the pages of distinct files, in the order given', () => {
    const stories = [story(2, '/articles'), story(3, '/articles/first'), story(4, '/a?b'), story(5, '/a#b')];
    const plan = planPages([...site, ...stories]);
    expect(plan.refused).toEqual([]);
    expect(plan.pages.map((p) => p.page)).toEqual([...site, ...stories].map((p) => p.page));
  });

  it('refuses a page whose file a case-insensitive file system holds as another (case, Unicode spelling)', () => {
    const stories = [
      story(2, '/about'),
      story(3, '/About'),
      story(4, '/caf\u00e9'), // é as one code point
      story(5, '/cafe\u0301'), // e and a combining accent
      story(6, '/TAGS/news'),
    ];
    const plan = planPages([...site, ...stories]);
    expect(plan.pages.map((p) => p.page)).toEqual([...site.map((p) => p.page), 'story 2', 'story 4']);
    expect(plan.refused.map((r) => r.message)).toEqual([
      'not writing the page of story 3 at "/About/": it clashes with story 2 at "/about/"',
      `not writing the page of story 5 at ${JSON.stringify(pageUrl('/cafe\u0301'))}: it clashes with story 4 at ${JSON.stringify(pageUrl('/caf\u00e9'))}`,
      'not writing the page of story 6 at "/TAGS/news/": it clashes with tag "news" at "/tags/news/"',
    ]);
  });

  it("refuses a story whose page is one of the site's own: the home pages, the tags pages, the not-found page", () => {
    const hostile = [
      story(27, ''), // empty full_slug
      story(32, '//de'), // full_slug /de
      story(33, '/de/'),
      story(34, '/tags'),
      story(35, '/tags/news/'),
      story(36, '/404.html'),
      story(37, '/index.html'), // its file would be inside the home page's file
      story(38, '/404.html/x'),
    ];
    const plan = planPages([...site, ...hostile]);
    expect(plan.pages.map((p) => p.page)).toEqual(site.map((p) => p.page));
    expect(plan.refused.map((r) => r.url)).toEqual(hostile.map((s) => s.url));
    expect(plan.refused[0]!.message).toBe(
      'not writing the page of story 27 at "/": it clashes with home story 1 at "/"',
    );
    expect(plan.refused[1]!.message).toContain('story 32 at "/de/": it clashes with home story 1 (de)');
    expect(plan.refused[5]!.message).toContain('the not-found page at "/404.html"');
    expect(plan.refused[6]!.message).toContain('home story 1 at "/"');
  });

  it('keeps the first of two stories with one page, whatever the empty segments or the trailing slash', () => {
    const plan = planPages([story(40, '/imprint'), story(41, '/imprint/'), story(42, '//imprint//'), story(43, '/x')]);
    expect(plan.pages.map((p) => p.page)).toEqual(['story 40', 'story 43']);
    expect(plan.refused.map((r) => r.message)).toEqual([
      'not writing the page of story 41 at "/imprint/": it clashes with story 40 at "/imprint/"',
      'not writing the page of story 42 at "/imprint/": it clashes with story 40 at "/imprint/"',
    ]);
  });

  it('compares decoded paths: an encoded and a plain URL of one page clash', () => {
    const plan = planPages([
      { url: '/a%20b/', what: 'story 1', page: 1 },
      { url: '/a b/', what: 'story 2', page: 2 },
    ]);
    expect(plan.refused.map((r) => r.url)).toEqual(['/a b/']);
  });

  it('refuses a page whose file would be a folder on the way to one taken before, and the other way round', () => {
    const plan = planPages([story(50, '/x'), story(51, '/x/index.html'), story(52, '/y/index.html'), story(53, '/y')]);
    expect(plan.pages.map((p) => p.page)).toEqual(['story 50', 'story 52']);
    expect(plan.refused.map((r) => r.url)).toEqual(['/x/index.html/', '/y/']);
  });

  it('refuses a page no file can be written for: a separator in a decoded segment, . or .., a name too long', () => {
    const tag = (name: string) => ({ url: `/tags/${encodeURIComponent(name)}/`, what: `tag ${name}`, page: name });
    const plan = planPages([tag('a/b'), tag('..'), tag('x'.repeat(256)), tag('é'.repeat(128)), tag('ok'), tag('%')]);
    expect(plan.pages.map((p) => p.page)).toEqual(['ok', '%']);
    expect(plan.refused.map((r) => r.message)).toEqual([
      'not writing the page of tag a/b at "/tags/a%2Fb/": a segment holds a path separator or NUL once decoded',
      'not writing the page of tag .. at "/tags/../": its segment ".." would leave its folder',
      `not writing the page of tag ${'x'.repeat(256)} at "/tags/${'x'.repeat(256)}/": a segment is longer than a file name may be (255 bytes)`,
      expect.stringContaining('longer than a file name may be'),
    ]);
  });
});
