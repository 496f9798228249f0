/** Printing a type model as one TypeScript module of `export type` declarations. */
import { docText, stringLiteral, typeKey } from '../escape.js';
import { compare } from './names.js';
import type { FieldModel, TypeExpr, TypeModel } from './model.js';

/** One type expression as TypeScript source. */
export function printType(t: TypeExpr, indent = ''): string {
  switch (t.kind) {
    case 'keyword':
      return t.name;
    case 'literal':
      return stringLiteral(t.value);
    case 'ref':
      return t.args ? `${t.name}<${t.args.map((a) => printType(a, indent)).join(', ')}>` : t.name;
    case 'empty-array':
      return '[]';
    case 'array': {
      const el = printType(t.element, indent);
      return t.element.kind === 'union' ? `(${el})[]` : `${el}[]`;
    }
    case 'union':
      return t.members.map((m) => printType(m, indent)).join(' | ');
    case 'object':
      return printObject(t.fields, indent, t.open === true);
  }
}

/**
 * The members every object has from Object.prototype, as TypeScript's `Object` declares them: a
 * value lacking such a field still has it (`content.toString` is a function), and TypeScript
 * takes it for the field (a value without it is not assignable to `toString?: string`).
 */
export const OBJECT_MEMBERS: ReadonlySet<string> = new Set([
  'constructor',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
]);

function printObject(fields: readonly FieldModel[], indent: string, open: boolean): string {
  if (fields.length === 0 && !open) return '{}';
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const f of fields) {
    if (f.doc) lines.push(`${inner}/** ${docText(f.doc)} */`);
    const type = printType(f.type, inner);
    // Where some values lack it, what they have is the inherited member.
    if (f.optional && OBJECT_MEMBERS.has(f.key))
      lines.push(`${inner}${typeKey(f.key)}: ${type} | Object[${stringLiteral(f.key)}];`);
    else lines.push(`${inner}${typeKey(f.key)}${f.optional ? '?' : ''}: ${type};`);
  }
  if (open) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

const RUNTIME_HEAD = `/**
 * Any component instance ("blok"). Every generated component type is assignable to it.
 */
export type Blok = { component: string; _uid: string; [key: string]: unknown };

/**
 * A number as the Content Delivery API delivers number fields: a JSON string of digits
 * (\`"1234"\`, \`"-2.5"\`). Kept a plain \`string\` alias so values read from JSON stay
 * assignable; convert with \`Number(value)\`. Real JSON numbers are typed \`number\`.
 */
export type NumericString = string;

/**
 * A date as content carries it: \`YYYY-mm-dd HH:MM\`, sometimes with seconds
 * (\`2018-06-19 07:58:59\`); story timestamps are ISO 8601. A plain \`string\` alias.
 */
export type DateString = string;

export type StoryAlternate = {
  id: number;
  name: string;
  slug: string;
  full_slug: string;
  is_folder: boolean;
  parent_id: number | null;
  [key: string]: unknown;
};

export type StoryTranslatedSlug = {
  path: string;
  name: string | null;
  lang: string;
  [key: string]: unknown;
};

/**
 * A story as the Content Delivery API delivers it, with its content typed.
 * The service adds fields over time, so further keys may be present.
 */
export type Story<C extends Blok = Blok> = {
  id: number;
  uuid: string;
  name: string;
  slug: string;
  full_slug: string;
  default_full_slug?: string | null;
  created_at: DateString;
  published_at: DateString | null;
  first_published_at: DateString | null;
  release_id?: number | null;
  lang: string;
  content: C;
  position: number;
  is_startpage: boolean;
  parent_id: number | null;
  group_id: string;
  alternates: StoryAlternate[];
  translated_slugs?: StoryTranslatedSlug[] | null;
  tag_list: string[];
  sort_by_date?: string | null;
  meta_data?: unknown;
  path?: string | null;
  [key: string]: unknown;
};

/**
 * A relation field value: the related story when resolved (v1 \`resolve_relations\`),
 * otherwise its uuid (v2 keeps uuids in content and lists resolved stories in \`rels\`).
 */
export type Relation<S extends Story = Story> = S | string;
`;

