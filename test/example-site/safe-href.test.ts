import { describe, expect, it } from 'vitest';
import { safeHref } from '../../example-site/src/safe-href.js';

describe('safeHref: which link URLs from content may be put in an href', () => {
  it('keeps web, mail and phone URLs, site paths, fragments, queries and relative paths', () => {
    for (const href of [
      'https://example.com/a?b#c',
      'http://example.com',
      'HTTPS://EXAMPLE.COM/',
      'mailto:someone@example.com',
      'tel:+4930123456',
      '/articles/first/',
      '/de/',
      '/',
      '#section-3',
      '?page=2',
      'relative/path',
      '../up',
      '/a%3Fb/',
    ])
      expect(safeHref(href), href).toBe(href);
  });

  it('drops every other scheme, whatever its case and the spaces, tabs or control characters around it', () => {
    for (const href of [
      'javascript:alert(document.domain)',
      '  JaVaScRiPt:alert(2)',
      '\tjavascript:alert(1)',
      '\u0001javascript:alert(1)',
      '\u0000javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'javascript\r:alert(1)',
      'data:text/html,<script>alert(5)</script>',
      'DATA:text/html;base64,PHNjcmlwdD4=',
      'vbscript:msgbox(1)',
      ' VBScript:msgbox(1)',
      'file:///etc/passwd',
      'blob:https://example.com/uuid',
    ])
      expect(safeHref(href), JSON.stringify(href)).toBeUndefined();
  });

  it('drops URLs that name another host without a scheme', () => {
    for (const href of [
      '//evil.example/x',
      '/\\evil.example\\y',
      '\\\\evil.example',
      ' //evil.example',
      '/\t/evil.example',
    ])
      expect(safeHref(href), JSON.stringify(href)).toBeUndefined();
  });

  it('drops what points nowhere or does not parse', () => {
    for (const href of ['', undefined, null, 'http://[::1', 'https://exa mple.com/'])
      expect(safeHref(href), String(href)).toBeUndefined();
  });
});
