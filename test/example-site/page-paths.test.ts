import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageFile } from '../../example-site/page-file.js';
import { PagesByUrl, pageKey, pageUrl } from '../../example-site/src/page-paths.js';

describe('pageUrl: the URL of a story page', () => {
  it('encodes each segment, so that ?, # and % stay in the path', () => {
    expect(pageUrl('/a?b')).toBe('/a%3Fb/');
    expect(pageUrl('/a#b')).toBe('/a%23b/');
    expect(pageUrl('/imprint-100%')).toBe('/imprint-100%25/');
    expect(pageUrl('/de/a b/c')).toBe('/de/a%20b/c/');
    expect(pageUrl('/x/%2e%2e')).toBe('/x/%252e%252e/');
    expect(new URL(pageUrl('/a?b'), 'https://site.invalid/').pathname).toBe('/a%3Fb/');
  });

  it('never gives // for an empty slug or empty segments', () => {
    expect(pageUrl('/')).toBe('/');
    expect(pageUrl('')).toBe('/');
    expect(pageUrl('//de')).toBe('/de/');
    expect(pageUrl('/imprint/')).toBe('/imprint/');
  });

  it('names the file the page is written to: the slug itself, decoded', () => {
    const out = path.resolve('/srv/site/dist');
    for (const slug of ['a?b', 'a#b', 'imprint-100%', 'café'])
      expect(pageFile(out, pageUrl(`/${slug}`))).toBe(path.join(out, slug, 'index.html'));
  });
});

describe('pageKey and PagesByUrl: the page a URL names', () => {
  it('is the same page without empty segments or the trailing slash', () => {
    expect(pageKey('//de/')).toBe(pageKey('/de/'));
    expect(pageKey('/imprint//')).toBe(pageKey('/imprint'));
    expect(pageKey('//')).toBe(pageKey('/'));
    expect(pageKey('/a%3Fb/')).not.toBe(pageKey('/a/b/'));
    expect(pageKey('/a%2Fb/')).not.toBe(pageKey('/a/b/'));
    expect(pageKey('/%E0%A4%A/')).toBeUndefined();
  });

  it('finds a page by its encoded or unencoded URL, and never throws on a % in a page or a request', () => {
    const pages = new PagesByUrl([{ url: '/' }, { url: '/imprint-100%/' }, { url: '/de/' }, { url: '/a%3Fb/' }]);
    expect(pages.find('/de/')).toEqual({ url: '/de/' });
    expect(pages.find('/de')).toEqual({ url: '/de/' });
    expect(pages.find('/a%3Fb/')).toEqual({ url: '/a%3Fb/' });
    expect(pages.find('/nope/')).toBeUndefined();
    expect(pages.find('/imprint-100%/')).toBeUndefined();
    expect(pages.find('/100%/')).toBeUndefined();
  });
});
