/**
 * Reads the observation counters into the type model: names for every component and plugin,
 * then each component's fields, the asset and link shapes, and the plugins' shapes, each from
 * what was observed and, where there is one, the component schema.
 */
import type { ComponentModel, FieldModel, ModelOptions, NamedShape, TypeExpr, TypeModel } from './model.js';
import { RUNTIME_NAMES, kw, lit, ref, union } from './model.js';
import { NameAllocator, claimOrder, compare, pascalCase } from './names.js';
import type { Schema, SchemaField } from './schema.js';
import type { Dict, Rec, Slot, StrStat, TypeCounts } from './stats.js';

export function buildModel(state: TypeCounts, opts: ModelOptions): TypeModel {
  return new ModelBuilder(state, opts).model();
}

const LINK_NAMES: ReadonlyMap<string, string> = new Map([
  ['story', 'StoryLink'],
  ['url', 'UrlLink'],
  ['email', 'EmailLink'],
  ['asset', 'AssetLink'],
]);

/** Schema field types whose values are text: never printed as literals. */
const TEXT_TYPES = new Set(['text', 'textarea', 'markdown', 'richtext', 'number', 'datetime', 'image', 'file']);

const STRING = kw('string');
const STRING_OR_NULL = union([STRING, kw('null')]);

/** The fields every asset object has, whether observed or not. */
const ASSET_BASELINE: readonly FieldModel[] = [
  { key: 'alt', optional: false, type: STRING_OR_NULL },
  { key: 'copyright', optional: false, type: STRING_OR_NULL },
  { key: 'filename', optional: false, type: STRING },
  { key: 'focus', optional: false, type: STRING_OR_NULL },
  { key: 'id', optional: false, type: union([kw('number'), kw('null')]) },
  { key: 'name', optional: false, type: STRING },
  { key: 'title', optional: false, type: STRING_OR_NULL },
  { key: 'source', optional: true, type: STRING_OR_NULL },
  { key: 'meta_data', optional: true, type: { kind: 'object', fields: [], open: true } },
  { key: 'is_external_url', optional: true, type: kw('boolean') },
];

/** The fields every multilink of this linktype has, whether observed or not. */
function linkBaseline(linktype: string): FieldModel[] {
  return [
    { key: 'fieldtype', optional: false, type: lit('multilink') },
    { key: 'linktype', optional: false, type: lit(linktype) },
    { key: 'id', optional: false, type: STRING },
    { key: 'url', optional: false, type: STRING },
    { key: 'cached_url', optional: false, type: STRING },
    { key: 'target', optional: true, type: STRING },
    { key: '_uid', optional: true, type: STRING },
    ...(linktype === 'story' ? [{ key: 'anchor', optional: true, type: STRING }] : []),
    ...(linktype === 'email' ? [{ key: 'email', optional: false, type: STRING }] : []),
  ];
}

/** Where a string was observed: a component's field (with its schema, if any). */
interface FieldCtx {
  component: string;
  key: string;
  schema?: SchemaField;
}

interface ComponentNames {
  typeName: string;
  storyName?: string;
  contentType: boolean;
}

/** Whether a slot held nothing but empty values (a schema then says more than the observations). */
function onlyEmpty(s: Slot): boolean {
  return (
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
    (!s.asset || s.asset.empty === s.asset.n)
  );
}

class ModelBuilder {
  readonly #state: TypeCounts;
  readonly #opts: ModelOptions;
  readonly #schema: Schema;
  readonly #names = new NameAllocator(RUNTIME_NAMES);
  /** Every component, observed or in the schema, in name order. */
  readonly #compNames: string[];
  readonly #comps = new Map<string, ComponentNames>();
  readonly #plugins = new Map<string, string>();
  /** Each datasource's entry names, sorted, and as a set. */
  readonly #dsNames: Map<string, string[]>;
  readonly #dsSets: Map<string, Set<string>>;
  /** See TypeModel.undecided. */
  #undecided = false;

  constructor(state: TypeCounts, opts: ModelOptions) {
    this.#state = state;
    this.#opts = opts;
    this.#schema = opts.schema ?? new Map();
    this.#compNames = [...new Set([...Object.keys(state.comps), ...this.#schema.keys()])].sort(compare);
    this.#dsNames = new Map(opts.datasources.map((d) => [d.slug, [...new Set(d.names)].sort(compare)] as const));
    this.#dsSets = new Map(opts.datasources.map((d) => [d.slug, new Set(d.names)] as const));
    this.#nameComponents();
    this.#namePlugins();
  }

