/**
 * Observation counters. Every statistic is a count so that an observation can
 * be undone exactly (remove() subtracts what add() added); the whole state is
 * plain JSON with null-prototype dictionaries so content keys such as
 * `__proto__` are ordinary keys.
 */
import { RICHTEXT_MARK_TYPES, RICHTEXT_NODE_TYPES } from '../../api/index.js';

export type Dict<T> = Record<string, T>;

export function dict<T>(): Dict<T> {
  return Object.create(null) as Dict<T>;
}

/** Statistics of the string values seen at one position. */
export interface StrStat {
  n: number;
  /** `""` */
  empty: number;
  /** Non-empty values that look like numbers (`"1234"`, `"-2.5"`). */
  numeric: number;
  /** Non-empty values that look like dates (`2020-07-01 20:57`, with seconds, ISO). */
  date: number;
  /** Non-empty values that look like uuids. */
  uuid: number;
  /** Non-empty values that cannot be option keys (long, multi-line, paths or URLs). */
  prose: number;
  /**
   * Distinct non-empty values, at most `cap` of them, each with the number of stories that hold it
   * here (a story holding it twice, or in several languages, counts once: a value recurs when
   * several stories have it).
   */
  vals: Dict<number>;
  /** Values not held in `vals`, counted as they are (once per story holding each). */
  over: number;
  /** uuid values with their counts (relation candidates only). */
  uuids?: Dict<number>;
}

export interface ArrStat {
  n: number;
  empty: number;
  el: Slot;
}

/** Everything seen at one position (a field of a component, an array element, ...). */
export interface Slot {
  n: number;
  nul?: number;
  bool?: number;
  num?: number;
  str?: StrStat;
  arr?: ArrStat;
  /** Plain objects, typed structurally. */
  obj?: Rec;
  /** Bloks by component name. */
  blok?: Dict<number>;
  /** Asset objects: all of them, and those with an empty filename. */
  asset?: { n: number; empty: number };
  /** Multilinks by linktype. */
  link?: Dict<number>;
  table?: number;
  /** Rich-text documents, with the components of their embedded bloks. */
  rt?: { n: number; bloks: Dict<number> };
  /** Plugin values by plugin name. */
  plugin?: Dict<number>;
  /** Story objects (resolved relations) by content type. */
  story?: Dict<number>;
}

/** An object shape: how often it was seen and what each key held. */
export interface Rec {
  n: number;
  f: Dict<Slot>;
}

export interface CompRec extends Rec {
  /** Times used as a story's root content. */
  root: number;
}

export interface TypeCounts {
  /** 2: `vals` count stories (1 counted observations). */
  v: 2;
  /** Fingerprint of the options that shape observations. */
  opts: string;
  comps: Dict<CompRec>;
  asset: Rec;
  massetItem: Rec;
  links: Dict<Rec>;
  plugins: Dict<Rec>;
  /** Rich-text node and mark types outside the known vocabulary. */
  rtNodes: Dict<number>;
  rtMarks: Dict<number>;
  /** Story uuid -> content type -> count. */
  stories: Dict<Dict<number>>;
}

export function emptyState(opts: string): TypeCounts {
  return {
    v: 2,
    opts,
    comps: dict(),
    asset: { n: 0, f: dict() },
    massetItem: { n: 0, f: dict() },
    links: dict(),
    plugins: dict(),
    rtNodes: dict(),
    rtMarks: dict(),
    stories: dict(),
  };
}

const NUMERIC = /^-?\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const RICHTEXT_NODES: ReadonlySet<string> = new Set(RICHTEXT_NODE_TYPES);
export const RICHTEXT_MARKS: ReadonlySet<string> = new Set(RICHTEXT_MARK_TYPES);

export interface ObserveConfig {
  /** Distinct string values kept per position. */
  cap: number;
}

/** Where a value sits: only component fields (and their array items) can be relations or datasource values. */
interface Ctx {
  readonly fieldLevel: boolean;
  readonly inArray: boolean;
}

