/**
 * Story content per content type (page, article, author, category, product)
 * and the nested bloks they use. Each builder returns the default-language
 * content and, per language, the translated top-level fields.
 */
import {
  asset,
  assetLink,
  dateField,
  emailLink,
  emptyAsset,
  EXTERNAL_URLS,
  storyLink,
  table,
  urlLink,
  type AssetDef,
  type Json,
  type LinkOptions,
  type StoryRef,
} from './fields.js';
import type { Random } from './random.js';
import { articleBody, kitchenSink, shortDoc, type RichTextContext } from './richtext.js';
import type { StoryPlan } from './structure.js';
import { fragment, sentence, sentences, shortPhrase, title } from './text.js';
import { COLORS, ICONS, ROLES, SIZES, type Lang, type Trio } from './vocabulary.js';

export interface ContentContext {
  rng: Random;
  images: AssetDef[];
  documents: AssetDef[];
  /** Published stories of each kind: the only targets of links and relations. */
  published: StoryRef[];
  articles: StoryRef[];
  products: StoryRef[];
  authors: StoryRef[];
  categories: StoryRef[];
  /** Per author index: uuids of published articles by that author (a few). */
  articlesByAuthor: string[][];
  /** Per product uuid: its position in `products`. */
  productIndex: Map<string, number>;
  countryCodes: string[];
  productCategoryNames: string[];
  /** Stories of a type whose ordinal is below this lack the fields added later. */
  legacyBelow: Record<string, number>;
}

export interface GeneratedContent {
  content: Json;
  translations: Record<Lang, Json>;
}

const CONTENT_TYPES_WITH_TITLE = new Set(['page', 'article', 'category']);

function uid(rng: Random): string {
  return rng.uuid();
}

function image(ctx: ContentContext): Json {
  return asset(ctx.rng.pick(ctx.images));
}

function multiasset(ctx: ContentContext, min: number, max: number, legacy: boolean): Json[] {
  return Array.from({ length: ctx.rng.int(min, max) }, () => asset(ctx.rng.pick(ctx.images), !legacy));
}

function anyStory(ctx: ContentContext): StoryRef {
  return ctx.rng.pick(ctx.published);
}

function linkOptions(ctx: ContentContext, variant: number): LinkOptions {
  const options: LinkOptions = {};
  if (variant % 2 === 0) options.uid = uid(ctx.rng);
  if (variant % 5 === 1) options.target = '_blank';
  return options;
}

/** A multilink of the given kind (0 story, 1 url, 2 email, 3 asset). */
function multilink(ctx: ContentContext, kind: number, variant: number): Json {
  const options = linkOptions(ctx, variant);
  switch (kind % 4) {
    case 0:
      if (variant % 3 === 0) options.anchor = `section-${ctx.rng.int(1, 5)}`;
      return storyLink(anyStory(ctx), options);
    case 1:
      return urlLink(ctx.rng.pick(EXTERNAL_URLS), options);
    case 2:
      return emailLink(`${ctx.rng.pick(['hello', 'press', 'jobs', 'support'])}@example.com`, options);
    default:
      return assetLink(ctx.rng.pick(ctx.documents), options);
  }
}

function richTextContext(ctx: ContentContext): RichTextContext {
  return {
    rng: ctx.rng,
    storyTarget: () => anyStory(ctx),
    imageAsset: () => ctx.rng.pick(ctx.images),
    documentAsset: () => ctx.rng.pick(ctx.documents),
    embeddedBlok: () => {
      const blok = ctx.rng.chance(0.5) ? quoteBlok(ctx) : ctaBlok(ctx, ctx.rng.int(0, 3));
      blok._uid = `i-${blok._uid as string}`;
      return blok;
    },
  };
}

function iconPlugin(ctx: ContentContext): Json {
  return { _uid: uid(ctx.rng), icon: ctx.rng.pick(ICONS), type: 'fas', plugin: 'fontawesome-selector' };
}

function seoPlugin(ctx: ContentContext, heading: string, description: string): Json {
  return {
    _uid: uid(ctx.rng),
    plugin: 'seo_metatags',
    title: heading,
    description,
    og_image: '',
  };
}

// ---- bloks ---------------------------------------------------------------

