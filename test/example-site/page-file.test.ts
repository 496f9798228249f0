import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clearLeftover, isPathError, PageOutsideOutput, pageFile } from '../../example-site/page-file.js';

/** The error `act` throws. */
function thrown(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

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

describe('isPathError: a page refused for its path, not a failed build', () => {
  it('tells the errors of a path that cannot be a page file here, as the file system gives them', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'page-path-'));
    try {
      const built = path.join(dir, 'index.html');
      writeFileSync(built, 'the home page');
      mkdirSync(path.join(dir, 'folder'));
      const errors = [
        thrown(() => statSync(path.join(built, 'index.html'))), // a slug index.html: ENOTDIR
        thrown(() => mkdirSync(path.join(built, 'x'), { recursive: true })), // the same, made as a folder
        thrown(() => writeFileSync(path.join(dir, 'folder'), 'x')), // EISDIR
        thrown(() => statSync(path.join(dir, 'a'.repeat(300), 'index.html'))), // ENAMETOOLONG
      ];
      for (const error of errors) expect(isPathError(error), String(error)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves every other error to fail the build', () => {
    for (const code of ['ENOSPC', 'EACCES', 'EPERM', 'EIO', 'EMFILE', undefined])
      expect(isPathError(Object.assign(new Error(String(code)), { code })), String(code)).toBe(false);
    expect(isPathError(new Error('two pages'))).toBe(false);
    expect(isPathError(undefined)).toBe(false);
  });
});

describe('clearLeftover: what the last build left in the way of a page', () => {
  const site = () => mkdtempSync(path.join(os.tmpdir(), 'leftover-'));
  const exists = (f: string) => statSync(f, { throwIfNoEntry: false }) !== undefined;

  it('removes a page of the last build where a folder must be, and a folder of them where the file must be', () => {
    const dir = site();
    try {
      // The last build's start page at /about/; now a page at /about/index.html/.
      const start = pageFile(dir, '/about/');
      mkdirSync(path.dirname(start), { recursive: true });
      writeFileSync(start, 'the start page');
      const page = pageFile(dir, '/about/index.html/');
      const last = new Set([start]);
      expect(clearLeftover(dir, page, { last, planned: new Set([page]) })).toBe(true);
      expect(exists(start)).toBe(false);
      // And back: that page's folder is where the start page goes.
      mkdirSync(path.dirname(page), { recursive: true });
      writeFileSync(page, 'the page');
      expect(clearLeftover(dir, start, { last: new Set([page]), planned: new Set([start]) })).toBe(true);
      expect(exists(path.dirname(page))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves what no page of the last build wrote (a file the client build copied) and what this build writes', () => {
    const dir = site();
    try {
      const verification = path.join(dir, 'google1234.html');
      writeFileSync(verification, 'google-site-verification');
      const page = pageFile(dir, '/google1234.html/');
      expect(clearLeftover(dir, page, { last: new Set(), planned: new Set([page]) })).toBe(false);
      expect(exists(verification)).toBe(true);
      expect(clearLeftover(dir, page, { last: new Set([verification]), planned: new Set([page, verification]) })).toBe(
        false,
      );
      expect(exists(verification)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
