/**
 * The type model: what the observations mean, as type expressions ready to print. This module
 * holds its vocabulary (the expressions and the names every emitted module declares);
 * build-model.ts reads the observations into it.
 */
import type { Schema } from './schema.js';

export type TypeExpr =
  | { kind: 'keyword'; name: 'string' | 'number' | 'boolean' | 'null' | 'unknown' }
  | { kind: 'literal'; value: string }
  | { kind: 'ref'; name: string; args?: TypeExpr[] }
  | { kind: 'array'; element: TypeExpr }
  /** `[]`: an array never seen with items. */
  | { kind: 'empty-array' }
  | { kind: 'object'; fields: FieldModel[]; open?: boolean }
  | { kind: 'union'; members: TypeExpr[] };

export interface FieldModel {
  key: string;
  optional: boolean;
  type: TypeExpr;
  doc?: string;
}

export interface ComponentModel {
  /** Component name as content carries it. */
  name: string;
  typeName: string;
  /** `XxxStory`, for content types. */
  storyName?: string;
  contentType: boolean;
  /** Instances observed (0: known from the schema only). */
  observed: number;
  fields: FieldModel[];
}

export interface NamedShape {
  /** linktype or plugin name. */
  name: string;
  typeName: string;
  fields: FieldModel[];
  /** Known from the schema only: other keys allowed. */
  open?: boolean;
}

export interface TypeModel {
  components: ComponentModel[];
  asset: FieldModel[];
  multiassetItem: FieldModel[];
  links: NamedShape[];
  plugins: NamedShape[];
  richText: { nodes: string[]; marks: string[] };
  /**
   * Some string field's type depends on values the counts no longer hold: stories removed from
   * the counts (an incremental compile) took values that were held while others were past the
   * cap, and the values left may be few enough to print as literals. Only observing every story
   * again tells; counts built by observing alone (a full compile) never leave this in doubt.
   */
  undecided: boolean;
  /** How deep the observed stories' relations are resolved (see ModelOptions.resolution); 1 when they are not. */
  depth: number;
}

export interface ModelOptions {
  relations: ReadonlySet<string>;
  /** The uuids of the snapshot's stories (a set, or a map keyed by uuid). */
  storyUuids?: { has(uuid: string): boolean };
  datasources: ReadonlyArray<{ slug: string; names: readonly string[] }>;
  schema?: Schema;
  maxLiterals: number;
  /**
   * The observed stories are a compile's output, relations resolved this deep: a story embedded in
   * a field is typed as what the resolution embeds (`Related`), not as a relation the API may have
   * left a uuid (`Relation`); and a uuid left in a listed relation field is a target the compile
   * could not resolve, kept (`keepUnresolved`: every resolved field's type then allows it).
   */
  resolution?: { depth: number; keepUnresolved: boolean };
}

/** Names of the fixed types every emitted module declares. */
export const RUNTIME_NAMES: readonly string[] = [
  'Blok',
  'Story',
  'StoryAlternate',
  'StoryTranslatedSlug',
  'Relation',
  'Related',
  'Embedded',
  'Within',
  'Stored',
  'StoryLike',
  'Lower',
  'ResolveDepth',
  'AnyStory',
  'ContentTypes',
  'NumericString',
  'DateString',
  'Asset',
  'EmptyAsset',
  'MultiassetItem',
  'Multiasset',
  'Multilink',
  'StoryLink',
  'UrlLink',
  'EmailLink',
  'AssetLink',
  'Table',
  'TableHead',
  'TableRow',
  'TableCol',
  'Plugin',
  'RichText',
  'RichTextNode',
  'RichTextMark',
  'RichTextText',
  'RichTextParagraph',
  'RichTextHeading',
  'RichTextBlockquote',
  'RichTextBulletList',
  'RichTextOrderedList',
  'RichTextListItem',
  'RichTextCodeBlock',
  'RichTextHardBreak',
  'RichTextHorizontalRule',
  'RichTextImage',
  'RichTextEmoji',
  'RichTextBlokNode',
  'RichTextTable',
  'RichTextTableRow',
  'RichTextTableCell',
  'RichTextTableHeader',
  'RichTextOtherNode',
  'RichTextLinkMark',
  'RichTextSimpleMark',
  'RichTextColorMark',
  'RichTextAnchorMark',
  'RichTextStyledMark',
  'RichTextOtherMark',
  'RichTextContainer',
  'RichTextCellAttrs',
];

export const kw = (name: 'string' | 'number' | 'boolean' | 'null' | 'unknown'): TypeExpr => ({ kind: 'keyword', name });
export const lit = (value: string): TypeExpr => ({ kind: 'literal', value });
export const ref = (name: string, args?: TypeExpr[]): TypeExpr =>
  args ? { kind: 'ref', name, args } : { kind: 'ref', name };

/** Flattens, removes duplicates and members another member already covers. */
export function union(members: TypeExpr[]): TypeExpr {
  const flat: TypeExpr[] = [];
  const push = (t: TypeExpr): void => {
    if (t.kind === 'union') t.members.forEach(push);
    else flat.push(t);
  };
  members.forEach(push);
  const hasString = flat.some((t) => t.kind === 'keyword' && t.name === 'string');
  const hasArray = flat.some((t) => t.kind === 'array');
  const hasUnknown = flat.some((t) => t.kind === 'keyword' && t.name === 'unknown');
  if (hasUnknown) return kw('unknown');
  const seen = new Set<string>();
  const out: TypeExpr[] = [];
  for (const t of flat) {
    if (
      hasString &&
      (t.kind === 'literal' || (t.kind === 'ref' && (t.name === 'NumericString' || t.name === 'DateString')))
    )
      continue;
    if (hasArray && t.kind === 'empty-array') continue;
    const key = JSON.stringify(t);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(t);
  }
  const nullIndex = out.findIndex((t) => t.kind === 'keyword' && t.name === 'null');
  if (nullIndex >= 0) out.push(...out.splice(nullIndex, 1));
  if (out.length === 1) return out[0]!;
  return { kind: 'union', members: out };
}