/** Resolution's depths a declaration can count down (a compile resolving deeper is typed as this deep). */
const MAX_DEPTH = 10;

/**
 * What a compile's resolution embeds for a relation: the target resolved one level less than the
 * story holding it, down to its record as the snapshot has it, whose relations are uuids.
 */
function related(depth: number): string {
  const d = Math.min(Math.max(1, Math.floor(depth)), MAX_DEPTH);
  const lower = Array.from({ length: MAX_DEPTH + 1 }, (_, n) => Math.max(0, n - 1)).join(', ');
  return `/** How deep the compile resolved relations (its \`depth\`). */
type ResolveDepth = ${d};

/** n - 1 (0 stays 0). */
type Lower = [${lower}];

/**
 * A story a resolved relation embeds (\`resolveRelations\`): resolved one level less deep than the
 * story that embeds it, so at the last level its own relations are uuids, as the snapshot has them.
 */
export type Related<S extends Story> = Embedded<S, Lower[ResolveDepth]>;

/** A story with its relations resolved \`N\` levels deep (0: uuids). */
export type Embedded<S, N extends number> = { [K in keyof S]: K extends "content" ? Within<S[K], N> : S[K] };

/** Stories in content, known by fields no blok has (their content is not looked into: relations may be cycles). */
type StoryLike = { uuid: string; full_slug: string; group_id: string; content: unknown };

/** (A member an object inherits, typed with a field of its name: a function, left as it is.) */
type Within<T, N extends number> = T extends Function
  ? T
  : T extends StoryLike
    ? N extends 0
      ? string
      : Embedded<T, Lower[N]>
    : T extends readonly (infer E)[]
      ? Within<E, N>[]
      : T extends object
        ? N extends 0
          ? T extends { fieldtype: "multilink" }
            ? "story" extends keyof T
              ? { [K in keyof T as K extends "story" ? never : K]: Within<T[K], N> } & { story?: unknown }
              : { [K in keyof T]: Within<T[K], N> }
            : { [K in keyof T]: Within<T[K], N> }
          : { [K in keyof T]: Within<T[K], N> }
        : T;

/**
 * A content value as the snapshot holds it (resolved no level deep): a story a relation embeds is
 * its uuid, and a story link carries no resolved \`story\` (the compile resolves links only in the
 * stories it compiles, not in those it embeds at the last level, nor in index entries).
 */
export type Stored<V> = Within<V, 0>;
`;
}

const TABLE = `/** A table field. \`fieldtype\` is missing on some deliveries. */
export type Table = {
  fieldtype?: "table";
  thead: TableHead[];
  tbody: TableRow[];
};

export type TableHead = { _uid: string; component: "_table_head"; value: string; _editable?: string };

export type TableRow = { _uid: string; component: "_table_row"; body: TableCol[]; _editable?: string };

export type TableCol = { _uid: string; component: "_table_col"; value: string; _editable?: string };
`;

