/**
 * One pass over a story's content that finds everything resolution acts on:
 * relation fields, internal links (multilinks and rich-text link marks) and
 * assets.
 *
 * The walk is iterative (deep content cannot exhaust the call stack), visits
 * every container once (a reference cycle among objects ends the walk, it does
 * not loop), reads only own keys (`__proto__` and `constructor` keys are plain
 * data here) and never writes. It reports sites in document order: the order
 * in which the keys and items appear in the JSON.
 *
 * Every container met is a `Frame` that knows its parent and its key there, so
 * that version 1 can copy exactly the path from the root to a changed node.
 */

/** A JSON object or array met during the walk, and how to reach it from the root. */
export interface Frame {
  readonly node: JsonContainer;
  readonly parent: Frame | undefined;
  readonly key: string | number;
}

export type JsonObject = Record<string, unknown>;
export type JsonContainer = JsonObject | unknown[];

/** A `component.field` match: `blok[field]` holds one reference or an array of them. */
export interface RelationSite {
  readonly blok: Frame;
  readonly field: string;
  readonly value: unknown;
  /** The frame of `value` when it is an array (version 1 replaces its items in place). */
  readonly valueFrame: Frame | undefined;
}

/**
 * An internal link. `multilink`: the frame is the multilink object
 * (`{linktype:'story', id:<uuid>, cached_url, ...}`). `mark`: the frame is the
 * rich-text mark `{type:'link', attrs:{linktype:'story', uuid, href, ...}}`.
 */
export interface LinkSite {
  readonly kind: 'multilink' | 'mark';
  readonly frame: Frame;
  readonly uuid: string;
}

export interface Scan {
  relations: RelationSite[];
  links: LinkSite[];
  /** Asset objects as they appear in content (duplicates included). */
  assets: JsonObject[];
}

/** Fields to resolve, by component name. */
export type RelationMatcher = ReadonlyMap<string, ReadonlySet<string>>;

export interface ScanWants {
  relations?: RelationMatcher | undefined;
  links?: boolean;
  assets?: boolean;
}

/**
 * Parses `component.field` entries. The component is the part before the first
 * dot, the field the rest; entries without both parts are ignored. Matching is
 * exact (component names are case-sensitive: `Person` is not `person`).
 */
export function relationMatcher(relations: readonly string[]): RelationMatcher | undefined {
  const byComponent = new Map<string, Set<string>>();
  for (const entry of relations) {
    if (typeof entry !== 'string') continue;
    const dot = entry.indexOf('.');
    if (dot <= 0 || dot === entry.length - 1) continue;
    const component = entry.slice(0, dot);
    const field = entry.slice(dot + 1);
    let fields = byComponent.get(component);
    if (!fields) byComponent.set(component, (fields = new Set()));
    fields.add(field);
  }
  return byComponent.size > 0 ? byComponent : undefined;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type StackEntry = Frame | RelationSite;

function isRelationSite(entry: StackEntry): entry is RelationSite {
  return 'blok' in entry;
}

export function scanContent(content: unknown, wants: ScanWants): Scan {
  const scan: Scan = { relations: [], links: [], assets: [] };
  if (typeof content !== 'object' || content === null) return scan;
  const matcher = wants.relations;
  const links = wants.links === true;
  const assets = wants.assets === true;

  const visited = new Set<object>();
  const stack: StackEntry[] = [{ node: content as JsonContainer, parent: undefined, key: '' }];

  while (stack.length > 0) {
    const entry = stack.pop()!;
    if (isRelationSite(entry)) {
      scan.relations.push(entry);
      continue;
    }
    const frame = entry;
    const node = frame.node;
    if (visited.has(node)) continue;
    visited.add(node);

    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child = node[i];
        if (typeof child === 'object' && child !== null) {
          stack.push({ node: child as JsonContainer, parent: frame, key: i });
        }
      }
      continue;
    }

    if (links) {
      const link = linkSite(frame);
      if (link) scan.links.push(link);
    }
    if (assets && isAsset(frame)) scan.assets.push(node);

    const component = node.component;
    const fields = matcher !== undefined && typeof component === 'string' ? matcher.get(component) : undefined;
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const value = node[key];
      const isContainer = typeof value === 'object' && value !== null;
      const childFrame: Frame | undefined = isContainer
        ? { node: value as JsonContainer, parent: frame, key }
        : undefined;
      if (childFrame) stack.push(childFrame);
      // Pushed after the value's frame so that it is reported before anything
      // found inside the value: document order.
      if (fields?.has(key)) {
        stack.push({ blok: frame, field: key, value, valueFrame: Array.isArray(value) ? childFrame : undefined });
      }
    }
  }
  return scan;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function isStoryLinkMark(node: JsonObject): boolean {
  if (node.type !== 'link') return false;
  const attrs = node.attrs;
  return isJsonObject(attrs) && attrs.linktype === 'story' && nonEmptyString(attrs.uuid);
}

function linkSite(frame: Frame): LinkSite | undefined {
  const node = frame.node as JsonObject;
  if (isStoryLinkMark(node)) {
    return { kind: 'mark', frame, uuid: (node.attrs as JsonObject).uuid as string };
  }
  if (node.linktype !== 'story' || !nonEmptyString(node.id)) return undefined;
  // A multilink, or an item of the same shape that lacks `fieldtype` (older content).
  if (node.fieldtype !== 'multilink' && node.fieldtype !== undefined) return undefined;
  // The `attrs` of a link mark are handled with their mark.
  if (frame.key === 'attrs' && frame.parent && isJsonObject(frame.parent.node) && isStoryLinkMark(frame.parent.node)) {
    return undefined;
  }
  return { kind: 'multilink', frame, uuid: node.id };
}

function isAssetId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * An asset field value (`fieldtype:'asset'`) or a multiasset item (an array item
 * without `fieldtype` that is not a blok), with a numeric id and a filename.
 * Empty assets (`id:null` or `filename:''`) are not assets.
 */
function isAsset(frame: Frame): boolean {
  const node = frame.node as JsonObject;
  if (!isAssetId(node.id) || !nonEmptyString(node.filename)) return false;
  if (node.fieldtype === 'asset') return true;
  return (
    node.fieldtype === undefined &&
    node.component === undefined &&
    node.linktype === undefined &&
    frame.parent !== undefined &&
    Array.isArray(frame.parent.node)
  );
}