/** The four places, made once: a context per observed value would be garbage. */
const FIELD: Ctx = { fieldLevel: true, inArray: false };
const FIELD_ITEM: Ctx = { fieldLevel: true, inArray: true };
const NESTED: Ctx = { fieldLevel: false, inArray: false };
const NESTED_ITEM: Ctx = { fieldLevel: false, inArray: true };

/** Whether a dictionary has no keys, without listing them (some hold every uuid of a space). */
function isEmpty(d: object): boolean {
  for (const _ in d) return false;
  return true;
}

/** How many keys the dictionaries of observed values hold, counted once and then kept up to date. */
const sizes = new WeakMap<object, number>();
function sizeOf(d: object): number {
  let size = sizes.get(d);
  if (size === undefined) {
    size = 0;
    for (const _ in d) size++;
    sizes.set(d, size);
  }
  return size;
}

/** Adds `delta` to a count, removing it at zero; true when it did (the dictionary may be empty then). */
function bump(d: Dict<number>, key: string, delta: number): boolean {
  const next = (d[key] ?? 0) + delta;
  if (next !== 0) {
    d[key] = next;
    return false;
  }
  delete d[key];
  return true;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Marks an object resolution embeds in place of a story when only the story's
 * identity matters (its module imports the story): it carries `id`, `uuid` and
 * `content.component`, and is observed as that story.
 */
export const STAND_IN: unique symbol = Symbol('story stand-in');

export function isBlok(v: Record<string, unknown>): boolean {
  return typeof v.component === 'string' && typeof v._uid === 'string';
}

export class Observer {
  /** The string values already counted in `vals` (or `over`) for the story being observed, by position. */
  readonly #counted = new Map<StrStat, string | Set<string>>();

  constructor(
    readonly state: TypeCounts,
    readonly config: ObserveConfig,
  ) {}

  /** Whether `value` is counted at `s` for the first time in the story being observed (and notes it). */
  #first(s: StrStat, value: string): boolean {
    const had = this.#counted.get(s);
    if (had === undefined) {
      this.#counted.set(s, value);
      return true;
    }
    if (typeof had === 'string') {
      if (had === value) return false;
      this.#counted.set(s, new Set([had, value]));
      return true;
    }
    if (had.has(value)) return false;
    had.add(value);
    return true;
  }

  /** One story (a story without a component at its root records nothing). */
  story(story: { uuid?: unknown; content?: unknown }, delta: 1 | -1): void {
    this.variants([story], delta);
  }

  /**
   * Variants of one story (its languages), as story() on each would record them. What the
   * variants share (untranslated fields are the same objects) is walked once, counted as often as
   * it is shared: every count is linear in delta.
   */
  variants(stories: ReadonlyArray<{ uuid?: unknown; content?: unknown }>, delta: 1 | -1): void {
    const first = stories[0]?.content;
    const alike =
      isObject(first) &&
      typeof first.component === 'string' &&
      stories.every(
        (s) => s.uuid === stories[0]!.uuid && isObject(s.content) && s.content.component === first.component,
      );
    if (!alike) {
      if (stories.length > 1) for (const s of stories) this.variants([s], delta);
      return;
    }
    this.#counted.clear();
    const n = stories.length * delta;
    const name = first.component as string;
    const uuid = stories[0]!.uuid;
    if (typeof uuid === 'string') {
      const byComp = (this.state.stories[uuid] ??= dict());
      if (bump(byComp, name, n) && isEmpty(byComp)) delete this.state.stories[uuid];
    }
    const rec = (this.state.comps[name] ??= { n: 0, root: 0, f: dict() });
    rec.n += n;
    rec.root += n;
    // Each key once, in the order first seen; its distinct values (by identity) in the order first
    // seen, each counted for every variant holding it. A few variants: compared in place.
    const contents = stories.map((s) => s.content as Record<string, unknown>);
    const has = (j: number, key: string, value: unknown) =>
      Object.hasOwn(contents[j]!, key) && contents[j]![key] === value;
    for (let i = 0; i < contents.length; i++) {
      keys: for (const key of Object.keys(contents[i]!)) {
        if (key === 'component' || key === '_uid') continue;
        for (let j = 0; j < i; j++) if (Object.hasOwn(contents[j]!, key)) continue keys;
        values: for (let j = i; j < contents.length; j++) {
          if (!Object.hasOwn(contents[j]!, key)) continue;
          const value = contents[j]![key];
          for (let k = i; k < j; k++) if (has(k, key, value)) continue values;
          let times = delta;
          for (let k = j + 1; k < contents.length; k++) if (has(k, key, value)) times += delta;
          this.field(rec, key, value, times, FIELD);
        }
      }
    }
    if (rec.n === 0) delete this.state.comps[name];
  }

  /** A blok inside content (a story's root content is observed by variants()). */
  private blok(value: Record<string, unknown>, delta: number): void {
    const name = value.component as string;
    const rec = (this.state.comps[name] ??= { n: 0, root: 0, f: dict() });
    rec.n += delta;
    for (const key of Object.keys(value)) {
      if (key === 'component' || key === '_uid') continue;
      this.field(rec, key, value[key], delta, FIELD);
    }
    if (rec.n === 0) delete this.state.comps[name];
  }

  private field(rec: Rec, key: string, value: unknown, delta: number, ctx: Ctx): void {
    const slot = (rec.f[key] ??= { n: 0 });
    this.slot(slot, value, delta, ctx);
    if (slot.n === 0) delete rec.f[key];
  }

  private record(rec: Rec, value: Record<string, unknown>, delta: number): void {
    rec.n += delta;
    for (const key of Object.keys(value)) {
      this.field(rec, key, value[key], delta, NESTED);
    }
  }

  slot(slot: Slot, value: unknown, delta: number, ctx: Ctx): void {
    slot.n += delta;
    if (value === null) {
      slot.nul = (slot.nul ?? 0) + delta;
      if (slot.nul === 0) delete slot.nul;
    } else if (typeof value === 'boolean') {
      slot.bool = (slot.bool ?? 0) + delta;
      if (slot.bool === 0) delete slot.bool;
    } else if (typeof value === 'number') {
      slot.num = (slot.num ?? 0) + delta;
      if (slot.num === 0) delete slot.num;
    } else if (typeof value === 'string') {
      slot.str ??= { n: 0, empty: 0, numeric: 0, date: 0, uuid: 0, prose: 0, vals: dict(), over: 0 };
      this.string(slot.str, value, delta, ctx);
      if (slot.str.n === 0) delete slot.str;
    } else if (Array.isArray(value)) {
      const arr = (slot.arr ??= { n: 0, empty: 0, el: { n: 0 } });
      arr.n += delta;
      if (value.length === 0) arr.empty += delta;
      for (const item of value) this.slot(arr.el, item, delta, ctx.fieldLevel ? FIELD_ITEM : NESTED_ITEM);
      if (arr.n === 0) delete slot.arr;
    } else if (isObject(value)) {
      this.object(slot, value, delta, ctx);
    }
  }

  private string(s: StrStat, value: string, delta: number, ctx: Ctx): void {
    s.n += delta;
    if (value === '') {
      s.empty += delta;
      return;
    }
    // Cheap first checks: most strings are prose, and the patterns start with a digit or a sign.
    const first = value.charCodeAt(0);
    const digit = first >= 48 && first <= 57;
    if ((digit || first === 45) && NUMERIC.test(value)) s.numeric += delta;
    if (digit && DATE.test(value)) s.date += delta;
    if (value.length > 64 || value.includes('\n') || value.includes('/')) s.prose += delta;
    const isUuid = value.length === 36 && UUID.test(value);
    if (isUuid) s.uuid += delta;
    if (this.#first(s, value)) {
      // Once per story (delta counts the variants holding it): added or taken away, one story.
      const story = delta > 0 ? 1 : -1;
      if (value in s.vals) {
        const size = sizeOf(s.vals);
        bump(s.vals, value, story);
        if (!(value in s.vals)) sizes.set(s.vals, size - 1);
      } else if (delta > 0 && s.over === 0 && sizeOf(s.vals) < this.config.cap) {
        // (With values past the cap, a new one is past it too, as a full observation would count it:
        // held in room that removals made, it would hide that the held values are not all there are.)
        sizes.set(s.vals, sizeOf(s.vals) + 1);
        s.vals[value] = story;
      } else s.over += story;
    }
    if (!ctx.fieldLevel) return;
    if (isUuid) {
      s.uuids ??= dict();
      if (bump(s.uuids, value, delta) && isEmpty(s.uuids)) delete s.uuids;
    }
  }

  private object(slot: Slot, value: Record<string, unknown>, delta: number, ctx: Ctx): void {
    if (value.type === 'doc') {
      const rt = (slot.rt ??= { n: 0, bloks: dict() });
      rt.n += delta;
      this.richtext(value, rt.bloks, delta);
      if (rt.n === 0) delete slot.rt;
      return;
    }
    if (
      value.fieldtype === 'table' ||
      (Array.isArray(value.thead) && Array.isArray(value.tbody) && value.component === undefined)
    ) {
      slot.table = (slot.table ?? 0) + delta;
      if (slot.table === 0) delete slot.table;
      return;
    }
    if (value.fieldtype === 'multilink' || (typeof value.linktype === 'string' && 'cached_url' in value)) {
      const linktype = typeof value.linktype === 'string' ? value.linktype : 'url';
      slot.link ??= dict();
      if (bump(slot.link, linktype, delta) && isEmpty(slot.link)) delete slot.link;
      const rec = (this.state.links[linktype] ??= { n: 0, f: dict() });
      this.record(rec, value, delta);
      if (rec.n === 0) delete this.state.links[linktype];
      return;
    }
    if (value.fieldtype === 'asset' || ('filename' in value && 'id' in value && value.component === undefined)) {
      const a = (slot.asset ??= { n: 0, empty: 0 });
      a.n += delta;
      if (value.filename === '' || value.filename === null) a.empty += delta;
      if (a.n === 0) delete slot.asset;
      this.record(ctx.inArray ? this.state.massetItem : this.state.asset, value, delta);
      return;
    }
    if (isBlok(value)) {
      slot.blok ??= dict();
      if (bump(slot.blok, value.component as string, delta) && isEmpty(slot.blok)) delete slot.blok;
      this.blok(value, delta);
      return;
    }
    if (typeof value.plugin === 'string') {
      slot.plugin ??= dict();
      if (bump(slot.plugin, value.plugin, delta) && isEmpty(slot.plugin)) delete slot.plugin;
      const rec = (this.state.plugins[value.plugin] ??= { n: 0, f: dict() });
      this.record(rec, value, delta);
      if (rec.n === 0) delete this.state.plugins[value.plugin];
      return;
    }
    const story = STAND_IN in value || (typeof value.uuid === 'string' && typeof value.full_slug === 'string');
    if (story && isObject(value.content) && typeof value.content.component === 'string') {
      slot.story ??= dict();
      if (bump(slot.story, value.content.component, delta) && isEmpty(slot.story)) delete slot.story;
      return;
    }
    const rec = (slot.obj ??= { n: 0, f: dict() });
    this.record(rec, value, delta);
    if (rec.n === 0) delete slot.obj;
  }

  private richtext(node: Record<string, unknown>, bloks: Dict<number>, delta: number): void {
    const type = node.type;
    if (typeof type === 'string' && !RICHTEXT_NODES.has(type)) bump(this.state.rtNodes, type, delta);
    if (Array.isArray(node.marks)) {
      for (const mark of node.marks) {
        if (isObject(mark) && typeof mark.type === 'string' && !RICHTEXT_MARKS.has(mark.type))
          bump(this.state.rtMarks, mark.type, delta);
      }
    }
    if (type === 'blok' && isObject(node.attrs) && Array.isArray(node.attrs.body)) {
      for (const item of node.attrs.body) {
        if (isObject(item) && isBlok(item)) {
          bump(bloks, item.component as string, delta);
          this.blok(item, delta);
        }
      }
    }
    if (Array.isArray(node.content)) {
      for (const child of node.content) if (isObject(child)) this.richtext(child, bloks, delta);
    }
  }
}