function heroBlok(ctx: ContentContext, headline: string): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'hero',
    headline,
    subheadline: sentence(ctx.rng).en,
    image: ctx.rng.chance(0.9) ? image(ctx) : emptyAsset(),
    theme: ctx.rng.pick(['light', 'dark']),
    link: multilink(ctx, ctx.rng.chance(0.7) ? 0 : 1, ctx.rng.int(0, 9)),
  };
}

function textBlok(ctx: ContentContext, text: Json): Json {
  return { _uid: uid(ctx.rng), component: 'text', text };
}

function featureBlok(ctx: ContentContext): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'feature',
    title: shortPhrase(ctx.rng).en,
    description: sentence(ctx.rng).en,
    icon: iconPlugin(ctx),
  };
}

function gridBlok(ctx: ContentContext): Json {
  const columns = Array.from({ length: 2 }, () => featureBlok(ctx));
  const width = '6';
  return {
    _uid: uid(ctx.rng),
    component: 'grid',
    columns,
    layout: {
      _uid: uid(ctx.rng),
      plugin: 'example_plugin',
      xsmall: '12',
      small: '6',
      medium: width,
      large: '',
      xlarge: '',
    },
  };
}

function teaserBlok(ctx: ContentContext, target: StoryRef): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'teaser',
    headline: target.name,
    story: storyLink(target),
    image: image(ctx),
  };
}

function ctaBlok(ctx: ContentContext, kind: number): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'cta',
    label: ctx.rng.pick(['Read more', 'Get in touch', 'Download', 'Shop now', 'Subscribe']),
    link: multilink(ctx, kind, ctx.rng.int(0, 9)),
    style: ctx.rng.pick(['primary', 'secondary']),
  };
}

function quoteBlok(ctx: ContentContext): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'quote',
    quote: sentence(ctx.rng).en,
    author_name: ctx.rng.chance(0.8) ? shortPhrase(ctx.rng).en : '',
    source: urlLink(ctx.rng.pick(EXTERNAL_URLS)),
  };
}

function galleryBlok(ctx: ContentContext, legacy: boolean): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'gallery',
    images: legacy && ctx.rng.chance(0.3) ? '' : multiasset(ctx, 2, 3, legacy),
    caption: fragment(ctx.rng).en,
  };
}

function variantBlok(ctx: ContentContext, sku: string, price: number, n: number): Json {
  return {
    _uid: uid(ctx.rng),
    component: 'product-variant',
    name: `${ctx.rng.pick(COLORS).value} / ${ctx.rng.pick(SIZES)}`,
    sku: `${sku}-${n + 1}`,
    size: ctx.rng.pick(SIZES),
    color: ctx.rng.pick(COLORS).name,
    price: (price + ctx.rng.int(0, 4) * 5).toFixed(2),
    in_stock: ctx.rng.chance(0.8),
  };
}

// ---- content types -------------------------------------------------------

function translations(fields: Record<string, Trio | Record<'en' | Lang, Json>>): { en: Json; de: Json; fr: Json } {
  const out = { en: {} as Json, de: {} as Json, fr: {} as Json };
  for (const [key, value] of Object.entries(fields)) {
    out.en[key] = value.en;
    out.de[key] = value.de;
    out.fr[key] = value.fr;
  }
  return out;
}

function split(t: { en: Json; de: Json; fr: Json }): Record<Lang, Json> {
  return { de: t.de, fr: t.fr };
}

export function homeContent(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  const { rng } = ctx;
  const t = translations({ title: { en: 'Welcome', de: 'Willkommen', fr: 'Bienvenue' }, intro: sentences(rng, 2) });
  const featured = rng.sample(ctx.articles, 4);
  const body: Json[] = [
    heroBlok(ctx, t.en.title as string),
    textBlok(ctx, kitchenSink(richTextContext(ctx))),
    gridBlok(ctx),
    ...featured.slice(0, 2).map((a) => teaserBlok(ctx, a)),
    ctaBlok(ctx, 0),
    ctaBlok(ctx, 2),
    quoteBlok(ctx),
    galleryBlok(ctx, false),
  ];
  return {
    content: {
      _uid: uid(rng),
      component: 'page',
      ...t.en,
      body,
      featured_articles: featured.map((a) => a.uuid),
      featured_products: rng.sample(ctx.products, 3).map((p) => p.uuid),
      show_in_nav: false,
      seo: seoPlugin(ctx, plan.name.en, t.en.intro as string),
    },
    translations: split(t),
  };
}

