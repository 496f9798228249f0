/** The type model: what the observations mean, as type expressions ready to print. */
import { NameAllocator, claimOrder, compare, pascalCase } from './names.js';
import type { Schema, SchemaField } from './schema.js';
import type { Dict, TypeCounts, Rec, Slot, StrStat } from './stats.js';

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

const LINK_NAMES: ReadonlyMap<string, string> = new Map([
  ['story', 'StoryLink'],
  ['url', 'UrlLink'],
  ['email', 'EmailLink'],
  ['asset', 'AssetLink'],
]);
const TEXT_TYPES = new Set(['text', 'textarea', 'markdown', 'richtext', 'number', 'datetime', 'image', 'file']);

const kw = (name: 'string' | 'number' | 'boolean' | 'null' | 'unknown'): TypeExpr => ({ kind: 'keyword', name });
const lit = (value: string): TypeExpr => ({ kind: 'literal', value });
const ref = (name: string, args?: TypeExpr[]): TypeExpr => (args ? { kind: 'ref', name, args } : { kind: 'ref', name });

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

interface FieldCtx {
  component: string;
  key: string;
  schema?: SchemaField;
}

export function buildModel(state: TypeCounts, opts: ModelOptions): TypeModel {
  const schema = opts.schema ?? new Map();
  const names = new NameAllocator(RUNTIME_NAMES);
  const compNames = [...new Set([...Object.keys(state.comps), ...schema.keys()])].sort(compare);
  const comps = new Map<string, { typeName: string; storyName?: string; contentType: boolean }>();
  for (const name of [...compNames].sort(claimOrder)) {
    const contentType = (state.comps[name]?.root ?? 0) > 0 || schema.get(name)?.isRoot === true;
    const base = names.claim(pascalCase(name), contentType ? ['Content', 'Story'] : ['Blok']);
    comps.set(
      name,
      contentType
        ? { typeName: `${base}Content`, storyName: `${base}Story`, contentType }
        : { typeName: `${base}Blok`, contentType },
    );
  }
  const pluginNames = new Set(Object.keys(state.plugins));
  for (const c of schema.values())
    for (const f of c.fields.values()) if (f.plugin !== undefined) pluginNames.add(f.plugin);
  const plugins = new Map<string, string>();
  for (const name of [...pluginNames].sort(compare)) plugins.set(name, names.claim(`Plugin${pascalCase(name)}`, ['']));

  /** Whether a uuid names a story: of the snapshot, or observed. */
  const known = (uuid: string): boolean => opts.storyUuids?.has(uuid) === true || uuid in state.stories;
  const dsNames = new Map(opts.datasources.map((d) => [d.slug, [...new Set(d.names)].sort(compare)] as const));
  const dsSets = new Map(opts.datasources.map((d) => [d.slug, new Set(d.names)] as const));

  const compRef = (name: string): TypeExpr => {
    const c = comps.get(name);
    return c ? ref(c.typeName) : ref('Blok');
  };
  const storyRef = (component: string): TypeExpr => {
    const c = comps.get(component);
    return c?.storyName ? ref(c.storyName) : ref('Story');
  };
  const blokUnion = (names: Iterable<string>): TypeExpr => union([...names].sort(compare).map(compRef));

  const relationTargets = (uuids: Dict<number> | undefined, schemaField?: SchemaField): TypeExpr => {
    const targets = new Set<string>();
    let unknownTarget = uuids === undefined;
    for (const uuid of Object.keys(uuids ?? {})) {
      const byComp = state.stories[uuid];
      if (!byComp) unknownTarget = true;
      else for (const c of Object.keys(byComp)) targets.add(c);
    }
    if (unknownTarget && schemaField?.filterContentType) {
      for (const c of schemaField.filterContentType) targets.add(c);
      unknownTarget = false;
    }
    if (unknownTarget || targets.size === 0) return ref('AnyStory');
    return union([...targets].sort(compare).map(storyRef));
  };

  /**
   * A story embedded where a relation was: as a compile's resolution embeds it (and, with
   * keepUnresolved, the uuid of a target it could not resolve), else as the API delivers it (the
   * story, or its uuid where the API left it).
   */
  const embeddedStory = (components: string[]): TypeExpr => {
    const targets = union(components.sort(compare).map(storyRef));
    if (!opts.resolution) return ref('Relation', [targets]);
    return union([ref('Related', [targets]), ...(opts.resolution.keepUnresolved ? [kw('string')] : [])]);
  };

  const literals = (values: string[]): TypeExpr => union([...new Set(values)].sort(compare).map(lit));
  let undecided = false;

  const stringType = (s: StrStat, literalsAllowed: boolean, ctx: FieldCtx | undefined, inArray: boolean): TypeExpr => {
    const members: TypeExpr[] = [];
    if (s.empty > 0) members.push(lit(''));
    const nonEmpty = s.n - s.empty;
    if (nonEmpty === 0) return union(members);
    const vals = Object.keys(s.vals);
    const exact = s.over === 0;
    // Observing fills the held values up to the cap before counting any past it; fewer held with
    // some past it means removals took held ones, and the values past the cap are not known.
    const unknown = s.over > 0 && vals.length < opts.maxLiterals;
    const sf = ctx?.schema;
    if (ctx && s.uuid === nonEmpty) {
      // Resolved by the compile: what is left a uuid names a target it could not resolve (kept).
      if (opts.resolution && opts.relations.has(`${ctx.component}.${ctx.key}`)) {
        members.push(kw('string'));
        return union(members);
      }
      const configured = opts.relations.has(`${ctx.component}.${ctx.key}`) || sf?.source === 'internal_stories';
      if (configured || (s.uuids !== undefined && Object.keys(s.uuids).every(known))) {
        members.push(ref('Relation', [relationTargets(s.uuids, sf)]));
        return union(members);
      }
    }
    // Every value held (none past the cap) and each an entry name of the datasource.
    if (ctx && opts.datasources.length > 0 && exact && vals.length > 0) {
      const candidates = opts.datasources
        .filter((d) => vals.every((v) => dsSets.get(d.slug)!.has(v)))
        .map((d) => d.slug)
        .sort((a, b) => dsNames.get(a)!.length - dsNames.get(b)!.length || compare(a, b));
      const preferred =
        sf?.datasourceSlug !== undefined && candidates.includes(sf.datasourceSlug) ? sf.datasourceSlug : candidates[0];
      if (preferred !== undefined) {
        members.push(literals(dsNames.get(preferred)!));
        return union(members);
      }
    }
    const options = sf?.options && sf.options.length > 0 && vals.every((v) => sf.options!.includes(v));
    if (options && exact) {
      members.push(literals(sf.options!));
      return union(members);
    }
    const vetoed = sf !== undefined && TEXT_TYPES.has(sf.type);
    // Besides the values, what counts for literals is known exactly (prose, dates and numbers are counted, not held).
    const literal =
      literalsAllowed &&
      !vetoed &&
      s.prose === 0 &&
      vals.length <= opts.maxLiterals &&
      vals.every((v) => s.vals[v]! >= 2) &&
      s.date < nonEmpty &&
      (inArray || s.numeric < nonEmpty);
    if (literal && exact) {
      members.push(literals(vals));
      return union(members);
    }
    // Where the unknown values could have made either of those, the type is in doubt.
    if (unknown && (options || literal)) undecided = true;
    if (s.date === nonEmpty) members.push(ref('DateString'));
    else if (s.numeric === nonEmpty && !inArray) members.push(ref('NumericString'));
    else members.push(kw('string'));
    return union(members);
  };

  const slotType = (slot: Slot, mode: 'content' | 'record', ctx?: FieldCtx, inArray = false): TypeExpr => {
    const m: TypeExpr[] = [];
    if (slot.nul) m.push(kw('null'));
    if (slot.bool) m.push(kw('boolean'));
    if (slot.num) m.push(kw('number'));
    // Before strings: a resolved relation reads `Related<...> | string` where uuids are kept.
    if (slot.story) m.push(embeddedStory(Object.keys(slot.story)));
    if (slot.str) m.push(stringType(slot.str, mode === 'content', ctx, inArray));
    if (slot.arr) {
      const a = slot.arr;
      if (a.n === a.empty) m.push({ kind: 'empty-array' });
      else {
        const el = a.el;
        const onlyAssets = el.asset !== undefined && el.asset.n === el.n;
        m.push(onlyAssets ? ref('Multiasset') : { kind: 'array', element: slotType(el, mode, ctx, true) });
      }
    }
    if (slot.obj) m.push({ kind: 'object', fields: recordFields(slot.obj, mode === 'content' ? 'content' : 'record') });
    if (slot.blok) m.push(blokUnion(Object.keys(slot.blok)));
    if (slot.asset)
      m.push(inArray ? ref('MultiassetItem') : ref(slot.asset.empty === slot.asset.n ? 'EmptyAsset' : 'Asset'));
    if (slot.link) m.push(ref('Multilink'));
    if (slot.table) m.push(ref('Table'));
    if (slot.rt) {
      const b = Object.keys(slot.rt.bloks);
      m.push(b.length > 0 ? ref('RichText', [blokUnion(b)]) : ref('RichText'));
    }
    if (slot.plugin)
      m.push(
        union(
          Object.keys(slot.plugin)
            .sort(compare)
            .map((p) => ref(plugins.get(p)!)),
        ),
      );
    if (m.length === 0) return kw('unknown');
    return union(m);
  };

  const recordFields = (
    rec: Rec,
    mode: 'content' | 'record',
    fixed: Dict<TypeExpr> = {},
    baseline: FieldModel[] = [],
  ): FieldModel[] => {
    const out = new Map<string, FieldModel>();
    for (const key of Object.keys(rec.f).sort(compare)) {
      const slot = rec.f[key]!;
      out.set(key, { key, optional: slot.n < rec.n, type: fixed[key] ?? slotType(slot, mode) });
    }
    for (const b of baseline) {
      const seen = out.get(b.key);
      if (!seen) out.set(b.key, { ...b, optional: rec.n > 0 ? true : b.optional });
      else if (!fixed[b.key]) seen.type = union([seen.type, b.type]);
    }
    return [...out.values()].sort((a, b) => compare(a.key, b.key));
  };

  const schemaType = (f: SchemaField): TypeExpr => {
    const restricted = (wrap: (b: TypeExpr) => TypeExpr, fallback: TypeExpr): TypeExpr => {
      const allowed = (f.whitelist ?? []).filter((n) => comps.has(n));
      return allowed.length > 0 ? wrap(blokUnion(allowed)) : fallback;
    };
    const option = (): TypeExpr => {
      if (f.source === 'internal_stories') return ref('Relation', [relationTargets(undefined, f)]);
      if (f.source === 'internal' && f.datasourceSlug !== undefined && dsNames.has(f.datasourceSlug))
        return literals(dsNames.get(f.datasourceSlug)!);
      if (f.options && f.options.length > 0) return literals(f.options);
      return kw('string');
    };
    switch (f.type) {
      case 'text':
      case 'textarea':
      case 'markdown':
      case 'image':
      case 'file':
        return kw('string');
      case 'number':
        return ref('NumericString');
      case 'boolean':
        return kw('boolean');
      case 'datetime':
        return union([ref('DateString'), lit('')]);
      case 'asset':
        return ref('Asset');
      case 'multiasset':
        return union([ref('Multiasset'), lit('')]);
      case 'multilink':
        return ref('Multilink');
      case 'table':
        return ref('Table');
      case 'richtext':
        return restricted((b) => ref('RichText', [b]), ref('RichText'));
      case 'bloks':
        return restricted((b) => ({ kind: 'array', element: b }), { kind: 'array', element: ref('Blok') });
      case 'option':
        return union([option(), lit('')]);
      case 'options':
        return { kind: 'array', element: option() };
      case 'custom':
        return f.plugin !== undefined ? ref(plugins.get(f.plugin)!) : kw('unknown');
      default:
        return kw('unknown');
    }
  };

  const onlyEmpty = (s: Slot): boolean =>
    !s.bool &&
    !s.num &&
    !s.obj &&
    !s.blok &&
    !s.link &&
    !s.table &&
    !s.rt &&
    !s.plugin &&
    !s.story &&
    (!s.str || s.str.empty === s.str.n) &&
    (!s.arr || s.arr.empty === s.arr.n) &&
    (!s.asset || s.asset.empty === s.asset.n);

  const components: ComponentModel[] = compNames.map((name) => {
    const rec = state.comps[name];
    const sc = schema.get(name);
    const info = comps.get(name)!;
    const fields: FieldModel[] = [];
    const keys = new Set<string>([...Object.keys(rec?.f ?? {}), ...(sc?.fields.keys() ?? [])]);
    for (const key of [...keys].sort(compare)) {
      if (key === 'component' || key === '_uid') continue;
      const slot = rec?.f[key];
      const sf = sc?.fields.get(key);
      if (!slot || !rec) {
        if (sf)
          fields.push({
            key,
            optional: true,
            type: schemaType(sf),
            doc: `Never filled in observed content; typed from the component schema (${sf.type}).`,
          });
        continue;
      }
      let type = slotType(slot, 'content', { component: name, key, ...(sf ? { schema: sf } : {}) });
      if (sf && onlyEmpty(slot)) type = union([type, schemaType(sf)]);
      fields.push({ key, optional: slot.n < rec.n, type });
    }
    return {
      name,
      typeName: info.typeName,
      ...(info.storyName ? { storyName: info.storyName } : {}),
      contentType: info.contentType,
      observed: rec?.n ?? 0,
      fields: [
        { key: 'component', optional: false, type: lit(name) },
        { key: '_uid', optional: false, type: kw('string') },
        ...fields,
      ],
    };
  });

  const str = kw('string');
  const strNull = union([str, kw('null')]);
  const assetBaseline: FieldModel[] = [
    { key: 'alt', optional: false, type: strNull },
    { key: 'copyright', optional: false, type: strNull },
    { key: 'filename', optional: false, type: str },
    { key: 'focus', optional: false, type: strNull },
    { key: 'id', optional: false, type: union([kw('number'), kw('null')]) },
    { key: 'name', optional: false, type: str },
    { key: 'title', optional: false, type: strNull },
    { key: 'source', optional: true, type: strNull },
    { key: 'meta_data', optional: true, type: { kind: 'object', fields: [], open: true } },
    { key: 'is_external_url', optional: true, type: kw('boolean') },
  ];
  const asset = recordFields(state.asset, 'record', { fieldtype: lit('asset') }, [
    { key: 'fieldtype', optional: false, type: lit('asset') },
    ...assetBaseline,
  ]);
  const multiassetItem = recordFields(state.massetItem, 'record', { fieldtype: lit('asset') }, [
    { key: 'fieldtype', optional: true, type: lit('asset') },
    ...assetBaseline,
  ]);

  const linkBaseline = (linktype: string): FieldModel[] => [
    { key: 'fieldtype', optional: false, type: lit('multilink') },
    { key: 'linktype', optional: false, type: lit(linktype) },
    { key: 'id', optional: false, type: str },
    { key: 'url', optional: false, type: str },
    { key: 'cached_url', optional: false, type: str },
    { key: 'target', optional: true, type: str },
    { key: '_uid', optional: true, type: str },
    ...(linktype === 'story' ? [{ key: 'anchor', optional: true, type: str }] : []),
    ...(linktype === 'email' ? [{ key: 'email', optional: false, type: str }] : []),
  ];
  const linkTypes = [...new Set([...LINK_NAMES.keys(), ...Object.keys(state.links)])].sort(compare);
  const links: NamedShape[] = linkTypes.map((linktype) => {
    const typeName = LINK_NAMES.get(linktype) ?? `${names.claim(`${pascalCase(linktype)}`, ['Link'])}Link`;
    const rec = state.links[linktype] ?? { n: 0, f: {} };
    return {
      name: linktype,
      typeName,
      fields: recordFields(
        rec,
        'record',
        { fieldtype: lit('multilink'), linktype: lit(linktype) },
        linkBaseline(linktype),
      ),
    };
  });

  const pluginModels: NamedShape[] = [...plugins].map(([name, typeName]) => {
    const rec = state.plugins[name];
    const baseline: FieldModel[] = [
      { key: '_uid', optional: false, type: str },
      { key: 'plugin', optional: false, type: lit(name) },
    ];
    if (!rec) return { name, typeName, fields: baseline, open: true };
    return { name, typeName, fields: recordFields(rec, 'record', { plugin: lit(name) }, baseline) };
  });

  return {
    components,
    asset,
    multiassetItem,
    links,
    plugins: pluginModels,
    richText: { nodes: Object.keys(state.rtNodes).sort(compare), marks: Object.keys(state.rtMarks).sort(compare) },
    undecided,
    depth: opts.resolution?.depth ?? 1,
  };
}
