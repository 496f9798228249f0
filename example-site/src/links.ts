/** Multilinks and assets: every kind rendered to the right URL in the page's language. */
import type { Asset, Multiasset, MultiassetItem, Multilink } from 'content:types';
import { responsiveImage } from '../../src/image/index.js';
import { attrs, esc } from './html.js';
import { safeHref } from './safe-href.js';
import { urlOfUuid } from './site.js';

/**
 * The href of a multilink in a language; undefined when it points nowhere (empty, or an unpublished
 * story) or to a URL no link may have (a `javascript:` URL, see safe-href.ts).
 */
export function hrefOf(link: Multilink | undefined, lang: string): string | undefined {
  return safeHref(rawHrefOf(link, lang));
}

function rawHrefOf(link: Multilink | undefined, lang: string): string | undefined {
  if (!link) return undefined;
  switch (link.linktype) {
    case 'story': {
      const url = urlOfUuid(link.id, lang);
      if (!url) return undefined;
      return link.anchor ? `${url}#${link.anchor}` : url;
    }
    case 'email':
      return link.email ? `mailto:${link.email}` : undefined;
    case 'url':
    case 'asset':
      return link.url || link.cached_url || undefined;
  }
}

/** `<a>` for a multilink; only the label when the link points nowhere. */
export function linkTo(link: Multilink | undefined, lang: string, label: string, className?: string): string {
  const href = hrefOf(link, lang);
  if (!href) return `<span${attrs({ class: className })}>${esc(label)}</span>`;
  const external = link?.linktype === 'url' || link?.linktype === 'asset';
  return `<a${attrs({ href, class: className, target: link?.target, rel: external ? 'noopener' : undefined })}>${esc(label)}</a>`;
}

type AnyAsset = Asset | MultiassetItem;

/** Widths the layout shows images at: up to the 960 px page column, doubled for dense screens. */
const IMAGE_WIDTHS = [400, 800, 960, 1440, 1920];

/**
 * `<img>` with its alt text (the asset's, else its title, else the given fallback), its width and
 * height (space reserved before it loads) and a srcset when the image service can make one; empty
 * for an empty asset field.
 */
export function image(
  asset: AnyAsset | undefined,
  fallbackAlt: string,
  className?: string,
  sizes = '(max-width: 960px) 100vw, 960px',
): string {
  if (!asset?.filename) return '';
  const alt = asset.alt || asset.title || fallbackAlt;
  const img = responsiveImage(asset.filename, { widths: IMAGE_WIDTHS, sizes });
  return `<img${attrs({ src: img.src, srcset: img.srcset, sizes: img.srcset ? img.sizes : undefined, alt, class: className, loading: 'lazy', width: img.width, height: img.height })}>`;
}

/** A figure per image of a multiasset field (which may arrive as `""` when empty). */
export function images(list: '' | Multiasset | undefined, fallbackAlt: string): string {
  if (!Array.isArray(list) || list.length === 0) return '';
  return list
    .map((item) => {
      const caption = item.copyright ? `<figcaption>${esc(item.copyright)}</figcaption>` : '';
      return `<figure>${image(item, fallbackAlt)}${caption}</figure>`;
    })
    .join('');
}