export function pageContent(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  const { rng } = ctx;
  const t = translations({ title: plan.name, intro: sentences(rng, 1) });
  const body: Json[] = [heroBlok(ctx, plan.name.en)];
  const n = plan.ordinal;
  if (plan.isStartpage) {
    if (ctx.published.length) body.push(teaserBlok(ctx, anyStory(ctx)));
  } else {
    const kinds = [
      () => textBlok(ctx, shortDoc(rng, 2).en),
      () => gridBlok(ctx),
      () => ctaBlok(ctx, n),
      () => quoteBlok(ctx),
      () => galleryBlok(ctx, n < ctx.legacyBelow.page!),
      () => teaserBlok(ctx, anyStory(ctx)),
    ];
    body.push(kinds[n % kinds.length]!(), kinds[(n + 2) % kinds.length]!());
  }
  return {
    content: {
      _uid: uid(rng),
      component: 'page',
      ...t.en,
      body,
      show_in_nav: plan.isStartpage || rng.chance(0.3),
      seo: seoPlugin(ctx, plan.name.en, t.en.intro as string),
    },
    translations: split(t),
  };
}

export function articleContent(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  const { rng } = ctx;
  const n = plan.ordinal;
  const legacy = n < ctx.legacyBelow.article!;
  const t = translations({ title: plan.name, teaser: sentences(rng, 1), intro: shortDoc(rng, 1) });
  const year = plan.folder?.year ?? 2025;
  const date = Date.UTC(year, rng.int(0, 11), rng.int(1, 28), rng.int(6, 20), rng.int(0, 59));
  const content: Json = {
    _uid: uid(rng),
    component: 'article',
    ...t.en,
    body: articleBody(richTextContext(ctx), n),
    image: n % 10 === 9 ? emptyAsset() : image(ctx),
    gallery: n % 7 === 3 ? '' : n % 7 === 1 || n % 7 === 4 ? multiasset(ctx, 1, 2, legacy) : [],
    author: ctx.authors[plan.authorIndex]!.uuid,
    categories: plan.categoryIndexes.map((i) => ctx.categories[i]!.uuid),
    published_date: dateField(date),
    featured: rng.chance(0.15),
    color: rng.pick(COLORS).name,
    link: multilink(ctx, n, n >> 2),
    blocks:
      n % 8 === 1
        ? [quoteBlok(ctx)]
        : n % 8 === 2
          ? [ctaBlok(ctx, n >> 3)]
          : n % 8 === 3
            ? [galleryBlok(ctx, legacy)]
            : [],
  };
  if (!legacy) {
    content.subtitle = shortPhrase(rng).en;
    content.reading_time = String(rng.int(2, 15));
  }
  if (n % 10 === 2) {
    content.facts = table(
      rng,
      ['Fact', 'Value'],
      Array.from({ length: rng.int(2, 3) }, () => [fragment(rng).en, String(rng.int(1, 1000))]),
      false,
    );
  }
  return { content, translations: split(t) };
}

export function authorContent(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  const { rng } = ctx;
  const first = plan.name.en.split(' ')[0]!.toLowerCase();
  const t = translations({ role: rng.pick(ROLES), bio: shortDoc(rng, 1) });
  return {
    content: {
      _uid: uid(rng),
      component: 'author',
      name: plan.name.en,
      ...t.en,
      avatar: plan.ordinal % 6 === 5 ? emptyAsset() : image(ctx),
      email: emailLink(`${first}@example.com`, { uid: uid(rng) }),
      website: urlLink(`https://${first}.example.com/`, { target: '_blank' }),
      country: rng.pick(ctx.countryCodes),
      featured_articles: ctx.articlesByAuthor[plan.ordinal] ?? [],
      social: {
        _uid: uid(rng),
        plugin: 'social-links',
        twitter: `@${first}`,
        mastodon: plan.ordinal % 2 ? `@${first}@social.example` : '',
        linkedin: '',
      },
    },
    translations: split(t),
  };
}