  model(): TypeModel {
    const state = this.#state;
    return {
      components: this.#compNames.map((name) => this.#component(name)),
      asset: this.#recordFields(state.asset, 'record', { fieldtype: lit('asset') }, [
        { key: 'fieldtype', optional: false, type: lit('asset') },
        ...ASSET_BASELINE,
      ]),
      multiassetItem: this.#recordFields(state.massetItem, 'record', { fieldtype: lit('asset') }, [
        { key: 'fieldtype', optional: true, type: lit('asset') },
        ...ASSET_BASELINE,
      ]),
      links: this.#links(),
      plugins: [...this.#plugins].map(([name, typeName]) => this.#plugin(name, typeName)),
      richText: { nodes: Object.keys(state.rtNodes).sort(compare), marks: Object.keys(state.rtMarks).sort(compare) },
      // Read last: the fields' types decide it.
      undecided: this.#undecided,
      depth: this.#opts.resolution?.depth ?? 1,
    };
  }

  /** Content types are `XxxContent` and `XxxStory`, other components `XxxBlok`; names claimed in claimOrder. */
  #nameComponents(): void {
    for (const name of [...this.#compNames].sort(claimOrder)) {
      const contentType = (this.#state.comps[name]?.root ?? 0) > 0 || this.#schema.get(name)?.isRoot === true;
      const base = this.#names.claim(pascalCase(name), contentType ? ['Content', 'Story'] : ['Blok']);
      this.#comps.set(
        name,
        contentType
          ? { typeName: `${base}Content`, storyName: `${base}Story`, contentType }
          : { typeName: `${base}Blok`, contentType },
      );
    }
  }

  /** Plugins observed or named by the schema, `PluginXxx`. */
  #namePlugins(): void {
    const pluginNames = new Set(Object.keys(this.#state.plugins));
    for (const c of this.#schema.values())
      for (const f of c.fields.values()) if (f.plugin !== undefined) pluginNames.add(f.plugin);
    for (const name of [...pluginNames].sort(compare))
      this.#plugins.set(name, this.#names.claim(`Plugin${pascalCase(name)}`, ['']));
  }

  #component(name: string): ComponentModel {
    const rec = this.#state.comps[name];
    const sc = this.#schema.get(name);
    const info = this.#comps.get(name)!;
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
            type: this.#schemaType(sf),
            doc: `Never filled in observed content; typed from the component schema (${sf.type}).`,
          });
        continue;
      }
      let type = this.#slotType(slot, 'content', { component: name, key, ...(sf ? { schema: sf } : {}) });
      if (sf && onlyEmpty(slot)) type = union([type, this.#schemaType(sf)]);
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
        { key: '_uid', optional: false, type: STRING },
        ...fields,
      ],
    };
  }

  /** The four linktypes of the API, and any other observed (`XxxLink`). */
  #links(): NamedShape[] {
    const linkTypes = [...new Set([...LINK_NAMES.keys(), ...Object.keys(this.#state.links)])].sort(compare);
    return linkTypes.map((linktype) => {
      const typeName = LINK_NAMES.get(linktype) ?? `${this.#names.claim(`${pascalCase(linktype)}`, ['Link'])}Link`;
      const rec = this.#state.links[linktype] ?? { n: 0, f: {} };
      return {
        name: linktype,
        typeName,
        fields: this.#recordFields(
          rec,
          'record',
          { fieldtype: lit('multilink'), linktype: lit(linktype) },
          linkBaseline(linktype),
        ),
      };
    });
  }

  /** A plugin's shape: observed, else (known from the schema only) open. */
  #plugin(name: string, typeName: string): NamedShape {
    const rec = this.#state.plugins[name];
    const baseline: FieldModel[] = [
      { key: '_uid', optional: false, type: STRING },
      { key: 'plugin', optional: false, type: lit(name) },
    ];
    if (!rec) return { name, typeName, fields: baseline, open: true };
    return { name, typeName, fields: this.#recordFields(rec, 'record', { plugin: lit(name) }, baseline) };
  }

  #compRef(name: string): TypeExpr {
    const c = this.#comps.get(name);
    return c ? ref(c.typeName) : ref('Blok');
  }

  #storyRef(component: string): TypeExpr {
    const c = this.#comps.get(component);
    return c?.storyName ? ref(c.storyName) : ref('Story');
  }

  #blokUnion(names: Iterable<string>): TypeExpr {
    return union([...names].sort(compare).map((n) => this.#compRef(n)));
  }

  /** Whether a uuid names a story: of the snapshot, or observed. */
  #known(uuid: string): boolean {
    return this.#opts.storyUuids?.has(uuid) === true || uuid in this.#state.stories;
  }

  /** The stories relation values point at, by content type: any story where one is not known. */
  #relationTargets(uuids: Dict<number> | undefined, schemaField?: SchemaField): TypeExpr {
    const targets = new Set<string>();
    let unknownTarget = uuids === undefined;
    for (const uuid of Object.keys(uuids ?? {})) {
      const byComp = this.#state.stories[uuid];
      if (!byComp) unknownTarget = true;
      else for (const c of Object.keys(byComp)) targets.add(c);
    }
    if (unknownTarget && schemaField?.filterContentType) {
      for (const c of schemaField.filterContentType) targets.add(c);
      unknownTarget = false;
    }
    if (unknownTarget || targets.size === 0) return ref('AnyStory');
    return union([...targets].sort(compare).map((c) => this.#storyRef(c)));
  }

  /**
   * A story embedded where a relation was: as a compile's resolution embeds it (and, with
   * keepUnresolved, the uuid of a target it could not resolve), else as the API delivers it (the
   * story, or its uuid where the API left it).
   */
  #embeddedStory(components: string[]): TypeExpr {
    const targets = union(components.sort(compare).map((c) => this.#storyRef(c)));
    const resolution = this.#opts.resolution;
    if (!resolution) return ref('Relation', [targets]);
    return union([ref('Related', [targets]), ...(resolution.keepUnresolved ? [STRING] : [])]);
  }

  #literals(values: string[]): TypeExpr {
    return union([...new Set(values)].sort(compare).map(lit));
  }

  /**
   * The strings seen at one place, in the first way that fits every value: a relation, a
   * datasource's entries, the schema's options, literals (few values, each seen twice), else a
   * date, a number or any string.
   */
  #stringType(s: StrStat, literalsAllowed: boolean, ctx: FieldCtx | undefined, inArray: boolean): TypeExpr {
    const members: TypeExpr[] = [];
    if (s.empty > 0) members.push(lit(''));
    const nonEmpty = s.n - s.empty;
    if (nonEmpty === 0) return union(members);
    const vals = Object.keys(s.vals);
    const exact = s.over === 0;
    const max = this.#opts.maxLiterals;
    // Observing fills the held values up to the cap before counting any past it; fewer held with
    // some past it means removals took held ones, and the values past the cap are not known.
    const unknown = s.over > 0 && vals.length < max;
    const sf = ctx?.schema;
    const relation = ctx && s.uuid === nonEmpty ? this.#relationType(s, ctx) : undefined;
    if (relation) return union([...members, relation]);
    // The datasources that have every value held as an entry name.
    const named = ctx ? this.#namingDatasources(vals) : [];
    // Every value held (none past the cap) and each an entry name of the datasource.
    if (exact && vals.length > 0 && named.length > 0) return union([...members, this.#datasourceType(named, sf)]);
    const options = sf?.options && sf.options.length > 0 && vals.every((v) => sf.options!.includes(v));
    if (options && exact) return union([...members, this.#literals(sf.options!)]);
    const vetoed = sf !== undefined && TEXT_TYPES.has(sf.type);
    // Besides the values, what counts for literals is known exactly (prose, dates and numbers are counted, not held).
    const literal =
      literalsAllowed &&
      !vetoed &&
      s.prose === 0 &&
      vals.length <= max &&
      vals.every((v) => s.vals[v]! >= 2) &&
      s.date < nonEmpty &&
      (inArray || s.numeric < nonEmpty);
    if (literal && exact) return union([...members, this.#literals(vals)]);
    // Where the unknown values could have made either of those, the type is in doubt.
    if (unknown && (named.length > 0 || options || literal)) this.#undecided = true;
    if (s.date === nonEmpty) members.push(ref('DateString'));
    else if (s.numeric === nonEmpty && !inArray) members.push(ref('NumericString'));
    else members.push(STRING);
    return union(members);
  }

  /** A field of uuids only: a relation when configured, in the schema, or when every uuid names a story. */
  #relationType(s: StrStat, ctx: FieldCtx): TypeExpr | undefined {
    const field = `${ctx.component}.${ctx.key}`;
    // Resolved by the compile: what is left a uuid names a target it could not resolve (kept).
    if (this.#opts.resolution && this.#opts.relations.has(field)) return STRING;
    const sf = ctx.schema;
    const configured = this.#opts.relations.has(field) || sf?.source === 'internal_stories';
    if (configured || (s.uuids !== undefined && Object.keys(s.uuids).every((u) => this.#known(u))))
      return ref('Relation', [this.#relationTargets(s.uuids, sf)]);
    return undefined;
  }

  /** The datasources whose entry names include every one of `vals`. */
  #namingDatasources(vals: readonly string[]): string[] {
    return this.#opts.datasources.filter((d) => vals.every((v) => this.#dsSets.get(d.slug)!.has(v))).map((d) => d.slug);
  }

  /** The entry names of the smallest of the `named` datasources (the schema's, when it is one of them). */
  #datasourceType(named: string[], sf: SchemaField | undefined): TypeExpr {
    const candidates = named.sort(
      (a, b) => this.#dsNames.get(a)!.length - this.#dsNames.get(b)!.length || compare(a, b),
    );
    const preferred =
      sf?.datasourceSlug !== undefined && candidates.includes(sf.datasourceSlug) ? sf.datasourceSlug : candidates[0]!;
    return this.#literals(this.#dsNames.get(preferred)!);
  }

  #slotType(slot: Slot, mode: 'content' | 'record', ctx?: FieldCtx, inArray = false): TypeExpr {
    const m: TypeExpr[] = [];
    if (slot.nul) m.push(kw('null'));
    if (slot.bool) m.push(kw('boolean'));
    if (slot.num) m.push(kw('number'));
    // Before strings: a resolved relation reads `Related<...> | string` where uuids are kept.
    if (slot.story) m.push(this.#embeddedStory(Object.keys(slot.story)));
    if (slot.str) m.push(this.#stringType(slot.str, mode === 'content', ctx, inArray));
    if (slot.arr) {
      const a = slot.arr;
      if (a.n === a.empty) m.push({ kind: 'empty-array' });
      else {
        const el = a.el;
        const onlyAssets = el.asset !== undefined && el.asset.n === el.n;
        m.push(onlyAssets ? ref('Multiasset') : { kind: 'array', element: this.#slotType(el, mode, ctx, true) });
      }
    }
    if (slot.obj)
      m.push({ kind: 'object', fields: this.#recordFields(slot.obj, mode === 'content' ? 'content' : 'record') });
    if (slot.blok) m.push(this.#blokUnion(Object.keys(slot.blok)));
    if (slot.asset)
      m.push(inArray ? ref('MultiassetItem') : ref(slot.asset.empty === slot.asset.n ? 'EmptyAsset' : 'Asset'));
    if (slot.link) m.push(ref('Multilink'));
    if (slot.table) m.push(ref('Table'));
    if (slot.rt) {
      const b = Object.keys(slot.rt.bloks);
      m.push(b.length > 0 ? ref('RichText', [this.#blokUnion(b)]) : ref('RichText'));
    }
    if (slot.plugin)
      m.push(
        union(
          Object.keys(slot.plugin)
            .sort(compare)
            .map((p) => ref(this.#plugins.get(p)!)),
        ),
      );
    if (m.length === 0) return kw('unknown');
    return union(m);
  }

  /**
   * The fields of an object shape: each observed key (optional where some objects lacked it),
   * `fixed` keys typed as given, and the `baseline` fields every such object has.
   */
  #recordFields(
    rec: Rec,
    mode: 'content' | 'record',
    fixed: Dict<TypeExpr> = {},
    baseline: readonly FieldModel[] = [],
  ): FieldModel[] {
    // Own keys only: content keys such as `__proto__` are ordinary keys (a plain object inherits one).
    const fixedType = (key: string): TypeExpr | undefined => (Object.hasOwn(fixed, key) ? fixed[key] : undefined);
    const out = new Map<string, FieldModel>();
    for (const key of Object.keys(rec.f).sort(compare)) {
      const slot = rec.f[key]!;
      out.set(key, { key, optional: slot.n < rec.n, type: fixedType(key) ?? this.#slotType(slot, mode) });
    }
    for (const b of baseline) {
      const seen = out.get(b.key);
      if (!seen) out.set(b.key, { ...b, optional: rec.n > 0 ? true : b.optional });
      else if (!fixedType(b.key)) seen.type = union([seen.type, b.type]);
    }
    return [...out.values()].sort((a, b) => compare(a.key, b.key));
  }

  /** What the component schema says a field holds (for fields never filled in observed content). */
  #schemaType(f: SchemaField): TypeExpr {
    const restricted = (wrap: (b: TypeExpr) => TypeExpr, fallback: TypeExpr): TypeExpr => {
      const allowed = (f.whitelist ?? []).filter((n) => this.#comps.has(n));
      return allowed.length > 0 ? wrap(this.#blokUnion(allowed)) : fallback;
    };
    switch (f.type) {
      case 'text':
      case 'textarea':
      case 'markdown':
      case 'image':
      case 'file':
        return STRING;
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
        return union([this.#optionType(f), lit('')]);
      case 'options':
        return { kind: 'array', element: this.#optionType(f) };
      case 'custom':
        return f.plugin !== undefined ? ref(this.#plugins.get(f.plugin)!) : kw('unknown');
      default:
        return kw('unknown');
    }
  }

  /** An option field's values by its schema: stories, a datasource's entries, its own options, else any string. */
  #optionType(f: SchemaField): TypeExpr {
    if (f.source === 'internal_stories') return ref('Relation', [this.#relationTargets(undefined, f)]);
    if (f.source === 'internal' && f.datasourceSlug !== undefined && this.#dsNames.has(f.datasourceSlug))
      return this.#literals(this.#dsNames.get(f.datasourceSlug)!);
    if (f.options && f.options.length > 0) return this.#literals(f.options);
    return STRING;
  }
}