/**
 * Adds the counts of `from` to `into` (both states recorded with the same
 * options): what observing the stories of both gives, whichever thread observed
 * them. A position's distinct strings beyond the cap are counted in `over`, as
 * they are when observed one by one; which values are held then depends on the
 * order, and the types printed do not (more than the cap reads as a string).
 */
export function mergeState(into: TypeCounts, from: TypeCounts, cap: number): void {
  const { v: _v, opts: _opts, ...counts } = from;
  mergeCounts(into as unknown as Record<string, unknown>, counts, cap);
}

function mergeCounts(into: Record<string, unknown>, from: Record<string, unknown>, cap: number): void {
  for (const key in from) {
    const b = from[key];
    const a = into[key];
    if (typeof b === 'number') {
      into[key] = ((a as number | undefined) ?? 0) + b;
    } else if (b !== null && typeof b === 'object') {
      // Taken over as a copy: `from` may be parsed JSON, whose objects have a prototype.
      if (a === undefined) into[key] = canonical(b, true);
      else if (key === 'vals' && typeof into.over === 'number')
        mergeVals(into as unknown as StrStat, b as Dict<number>, cap);
      else mergeCounts(a as Record<string, unknown>, b as Record<string, unknown>, cap);
    }
  }
}

function mergeVals(into: StrStat, vals: Dict<number>, cap: number): void {
  let size = sizeOf(into.vals);
  const values = Object.keys(vals);
  // Which values are held past the cap: the first in sorted order, whatever order `vals` has.
  if (size + values.length > cap) values.sort();
  for (const value of values) {
    const count = vals[value]!;
    if (value in into.vals) into.vals[value]! += count;
    else if (size < cap) {
      into.vals[value] = count;
      size++;
    } else into.over += count;
  }
  sizes.set(into.vals, size);
}