export function categoryContent(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  const { rng } = ctx;
  const t = translations({ title: plan.name, description: sentence(rng) });
  return {
    content: {
      _uid: uid(rng),
      component: 'category',
      ...t.en,
      icon: iconPlugin(ctx),
      color: COLORS[plan.ordinal % COLORS.length]!.name,
      image: image(ctx),
      featured: plan.ordinal < 3,
    },
    translations: split(t),
  };
}

export function productContent(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  const { rng } = ctx;
  const n = plan.ordinal;
  const legacy = n < ctx.legacyBelow.product!;
  const t = translations({ tagline: shortPhrase(rng), description: shortDoc(rng, 1) });
  const price = rng.int(5, 400) + rng.pick([0, 0.49, 0.95, 0.99]);
  const sku = `SKU-${String(100000 + n)}`;
  const category = plan.folder?.productCategory ?? rng.pick(ctx.productCategoryNames);
  const related: string[] = [];
  const index = ctx.productIndex.get(plan.uuid);
  if (index !== undefined && ctx.products.length > 1) {
    // Neighbours relate to each other, so relations form cycles.
    related.push(ctx.products[(index + 1) % ctx.products.length]!.uuid);
    const prev = ctx.products[(index + ctx.products.length - 1) % ctx.products.length]!.uuid;
    if (!related.includes(prev)) related.push(prev);
  }
  if (ctx.products.length > 3 && rng.chance(0.5)) {
    const extra = rng.pick(ctx.products).uuid;
    if (extra !== plan.uuid && !related.includes(extra)) related.push(extra);
  }
  const content: Json = {
    _uid: uid(rng),
    component: 'product',
    name: plan.name.en,
    ...t.en,
    sku,
    price: price.toFixed(2),
    stock: String(rng.skewedIndex(500)),
    weight: Math.round(rng.int(50, 5000) / 10) / 100,
    category,
    colors: rng.sample(COLORS, rng.int(1, 3)).map((c) => c.name),
    on_sale: rng.chance(0.2),
    available_from: dateField(Date.UTC(2025, rng.int(0, 8), rng.int(1, 28), rng.int(8, 18), 0)),
    images: n % 9 === 4 ? '' : multiasset(ctx, 1, n % 3 === 0 ? 2 : 1, legacy),
    variants: Array.from({ length: rng.int(1, 2) }, (_, i) => variantBlok(ctx, sku, Math.floor(price), i)),
    related_products: related,
    manual:
      n % 3 === 0
        ? assetLink(rng.pick(ctx.documents))
        : { id: '', url: '', linktype: 'url', fieldtype: 'multilink', cached_url: '' },
    accent: { _uid: uid(rng), plugin: 'native-color-picker', color: rng.pick(COLORS).hex },
  };
  if (!legacy) content.rating = (rng.int(20, 50) / 10).toFixed(1);
  if (n % 3 === 0)
    content.specs = table(
      rng,
      ['Property', 'Value'],
      [
        ['Weight', `${rng.int(1, 50) / 10} kg`],
        ['Warranty', `${rng.int(1, 5)} years`],
      ],
      true,
    );
  return { content, translations: split(t) };
}

export function contentFor(ctx: ContentContext, plan: StoryPlan): GeneratedContent {
  switch (plan.type) {
    case 'home':
      return homeContent(ctx, plan);
    case 'startpage':
    case 'page':
      return pageContent(ctx, plan);
    case 'article':
      return articleContent(ctx, plan);
    case 'author':
      return authorContent(ctx, plan);
    case 'category':
      return categoryContent(ctx, plan);
    case 'product':
      return productContent(ctx, plan);
  }
}

/**
 * A changed copy of some content, as an editor would leave it in a draft or
 * a release: a new title (or price), and translations left as they were.
 */
export function changedContent(rng: Random, content: Json, label: string): Json {
  const copy = structuredClone(content);
  if (CONTENT_TYPES_WITH_TITLE.has(copy.component as string)) copy.title = `${title(rng).en}`;
  if (copy.component === 'article') copy.teaser = `${label}: ${sentence(rng).en}`;
  if (copy.component === 'product') {
    copy.price = (rng.int(5, 400) + 0.99).toFixed(2);
    copy.stock = String(rng.int(0, 50));
    copy.tagline = `${label}: ${shortPhrase(rng).en}`;
  }
  if (copy.component === 'page') copy.intro = `${label}: ${sentence(rng).en}`;
  return copy;
}
