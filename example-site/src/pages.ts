/** The body of a page per content type, and the tag pages. */
import type {
  AnyStory,
  ArticleStory,
  AuthorStory,
  CategoryStory,
  Multilink,
  PageStory,
  ProductStory,
  Relation,
  Story,
} from 'content:types';
import { backlinksOf } from 'content:backlinks';
import { label } from 'content:datasources';
import { byTag, byUuid, load, type StoryEntry } from 'content:index';
import { tags } from 'content:tags';
import { renderBlok, renderBloks, renderTable } from './bloks.js';
import { attrs, esc, join } from './html.js';
import { t } from './i18n.js';
import { image, images, linkTo } from './links.js';
import { richText } from './richtext.js';
import { folderContents, htmlLang, tagUrl, urlOf, urlOfUuid, type PageContext } from './site.js';

/** Datasource dimensions are language codes; the default language reads the default values. */
const dimension = (lang: string): string | undefined => (lang === 'default' ? undefined : lang);

/**
 * The related stories that are published in this language. Left out: unresolved relations (uuids,
 * with keepUnresolved) and the null a single relation becomes when its target is gone (an author
 * unpublished), whatever the types observed so far say.
 */
function related<S extends Story>(
  list: ReadonlyArray<Relation<S> | null | undefined> | undefined,
  lang: string,
): Array<{ story: S; url: string }> {
  const out: Array<{ story: S; url: string }> = [];
  for (const item of list ?? []) {
    if (item === null || item === undefined || typeof item === 'string') continue;
    const url = urlOfUuid(item.uuid, lang);
    if (url) out.push({ story: item, url });
  }
  return out;
}

/**
 * A story's title, else its name. Content fields may be missing whatever the types observed so far
 * say: a story created and published before its fields were filled in has none of them.
 */
export function titleOf(story: { name: string; content: object }): string {
  const c = story.content as { title?: unknown; name?: unknown };
  const title = 'title' in c ? c.title : c.name;
  return (typeof title === 'string' && title) || story.name;
}

const storyLink = (name: string, url: string, rel?: string): string =>
  `<a${attrs({ href: url, rel })}>${esc(name)}</a>`;

function list(title: string, items: string[], className: string): string {
  if (items.length === 0) return '';
  return `<section class="${className}"><h2>${esc(title)}</h2><ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul></section>`;
}

/** Each story's title, linked to its page when it has one. */
function entryLinks(ctx: PageContext, list: readonly StoryEntry[]): string[] {
  return list.map((e) => {
    const url = urlOf(e);
    return url ? storyLink(ctx.title(e), url) : esc(ctx.title(e));
  });
}

/** A tag, linked to its page when it has one. */
function tagLink(tag: string, lang: string): string {
  const url = tagUrl(tag, lang);
  return url ? `<a class="tag" href="${esc(url)}">${esc(tag)}</a>` : `<span class="tag">${esc(tag)}</span>`;
}