/**
 * The story counts of a parsed state (story uuid -> content type -> count),
 * taken over as they are: their objects lose their prototypes (so a uuid or
 * component named `__proto__` is an ordinary key) instead of being copied in
 * sorted order. They are only ever looked up by uuid, and they are most of a
 * large space's state: copying them was most of resuming from it. Objects
 * that cannot take another prototype are copied; undefined when the value is
 * not such a dictionary.
 */
export function adoptStoryCounts(value: unknown): Dict<Dict<number>> | undefined {
  if (!isObject(value)) return undefined;
  // All checked before any is changed: a refused value is left as it was.
  const uuids = Object.keys(value);
  let adoptable = Object.isExtensible(value);
  for (const uuid of uuids) {
    const byComp = value[uuid];
    if (!isObject(byComp)) return undefined;
    if (!Object.isExtensible(byComp)) adoptable = false;
  }
  if (!adoptable) return canonical(value, true) as Dict<Dict<number>>;
  Object.setPrototypeOf(value, null);
  for (const uuid of uuids) Object.setPrototypeOf(value[uuid], null);
  return value as Dict<Dict<number>>;
}

/** Deep copy with sorted keys and null-prototype dictionaries. */
export function canonical(value: unknown, nullProto: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => canonical(v, nullProto));
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    if (nullProto) {
      // Without a prototype there is no __proto__ setter: assignment makes an own property.
      const out = Object.create(null) as Record<string, unknown>;
      for (const key of keys) out[key] = canonical(value[key], nullProto);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      // Assigning `__proto__` would set the prototype: that key is defined as data.
      if (key === '__proto__')
        Object.defineProperty(out, key, {
          value: canonical(value[key], nullProto),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[key] = canonical(value[key], nullProto);
    }
    return out;
  }
  return value;
}
