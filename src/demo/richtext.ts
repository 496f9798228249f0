/**
 * Rich text documents (`{type: 'doc', content}`) with the node and mark types
 * the real editor produces.
 */
import { RICHTEXT_PLAIN_MARK_TYPES } from '../api/index.js';
import type { AssetDef, Json, StoryRef } from './fields.js';
import type { Random } from './random.js';
import { EMOJIS, type Lang, type Trio } from './vocabulary.js';
import { fragment, sentence, sentences } from './text.js';

export interface RichTextContext {
  rng: Random;
  /** A story a link mark may point at. */
  storyTarget(): StoryRef;
  imageAsset(): AssetDef;
  documentAsset(): AssetDef;
  /** A blok embedded in a `blok` node. */
  embeddedBlok(): Json;
}

export const SIMPLE_MARKS = RICHTEXT_PLAIN_MARK_TYPES;
export type SimpleMark = (typeof SIMPLE_MARKS)[number];
export const LINK_TYPES = ['story', 'url', 'email', 'asset'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export const SEGMENTS = [
  'bullet_list',
  'ordered_list',
  'blockquote',
  'code_block',
  'image',
  'table',
  'blok',
  'horizontal_rule',
  'emoji',
  'headings',
] as const;
export type Segment = (typeof SEGMENTS)[number];

const HIGHLIGHTS = ['#fff176', '#b2ff59', '#80d8ff'];
const TEXT_COLORS = ['#e53935', '#1e88e5', '#43a047'];
const STYLE_CLASSES = ['lead', 'small-print', 'accent'];

export function doc(content: Json[]): Json {
  return { type: 'doc', content };
}

export function text(value: string, marks?: Json[]): Json {
  return marks?.length ? { text: value, type: 'text', marks } : { text: value, type: 'text' };
}

export function paragraph(...content: Json[]): Json {
  return content.length ? { type: 'paragraph', content } : { type: 'paragraph' };
}

export function heading(level: number, value: string): Json {
  return { type: 'heading', attrs: { level }, content: [text(value)] };
}

export function simpleMark(kind: SimpleMark, rng: Random): Json {
  switch (kind) {
    case 'highlight':
      return { type: 'highlight', attrs: { color: rng.pick(HIGHLIGHTS) } };
    case 'textStyle':
      return { type: 'textStyle', attrs: { color: rng.pick(TEXT_COLORS) } };
    case 'anchor':
      return { type: 'anchor', attrs: { id: `section-${rng.int(1, 9)}` } };
    case 'styled':
      return { type: 'styled', attrs: { class: rng.pick(STYLE_CLASSES) } };
    default:
      return { type: kind };
  }
}

export function linkMark(kind: LinkType, ctx: RichTextContext): Json {
  const { rng } = ctx;
  switch (kind) {
    case 'story': {
      const target = ctx.storyTarget();
      return {
        type: 'link',
        attrs: {
          href: `/${target.fullSlug}`,
          uuid: target.uuid,
          anchor: rng.chance(0.25) ? `section-${rng.int(1, 5)}` : null,
          target: '_self',
          linktype: 'story',
          custom: {},
        },
      };
    }
    case 'url':
      return {
        type: 'link',
        attrs: {
          href: `https://example.com/${rng.pick(['guide', 'news', 'about', 'shop'])}`,
          uuid: null,
          anchor: null,
          target: '_blank',
          linktype: 'url',
          custom: {},
        },
      };
    case 'email':
      return {
        type: 'link',
        attrs: {
          href: `${rng.pick(['hello', 'press', 'support'])}@example.com`,
          uuid: null,
          anchor: null,
          target: null,
          linktype: 'email',
          custom: {},
        },
      };
    case 'asset':
      return {
        type: 'link',
        attrs: {
          href: ctx.documentAsset().filename,
          uuid: null,
          anchor: null,
          target: '_blank',
          linktype: 'asset',
          custom: {},
        },
      };
  }
}

/** A paragraph with one marked span in the middle. */
function markedParagraph(ctx: RichTextContext, marks: Json[]): Json {
  const before = sentence(ctx.rng).en;
  const span = fragment(ctx.rng).en;
  return paragraph(text(`${before} `), text(span, marks));
}

function listItem(value: string): Json {
  return { type: 'list_item', content: [paragraph(text(value))] };
}

function imageNode(def: AssetDef): Json {
  return {
    type: 'image',
    attrs: {
      id: def.id,
      alt: def.alt,
      src: def.filename,
      title: def.title,
      source: '',
      copyright: def.copyright,
      meta_data: def.alt ? { alt: def.alt, title: def.title, source: '', copyright: def.copyright } : {},
    },
  };
}

function tableCell(type: 'tableHeader' | 'tableCell', value: string): Json {
  return { type, attrs: { colspan: 1, rowspan: 1, colwidth: null }, content: [paragraph(text(value))] };
}

function tableNode(rng: Random): Json {
  const head = ['Option', 'Value'];
  const rows = [['Option 1', String(rng.int(1, 99))]];
  return {
    type: 'table',
    content: [
      { type: 'tableRow', content: head.map((h) => tableCell('tableHeader', h)) },
      ...rows.map((r) => ({ type: 'tableRow', content: r.map((c) => tableCell('tableCell', c)) })),
    ],
  };
}

function blokNode(ctx: RichTextContext): Json {
  return { type: 'blok', attrs: { id: ctx.rng.uuid(), body: [ctx.embeddedBlok()] } };
}

function emojiNode(rng: Random): Json {
  const e = rng.pick(EMOJIS);
  return {
    type: 'emoji',
    attrs: {
      name: e.name,
      emoji: e.emoji,
      fallbackImage: `https://cdn.jsdelivr.net/npm/emoji-datasource-apple/img/apple/64/${e.code}.png`,
    },
  };
}

/** The nodes of one segment type. */
export function segment(kind: Segment, ctx: RichTextContext): Json[] {
  const { rng } = ctx;
  switch (kind) {
    case 'bullet_list':
      return [
        { type: 'bullet_list', content: Array.from({ length: rng.int(2, 2) }, () => listItem(fragment(rng).en)) },
      ];
    case 'ordered_list':
      return [
        {
          type: 'ordered_list',
          attrs: { order: 1 },
          content: Array.from({ length: rng.int(2, 2) }, () => listItem(fragment(rng).en)),
        },
      ];
    case 'blockquote':
      return [{ type: 'blockquote', content: [paragraph(text(sentence(rng).en))] }];
    case 'code_block':
      return [
        {
          type: 'code_block',
          attrs: { class: 'language-js' },
          content: [
            text(
              `const ${rng.pick(['total', 'items', 'price'])} = ${rng.int(1, 500)};\nconsole.log(${rng.int(1, 9)});`,
            ),
          ],
        },
      ];
    case 'image':
      return [paragraph(imageNode(ctx.imageAsset()))];
    case 'table':
      return [tableNode(rng)];
    case 'blok':
      return [blokNode(ctx)];
    case 'horizontal_rule':
      return [{ type: 'horizontal_rule' }];
    case 'emoji':
      return [paragraph(text(`${fragment(rng).en} `), emojiNode(rng), { type: 'hard_break' }, text(sentence(rng).en))];
    case 'headings':
      return [heading(rng.int(3, 6), fragment(rng).en)];
  }
}

/**
 * The long body of an article. `variant` rotates which marks and segments
 * appear, so every kind occurs across a modest number of articles.
 */
export function articleBody(ctx: RichTextContext, variant: number): Json {
  const { rng } = ctx;
  const mark = SIMPLE_MARKS[variant % SIMPLE_MARKS.length]!;
  const link = LINK_TYPES[(variant >> 1) % LINK_TYPES.length]!;
  const first = SEGMENTS[variant % SEGMENTS.length]!;
  const second = SEGMENTS[(variant * 7 + 3) % SEGMENTS.length]!;
  const content: Json[] = [];
  if (variant % 4 === 0) content.push(heading(2, fragment(rng).en));
  content.push(markedParagraph(ctx, [simpleMark(mark, rng)]), ...segment(first, ctx));
  if (variant % 2 === 0) content.push(markedParagraph(ctx, [linkMark(link, ctx)]));
  if (variant % 8 === 1 && second !== first) content.push(...segment(second, ctx));
  if (variant % 10 === 0) content.push(markedParagraph(ctx, [simpleMark('bold', rng), simpleMark('italic', rng)]));
  return doc(content);
}

/** A short translated document: one or two paragraphs, the same marks in every language. */
export function shortDoc(rng: Random, paragraphs: number): Record<'en' | Lang, Json> {
  const parts: { body: Trio; span: Trio | null; bold: boolean }[] = [];
  for (let i = 0; i < paragraphs; i++)
    parts.push({ body: sentences(rng, 1), span: rng.chance(0.4) ? fragment(rng) : null, bold: rng.chance(0.5) });
  const build = (lang: 'en' | Lang): Json =>
    doc(
      parts.map((p) =>
        p.span
          ? paragraph(text(`${p.body[lang]} `), text(p.span[lang], [{ type: p.bold ? 'bold' : 'italic' }]))
          : paragraph(text(p.body[lang])),
      ),
    );
  return { en: build('en'), de: build('de'), fr: build('fr') };
}

/** One document holding every node and every mark. */
export function kitchenSink(ctx: RichTextContext): Json {
  const { rng } = ctx;
  const content: Json[] = [heading(1, 'Everything rich text can hold'), heading(2, fragment(rng).en)];
  for (const mark of SIMPLE_MARKS) content.push(markedParagraph(ctx, [simpleMark(mark, rng)]));
  for (const link of LINK_TYPES) content.push(markedParagraph(ctx, [linkMark(link, ctx)]));
  content.push(
    paragraph(
      text('Bold italic underline strike', [
        { type: 'bold' },
        { type: 'italic' },
        { type: 'underline' },
        { type: 'strike' },
      ]),
    ),
  );
  for (const s of SEGMENTS) content.push(...segment(s, ctx));
  for (let level = 3; level <= 6; level++) content.push(heading(level, `Heading ${level}`));
  content.push(paragraph());
  return doc(content);
}
