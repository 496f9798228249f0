/** The nested components ("bloks") of the demo space. */
import type {
  Blok,
  CtaBlok,
  FeatureBlok,
  GalleryBlok,
  GridBlok,
  HeroBlok,
  QuoteBlok,
  Table,
  TeaserBlok,
  TextBlok,
} from 'content:types';
import { attrs, esc, join } from './html.js';
import { hrefOf, image, images, linkTo } from './links.js';
import { richText } from './richtext.js';

type KnownBlok = CtaBlok | FeatureBlok | GalleryBlok | GridBlok | HeroBlok | QuoteBlok | TeaserBlok | TextBlok;

const KNOWN = new Set(['cta', 'feature', 'gallery', 'grid', 'hero', 'quote', 'teaser', 'text']);
const isKnown = (blok: Blok): blok is Blok & KnownBlok => KNOWN.has(blok.component);

/** A blok's fields may be missing whatever the types observed so far say (one added and never filled in). */
export function renderBlok(blok: Blok, lang: string): string {
  const one = (b: Blok) => renderBlok(b, lang);
  if (!isKnown(blok)) return `<!-- unknown component ${esc(blok.component)} -->`;
  switch (blok.component) {
    case 'hero': {
      const href = hrefOf(blok.link, lang);
      return `<section class="hero hero-${esc(blok.theme)}">${image(blok.image, blok.headline, 'hero-image')}<div><h2>${esc(blok.headline)}</h2><p>${esc(blok.subheadline)}</p>${href ? linkTo(blok.link, lang, 'Learn more', 'button') : ''}</div></section>`;
    }
    case 'text':
      return `<section class="text">${richText(blok.text, lang, one)}</section>`;
    case 'grid':
      return `<section class="grid">${(blok.columns ?? []).map(one).join('')}</section>`;
    case 'feature':
      return `<article class="feature"><h3><span class="icon">${esc(blok.icon?.icon)}</span> ${esc(blok.title)}</h3><p>${esc(blok.description)}</p></article>`;
    case 'teaser': {
      const target = blok.story?.linktype === 'story' ? blok.story : undefined;
      const href = hrefOf(blok.story, lang);
      if (!href) return '';
      const label = target?.story?.name ?? blok.headline;
      return `<a class="teaser" href="${esc(href)}">${image(blok.image, label)}<strong>${esc(label)}</strong></a>`;
    }
    case 'cta':
      return `<p class="cta cta-${esc(blok.style)}">${linkTo(blok.link, lang, blok.label, 'button')}</p>`;
    case 'quote': {
      const cite = hrefOf(blok.source, lang);
      return `<blockquote class="quote"${attrs({ cite })}><p>${esc(blok.quote)}</p>${blok.author_name ? `<footer>— ${esc(blok.author_name)}</footer>` : ''}</blockquote>`;
    }
    case 'gallery':
      return `<section class="gallery">${images(blok.images, blok.caption)}${blok.caption ? `<p class="caption">${esc(blok.caption)}</p>` : ''}</section>`;
  }
}

export function renderBloks(list: readonly Blok[] | undefined, lang: string): string {
  return join((list ?? []).map((b) => renderBlok(b, lang)));
}

/** A table field. */
export function renderTable(table: Table | undefined, caption: string): string {
  if (!table?.tbody?.length) return '';
  const head = (table.thead ?? []).map((h) => `<th>${esc(h.value)}</th>`).join('');
  const rows = table.tbody
    .map((r) => `<tr>${(r.body ?? []).map((c) => `<td>${esc(c.value)}</td>`).join('')}</tr>`)
    .join('');
  return `<table><caption>${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}