function richText(model: TypeModel): string {
  const nodes = [
    'RichTextParagraph<B>',
    'RichTextHeading<B>',
    'RichTextBlockquote<B>',
    'RichTextBulletList<B>',
    'RichTextOrderedList<B>',
    'RichTextListItem<B>',
    'RichTextCodeBlock<B>',
    'RichTextText',
    'RichTextHardBreak',
    'RichTextHorizontalRule',
    'RichTextImage',
    'RichTextEmoji',
    'RichTextBlokNode<B>',
    'RichTextTable<B>',
    'RichTextTableRow<B>',
    'RichTextTableCell<B>',
    'RichTextTableHeader<B>',
  ];
  if (model.richText.nodes.length > 0) nodes.push('RichTextOtherNode<B>');
  const marks = [
    'RichTextSimpleMark',
    'RichTextColorMark',
    'RichTextAnchorMark',
    'RichTextStyledMark',
    'RichTextLinkMark',
  ];
  if (model.richText.marks.length > 0) marks.push('RichTextOtherMark');
  const other = model.richText.nodes.map(stringLiteral).join(' | ');
  const otherMarks = model.richText.marks.map(stringLiteral).join(' | ');
  return `/** A rich-text document. \`B\`: the bloks its \`blok\` nodes embed. */
export type RichText<B extends Blok = Blok> = { type: "doc"; content?: RichTextNode<B>[]; _uid?: string };

export type RichTextNode<B extends Blok = Blok> =
  | ${nodes.join('\n  | ')};

type RichTextContainer<T extends string, B extends Blok> = { type: T; content?: RichTextNode<B>[]; _uid?: string };

export type RichTextParagraph<B extends Blok = Blok> = RichTextContainer<"paragraph", B> & { attrs?: { textAlign?: string | null } };
export type RichTextHeading<B extends Blok = Blok> = RichTextContainer<"heading", B> & { attrs: { level: 1 | 2 | 3 | 4 | 5 | 6; textAlign?: string | null } };
export type RichTextBlockquote<B extends Blok = Blok> = RichTextContainer<"blockquote", B>;
export type RichTextBulletList<B extends Blok = Blok> = RichTextContainer<"bullet_list", B>;
export type RichTextOrderedList<B extends Blok = Blok> = RichTextContainer<"ordered_list", B> & { attrs?: { order: number } };
export type RichTextListItem<B extends Blok = Blok> = RichTextContainer<"list_item", B>;
export type RichTextCodeBlock<B extends Blok = Blok> = RichTextContainer<"code_block", B> & { attrs?: { class: string | null } };
export type RichTextTable<B extends Blok = Blok> = RichTextContainer<"table", B>;
export type RichTextTableRow<B extends Blok = Blok> = RichTextContainer<"tableRow", B>;
export type RichTextTableCell<B extends Blok = Blok> = RichTextContainer<"tableCell", B> & { attrs?: RichTextCellAttrs };
export type RichTextTableHeader<B extends Blok = Blok> = RichTextContainer<"tableHeader", B> & { attrs?: RichTextCellAttrs };
type RichTextCellAttrs = { colspan?: number; rowspan?: number; colwidth?: number[] | null; backgroundColor?: string | null };
export type RichTextText = { type: "text"; text: string; marks?: RichTextMark[]; _uid?: string };
export type RichTextHardBreak = { type: "hard_break"; marks?: RichTextMark[]; _uid?: string };
export type RichTextHorizontalRule = { type: "horizontal_rule"; _uid?: string };
export type RichTextImage = {
  type: "image";
  attrs: {
    id?: number | null;
    alt?: string | null;
    src: string;
    title?: string | null;
    source?: string | null;
    copyright?: string | null;
    meta_data?: { [key: string]: unknown } | null;
  };
  marks?: RichTextMark[];
  _uid?: string;
};
export type RichTextEmoji = { type: "emoji"; attrs: { name: string; emoji: string | null; fallbackImage: string | null }; _uid?: string };
/** Bloks embedded in rich text (their \`_uid\`s may carry an \`i-\` prefix). */
export type RichTextBlokNode<B extends Blok = Blok> = { type: "blok"; attrs: { id: string; body: B[] }; _uid?: string };
${
  other
    ? `/** Node types seen in content outside the known vocabulary. */
export type RichTextOtherNode<B extends Blok = Blok> = {
  type: ${other};
  attrs?: { [key: string]: unknown };
  content?: RichTextNode<B>[];
  marks?: RichTextMark[];
  text?: string;
  _uid?: string;
};
`
    : ''
}
export type RichTextMark = ${marks.join(' | ')};
export type RichTextSimpleMark = { type: "bold" | "italic" | "strike" | "underline" | "code" | "superscript" | "subscript" };
export type RichTextColorMark = { type: "highlight" | "textStyle"; attrs?: { color?: string | null } };
export type RichTextAnchorMark = { type: "anchor"; attrs: { id: string } };
export type RichTextStyledMark = { type: "styled"; attrs: { class: string } };
export type RichTextLinkMark = {
  type: "link";
  attrs: {
    href: string | null;
    uuid?: string | null;
    anchor?: string | null;
    target?: string | null;
    linktype?: "url" | "story" | "email" | "asset";
    custom?: { [key: string]: unknown };
    story?: unknown;
  };
};
${
  otherMarks
    ? `/** Mark types seen in content outside the known vocabulary. */
export type RichTextOtherMark = { type: ${otherMarks}; attrs?: { [key: string]: unknown } };
`
    : ''
}`;
}