function tagLinks(tagList: readonly string[], lang: string): string {
  if (tagList.length === 0) return '';
  return `<p class="tags">${esc(t('tags', lang))}: ${tagList.map((tag) => tagLink(tag, lang)).join(' ')}</p>`;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const priceFormats = new Map<string, Intl.NumberFormat>();

function formatDate(value: string, lang: string): string {
  const date = new Date(`${value.replace(' ', 'T')}Z`);
  if (Number.isNaN(date.getTime())) return esc(value);
  let format = dateFormats.get(lang);
  if (!format)
    dateFormats.set(
      lang,
      (format = new Intl.DateTimeFormat(htmlLang(lang), {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        timeZone: 'UTC',
      })),
    );
  return `<time datetime="${esc(date.toISOString())}">${esc(format.format(date))}</time>`;
}

function formatPrice(value: string, lang: string): string {
  let format = priceFormats.get(lang);
  if (!format)
    priceFormats.set(lang, (format = new Intl.NumberFormat(htmlLang(lang), { style: 'currency', currency: 'EUR' })));
  return format.format(Number(value));
}

/** Stories that reference this one (relations and links), published in this language. */
function referencedBy(story: Story, ctx: PageContext): string {
  const { lang } = ctx;
  const entries = backlinksOf(story.uuid)
    .map((uuid) => byUuid(uuid, lang))
    .filter((e): e is StoryEntry => e !== undefined);
  return list(t('referencedBy', lang), entryLinks(ctx, entries), 'backlinks');
}

function page(story: PageStory, entry: StoryEntry, ctx: PageContext): string {
  const { lang } = ctx;
  const c = story.content;
  const section = entry.is_startpage ? folderContents(entry) : undefined;
  return join([
    `<h1>${esc(titleOf(story))}</h1>`,
    c.intro && `<p class="intro">${esc(c.intro)}</p>`,
    renderBloks(c.body, lang),
    list(
      t('featuredArticles', lang),
      related(c.featured_articles, lang).map((r) => storyLink(titleOf(r.story), r.url)),
      'featured-articles',
    ),
    list(
      t('featuredProducts', lang),
      related(c.featured_products, lang).map((r) => storyLink(titleOf(r.story), r.url)),
      'featured-products',
    ),
    section &&
      list(
        t('inThisSection', lang),
        [...entryLinks(ctx, section.folders), ...entryLinks(ctx, section.stories)],
        'section-index',
      ),
  ]);
}

function article(story: ArticleStory, ctx: PageContext): string {
  const { lang } = ctx;
  const c = story.content;
  const author = related([c.author], lang)[0];
  const categories = related(c.categories, lang);
  const colour = label('colors', c.color, dimension(lang));
  const meta = join(
    [
      author &&
        `<span class="author">${esc(t('by', lang))} <a rel="author" href="${esc(author.url)}">${esc(titleOf(author.story))}</a></span>`,
      c.published_date && formatDate(c.published_date, lang),
      c.reading_time && `<span>${esc(c.reading_time)} ${esc(t('readingTime', lang))}</span>`,
      colour &&
        `<span class="color">${esc(t('color', lang))}: <span class="datasource-label">${esc(colour)}</span></span>`,
    ],
    ' · ',
  );
  const renderOne = (b: Parameters<typeof renderBlok>[0]) => renderBlok(b, lang);
  return join([
    `<h1>${esc(titleOf(story))}</h1>`,
    c.subtitle && `<p class="subtitle">${esc(c.subtitle)}</p>`,
    `<p class="meta">${meta}</p>`,
    categories.length > 0 &&
      `<p class="categories">${esc(t('categories', lang))}: ${categories.map((r) => `<a class="category" href="${esc(r.url)}">${esc(titleOf(r.story))}</a>`).join(', ')}</p>`,
    image(c.image, titleOf(story), 'lead-image'),
    `<p class="teaser">${esc(c.teaser)}</p>`,
    richText(c.intro, lang, renderOne),
    richText(c.body, lang, renderOne),
    renderTable(c.facts, 'Facts'),
    images(c.gallery, titleOf(story)),
    renderBloks(c.blocks, lang),
    `<p class="more">${linkTo(c.link, lang, moreLabel(c.link, ctx))}</p>`,
    tagLinks(story.tag_list, lang),
  ]);
}

function author(story: AuthorStory, ctx: PageContext): string {
  const { lang } = ctx;
  const c = story.content;
  const country = label('countries', c.country, dimension(lang));
  return join([
    `<h1>${esc(titleOf(story))}</h1>`,
    `<p class="role">${esc(c.role)}</p>`,
    image(c.avatar, titleOf(story), 'avatar'),
    richText(c.bio, lang, (b) => renderBlok(b, lang)),
    `<dl class="facts">`,
    country && `<dt>${esc(t('country', lang))}</dt><dd class="datasource-label">${esc(country)}</dd>`,
    `<dt>E-mail</dt><dd>${linkTo(c.email, lang, (c.email?.linktype === 'email' && c.email.email) || 'E-mail')}</dd>`,
    `<dt>${esc(t('website', lang))}</dt><dd>${linkTo(c.website, lang, c.website?.url || c.website?.cached_url || '')}</dd>`,
    `</dl>`,
    list(
      t('featuredArticles', lang),
      related(c.featured_articles, lang).map((r) => storyLink(titleOf(r.story), r.url)),
      'featured-articles',
    ),
    referencedBy(story, ctx),
  ]);
}

function category(story: CategoryStory, ctx: PageContext): string {
  const { lang } = ctx;
  const c = story.content;
  const colour = label('colors', c.color, dimension(lang));
  return join([
    `<h1>${esc(titleOf(story))}</h1>`,
    `<p class="intro">${esc(c.description)}</p>`,
    colour && `<p class="color">${esc(t('color', lang))}: <span class="datasource-label">${esc(colour)}</span></p>`,
    image(c.image, titleOf(story), 'lead-image'),
    referencedBy(story, ctx),
  ]);
}

function product(story: ProductStory, ctx: PageContext): string {
  const { lang } = ctx;
  const c = story.content;
  const categoryLabel = label('product-categories', c.category, dimension(lang));
  const colours = (c.colors ?? []).map((name) => label('colors', name, dimension(lang)) ?? name);
  const price = c.price ? formatPrice(c.price, lang) : '';
  const variants = (c.variants ?? [])
    .map(
      (v) =>
        `<tr><td>${esc(v.name)}</td><td>${esc(v.sku)}</td><td>${esc(v.size)}</td><td>${esc(label('colors', v.color, dimension(lang)) ?? v.color)}</td><td>${esc(v.in_stock ? t('inStock', lang) : t('soldOut', lang))}</td></tr>`,
    )
    .join('');
  return join([
    `<h1>${esc(titleOf(story))}</h1>`,
    `<p class="tagline">${esc(c.tagline)}</p>`,
    price &&
      `<p class="price">${esc(t('price', lang))}: <strong>${esc(price)}</strong>${c.on_sale ? ` <span class="badge">${esc(t('onSale', lang))}</span>` : ''}</p>`,
    `<p class="meta">${esc(t('category', lang))}: <span class="datasource-label">${esc(categoryLabel ?? c.category)}</span> · ${esc(t('colors', lang))}: ${esc(colours.join(', '))}</p>`,
    images(c.images, titleOf(story)),
    richText(c.description, lang, (b) => renderBlok(b, lang)),
    variants &&
      `<table class="variants"><caption>${esc(t('variants', lang))}</caption><tbody>${variants}</tbody></table>`,
    renderTable(c.specs, 'Specifications'),
    c.manual?.linktype === 'asset' && c.manual.url && `<p>${linkTo(c.manual, lang, t('manual', lang))}</p>`,
    list(
      t('related', lang),
      related(c.related_products, lang).map((r) => storyLink(titleOf(r.story), r.url)),
      'related-products',
    ),
    tagLinks(story.tag_list, lang),
  ]);
}

/** The label of a "more" link: the target's title when it is a published story. */
function moreLabel(link: Multilink | undefined, ctx: PageContext): string {
  if (link?.linktype !== 'story') return 'More';
  const entry = byUuid(link.id, ctx.lang);
  return entry ? ctx.title(entry) : 'More';
}

/** The main content of a story's page. */
export function storyBody(story: AnyStory, entry: StoryEntry, ctx: PageContext): string {
  switch (story.content.component) {
    case 'page':
      return page(story as PageStory, entry, ctx);
    case 'article':
      return article(story as ArticleStory, ctx);
    case 'author':
      return author(story as AuthorStory, ctx);
    case 'category':
      return category(story as CategoryStory, ctx);
    case 'product':
      return product(story as ProductStory, ctx);
  }
}

export async function loadStory(entry: StoryEntry): Promise<AnyStory> {
  return load(entry);
}

/** The stories carrying a tag, in a language. */
export function tagBody(tag: string, ctx: PageContext): string {
  const { lang } = ctx;
  const tagged = byTag(tag, lang).sort((a, b) => ctx.title(a).localeCompare(ctx.title(b)));
  return `<h1>${esc(t('taggedWith', lang))} “${esc(tag)}”</h1>${list(`${tagged.length}`, entryLinks(ctx, tagged), 'tagged')}`;
}

export function tagsBody(lang: string): string {
  const items = tags.map((tag) => `${tagLink(tag.name, lang)} (${tag.taggings_count})`);
  return `<h1>${esc(t('tags', lang))}</h1>${list(t('tags', lang), items, 'tag-index')}`;
}
