/**
 * Rich text through @storyblok/richtext, with the site's own renderers for
 * what only the site knows: story links (the target's URL in the page's
 * language, or plain text when the target is not published), asset links,
 * images (with their size and a srcset) and embedded bloks. A link to a URL
 * no link may have (`javascript:`, see safe-href.ts) is its text alone.
 */
import { renderRichText, type StoryblokRichTextInput, type StoryblokRichTextRendererMap } from '@storyblok/richtext';
import type { Blok, RichText } from 'content:types';
import { responsiveImage } from '../../src/image/index.js';
import { attrs } from './html.js';
import { safeHref } from './safe-href.js';
import { urlOfUuid } from './site.js';

export type BlokRenderer = (blok: Blok) => string;

export function richText(doc: RichText | undefined, lang: string, renderBlok: BlokRenderer): string {
  if (!doc || typeof doc !== 'object' || !doc.content?.length) return '';
  const renderers: StoryblokRichTextRendererMap = {
    link: ({ attrs: link, children }) => {
      let href: string | null | undefined = link.href;
      if (link.linktype === 'story') {
        const url = link.uuid ? urlOfUuid(link.uuid, lang) : undefined;
        if (!url) return children;
        href = link.anchor ? `${url}#${link.anchor}` : url;
      } else if (link.linktype === 'email') {
        href = link.href ? `mailto:${link.href.replace(/^mailto:/, '')}` : undefined;
      }
      href = safeHref(href);
      if (!href) return children;
      const external = link.linktype === 'url' || link.linktype === 'asset';
      return `<a${attrs({ href, target: link.target, rel: external ? 'noopener' : undefined })}>${children}</a>`;
    },
    image: ({ attrs: img }) => {
      if (!img?.src) return '';
      const { src, srcset, sizes, width, height } = responsiveImage(String(img.src), {
        widths: [400, 800, 960, 1440],
        sizes: '(max-width: 960px) 100vw, 960px',
      });
      return `<img${attrs({ src, srcset, sizes: srcset ? sizes : undefined, alt: img.alt ?? '', title: img.title || undefined, loading: 'lazy', width, height })}>`;
    },
    blok: ({ attrs: node }) => (node.body ?? []).map((b) => renderBlok(b as Blok)).join(''),
  };
  return `<div class="richtext">${renderRichText(doc as StoryblokRichTextInput, { renderers })}</div>`;
}
