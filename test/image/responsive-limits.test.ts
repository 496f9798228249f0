/**
 * The helper's remote candidates are renditions the image service makes: none more than 4000
 * pixels a side (its limit, a 422 beyond), whether the side is named or follows the ratio.
 */
import { describe, expect, it } from 'vitest';
import { responsiveImage } from '../../src/image/index.js';
import { MAX_OUTPUT_SIDE } from '../../src/server/assets/image-service.js';

/** The output size of each `/m/<w>x0` candidate of a srcset, for an original of `width` x `height`. */
function renditionSizes(srcset: string, width: number, height: number): Array<[number, number]> {
  return srcset
    .split(', ')
    .map((c) => /\/m\/(\d+)x0/.exec(c))
    .filter((m) => m !== null)
    .map((m) => [Number(m[1]), Math.round((height * Number(m[1])) / width)]);
}

describe('responsiveImage within the image service limits', () => {
  it('lists no candidate wider than 4000 pixels, with filters, for an original wider than that', () => {
    const url = 'https://a.example-cdn.com/f/287451/6000x4000/ab12cd34ef/panorama.jpg';
    const img = responsiveImage(url, { filters: 'format(webp)' });
    for (const [w, h] of renditionSizes(img.srcset!, 6000, 4000)) {
      expect(Math.max(w, h), img.srcset).toBeLessThanOrEqual(MAX_OUTPUT_SIDE);
    }
  });

  it('lists no candidate taller than 4000 pixels for a tall original', () => {
    const url = 'https://a.example-cdn.com/f/287451/2000x8000/ab12cd34ef/tower.jpg';
    const img = responsiveImage(url);
    for (const [w, h] of [...renditionSizes(img.srcset!, 2000, 8000), ...renditionSizes(img.src, 2000, 8000)]) {
      expect(Math.max(w, h), `${img.src} | ${img.srcset}`).toBeLessThanOrEqual(MAX_OUTPUT_SIDE);
    }
  });
});
