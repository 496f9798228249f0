import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PageOutsideOutput, pageFile } from '../../example-site/page-file.js';

const out = path.resolve('/srv/site/dist');

describe('pageFile: where the prerender writes a page', () => {
  it('puts pages inside the output directory', () => {
    expect(pageFile(out, '/')).toBe(path.join(out, 'index.html'));
    expect(pageFile(out, '/de/artikel/erster/')).toBe(path.join(out, 'de', 'artikel', 'erster', 'index.html'));
    expect(pageFile(out, '/404.html')).toBe(path.join(out, '404.html'));
    expect(pageFile(out, '/tags/caf%C3%A9/')).toBe(path.join(out, 'tags', 'café', 'index.html'));
  });

  it('refuses URLs from hostile content that would leave it', () => {
    const hostile = [
      '/tags/../../../../x/', // a tag named ../../../../x
      '/tags/..%2F..%2F..%2F..%2Fx/', // the same, encoded as the site encodes tags
      '/../', // a slug of ..
      '/..', // the same without the slash: would overwrite the site's own index.html
      '/de/%2E%2E/',
      '/a/%5C..%5C..%5Cx/', // backslashes
      '/a/%00/',
      '/a/%E0%A4%A/', // not decodable
    ];
    for (const url of hostile) expect(() => pageFile(out, url), url).toThrow(PageOutsideOutput);
  });
});