function shape(name: string, s: { fields: FieldModel[]; open?: boolean }, doc: string): string {
  return `/** ${docText(doc)} */\nexport type ${name} = ${printObject(s.fields, '', s.open === true)};\n`;
}

export function emitTypes(model: TypeModel, options: { header?: string } = {}): string {
  const out: string[] = [];
  if (options.header !== undefined) {
    out.push(
      `/**\n${options.header
        .split('\n')
        .map((l) => ` * ${docText(l)}`.trimEnd())
        .join('\n')}\n */\n`,
    );
  }
  out.push(RUNTIME_HEAD);
  out.push(related(model.depth));
  out.push(
    shape(
      'Asset',
      { fields: model.asset },
      'An asset field. An empty one is still an object, with `filename: ""` and usually `id: null`.',
    ),
  );
  out.push(
    '/** An asset field with nothing selected (its `filename` is `""`, or `null` in some deliveries). */\nexport type EmptyAsset = Asset & { filename: "" | null };\n',
  );
  out.push(
    shape(
      'MultiassetItem',
      { fields: model.multiassetItem },
      'One item of a multiasset field (older items lack `fieldtype`).',
    ),
  );
  out.push(
    '/** A multiasset field; an empty one can also arrive as `""`. */\nexport type Multiasset = MultiassetItem[];\n',
  );
  for (const link of model.links)
    out.push(shape(link.typeName, link, `A multilink with \`linktype: ${stringLiteral(link.name)}\`.`));
  out.push(
    `/** A multilink field, discriminated by \`linktype\`. */\nexport type Multilink = ${model.links.map((l) => l.typeName).join(' | ')};\n`,
  );
  out.push(TABLE);
  for (const plugin of model.plugins)
    out.push(shape(plugin.typeName, plugin, `Value of a \`${plugin.name}\` plugin field.`));
  out.push(richText(model));
  const comps = [...model.components].sort((a, b) => compare(a.name, b.name));
  for (const c of comps) {
    const doc = c.contentType ? `Content type \`${c.name}\`.` : `Component \`${c.name}\`.`;
    const extra = c.observed === 0 ? ' Known from the component schema only.' : '';
    out.push(`/** ${docText(doc + extra)} */\nexport type ${c.typeName} = ${printObject(c.fields, '', false)};\n`);
  }
  const cts = comps.filter((c) => c.contentType && c.storyName !== undefined);
  for (const c of cts) out.push(`export type ${c.storyName} = Story<${c.typeName}>;\n`);
  out.push(
    `/** A story of any content type. */\nexport type AnyStory = ${cts.length > 0 ? cts.map((c) => c.storyName).join(' | ') : 'Story'};\n`,
  );
  const map = cts.map((c) => `  ${typeKey(c.name)}: ${c.typeName};`);
  out.push(
    `/** Content types by component name. */\nexport type ContentTypes = ${map.length > 0 ? `{\n${map.join('\n')}\n}` : '{}'};\n`,
  );
  return out.map((chunk) => (chunk.endsWith('\n') ? chunk : `${chunk}\n`)).join('\n');
}
