/**
 * The responsive image helper: size from the URL, srcset through the image
 * service for remote assets, the build's renditions (or the file itself) for
 * localized ones.
 */
import { describe, expect, it } from 'vitest';
import { imageSize, responsiveImage } from '../../src/image/index.js';

const REMOTE = 'https://a.example-cdn.com/f/287451/2400x1600/ab12cd34ef/hero-1.jpg';

describe('responsiveImage', () => {
  it('reads the size from a remote URL and from a localized file fragment; documents have none', () => {
    expect(imageSize(REMOTE)).toEqual({ width: 2400, height: 1600 });
    expect(imageSize('/assets/0a1b-xyz.jpg#600x900')).toEqual({ width: 600, height: 900 });
    expect(imageSize('https://a.example-cdn.com/f/287451/0x0/ab12cd34ef/manual-8.pdf')).toBeUndefined();
    expect(imageSize('/logo.svg')).toBeUndefined();
  });

  it('gives a remote asset a srcset through the image service, none wider than the original', () => {
    const img = responsiveImage(REMOTE, { widths: [400, 800, 3000], sizes: '50vw' });
    expect(img).toEqual({
      src: `${REMOTE}/m/800x0`,
      width: 2400,
      height: 1600,
      srcset: `${REMOTE}/m/400x0 400w, ${REMOTE}/m/800x0 800w, ${REMOTE} 2400w`,
      sizes: '50vw',
    });
    const filtered = responsiveImage(REMOTE, { widths: [400], filters: 'format(webp):quality(70)' });
    expect(filtered.srcset).toBe(
      `${REMOTE}/m/400x0/filters:format(webp):quality(70) 400w, ${REMOTE}/m/2400x0/filters:format(webp):quality(70) 2400w`,
    );
  });

  it('gives a localized asset its own file as src, without the size fragment', () => {
    expect(responsiveImage('/assets/0a1b-xyz.jpg#600x900')).toEqual({
      src: '/assets/0a1b-xyz.jpg',
      width: 600,
      height: 900,
    });
    expect(responsiveImage('/assets/manual.pdf')).toEqual({ src: '/assets/manual.pdf' });
  });

  it("gives a localized asset a srcset of the build's renditions, listed in its fragment", () => {
    const small = encodeURIComponent('/assets/0a1b-480w-abc.jpg');
    const medium = encodeURIComponent('https://cdn.example.com/a&b/0a1b-960w-def.jpg');
    const url = `/assets/0a1b-xyz.jpg#2400x1600&960=${medium}&480=${small}`;
    expect(imageSize(url)).toEqual({ width: 2400, height: 1600 });
    expect(responsiveImage(url, { sizes: '50vw' })).toEqual({
      src: 'https://cdn.example.com/a&b/0a1b-960w-def.jpg',
      width: 2400,
      height: 1600,
      srcset:
        '/assets/0a1b-480w-abc.jpg 480w, https://cdn.example.com/a&b/0a1b-960w-def.jpg 960w, /assets/0a1b-xyz.jpg 2400w',
      sizes: '50vw',
    });
    expect(responsiveImage(url, { fallbackWidth: 600 }).src).toBe('/assets/0a1b-480w-abc.jpg');
    expect(responsiveImage(url, { fallbackWidth: 100 }).src).toBe('/assets/0a1b-480w-abc.jpg');
    // A rendition not narrower than the original is not a candidate.
    expect(responsiveImage(`/assets/0a1b-xyz.jpg#400x300&480=${small}`)).toEqual({
      src: '/assets/0a1b-xyz.jpg',
      width: 400,
      height: 300,
    });
  });

  it('takes what content wrote as data: a bad escape is no candidate, spaces and commas do not split a srcset', () => {
    // Content is anyone's to write: a fragment with a broken escape drops that candidate, not the page.
    const small = encodeURIComponent('/assets/0a1b-480w-abc.jpg');
    expect(responsiveImage(`/assets/0a1b-xyz.jpg#2400x1600&960=%E0%A4%A&480=${small}`).srcset).toBe(
      '/assets/0a1b-480w-abc.jpg 480w, /assets/0a1b-xyz.jpg 2400w',
    );
    const remote = responsiveImage('https://a.example/f/1/1200x800/abc/my photo, final.jpg', { widths: [480] });
    expect(remote.srcset).toBe(
      'https://a.example/f/1/1200x800/abc/my%20photo,%20final.jpg/m/480x0 480w, https://a.example/f/1/1200x800/abc/my%20photo,%20final.jpg 1200w',
    );
    // Each candidate is one URL and one descriptor.
    for (const candidate of remote.srcset!.split(', ')) expect(candidate.split(' ')).toHaveLength(2);
  });
});
