/**
 * What a reference in content is and what it names: relation values, the
 * `component.field` entries that say where relations are, internal links
 * (multilinks and rich-text story link marks) and assets.
 */
import type { Story } from '../api/index.js';
import type { Folder } from '../snapshot/index.js';
import { isJsonObject, type JsonObject } from './json.js';

/** One language and view of a space: where references are looked up. */
export interface StoryLookup {
  byUuid(uuid: string): Story | undefined;
  byId(id: number): Story | undefined;
  /** Folders, for links that point at a folder (without it, such links name nothing). */
  folderByUuid?(uuid: string): Folder | undefined;
}

/** Fields to resolve, by component name (exact, case-sensitive: `Person` is not `person`). */
export type RelationMatcher = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Parses `component.field` entries: the component is the part before the first
 * dot, the field the rest. Entries without both parts are ignored.
 */
export function relationMatcher(relations: readonly string[] | undefined): RelationMatcher | undefined {
  const byComponent = new Map<string, Set<string>>();
  for (const entry of relations ?? []) {
    if (typeof entry !== 'string') continue;
    const dot = entry.indexOf('.');
    if (dot <= 0 || dot === entry.length - 1) continue;
    const component = entry.slice(0, dot);
    let fields = byComponent.get(component);
    if (!fields) byComponent.set(component, (fields = new Set()));
    fields.add(entry.slice(dot + 1));
  }
  return byComponent.size > 0 ? byComponent : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMERIC_ID = /^\d{1,15}$/;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** A value that names a story when it names anything: a non-empty string or a safe integer. */
export function isReference(ref: unknown): ref is string | number {
  return nonEmptyString(ref) || (typeof ref === 'number' && Number.isSafeInteger(ref));
}

/**
 * The story a relation value names: a uuid, a numeric id or a numeric string.
 * Anything else (objects, empty strings, unsafe numbers) names nothing.
 */
export function relatedStory(ref: unknown, lookup: StoryLookup): Story | undefined {
  if (!isReference(ref)) return undefined;
  if (typeof ref === 'string' && !NUMERIC_ID.test(ref)) return lookup.byUuid(ref);
  // By id, as the same object the lookup gives by uuid: one object per story, however it is named.
  const found = lookup.byId(Number(ref));
  return found && (lookup.byUuid(found.uuid) ?? found);
}

/** What an internal link points at: stories and folders can both be linked to. */
export type LinkTarget =
  | { readonly kind: 'story'; readonly uuid: string; readonly story: Story }
  | { readonly kind: 'folder'; readonly uuid: string; readonly folder: Folder };

export function linkTarget(uuid: string, lookup: StoryLookup): LinkTarget | undefined {
  const story = lookup.byUuid(uuid);
  if (story) return { kind: 'story', uuid, story };
  const folder = lookup.folderByUuid?.(uuid);
  return folder ? { kind: 'folder', uuid, folder } : undefined;
}

export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** A rich-text link mark to a story: `{type:'link', attrs:{linktype:'story', uuid, href, ...}}`. */
export function isStoryLinkMark(node: JsonObject): boolean {
  if (node.type !== 'link') return false;
  const attrs = node.attrs;
  return isJsonObject(attrs) && attrs.linktype === 'story' && nonEmptyString(attrs.uuid);
}

/**
 * The internal link at a node, if it is one: a link mark, or a multilink
 * (`{linktype:'story', id:<uuid>, cached_url, ...}`, or an item of that shape
 * without `fieldtype`, as older content has it). The `attrs` of a link mark
 * (`key` 'attrs' under a mark `parent`) belong to their mark.
 */
export function linkAt(
  node: JsonObject,
  key: string | number,
  parent: unknown,
): { kind: 'multilink' | 'mark'; uuid: string } | undefined {
  if (isStoryLinkMark(node)) return { kind: 'mark', uuid: (node.attrs as JsonObject).uuid as string };
  if (node.linktype !== 'story' || !nonEmptyString(node.id)) return undefined;
  if (node.fieldtype !== 'multilink' && node.fieldtype !== undefined) return undefined;
  if (key === 'attrs' && isJsonObject(parent) && isStoryLinkMark(parent)) return undefined;
  return { kind: 'multilink', uuid: node.id };
}

/**
 * An asset field value (`fieldtype:'asset'`) or a multiasset item (an array
 * item without `fieldtype` that is not a blok), with a numeric id and a
 * filename. Empty assets (`id:null` or `filename:''`) are not assets.
 */
export function isAsset(node: JsonObject, inArray: boolean): boolean {
  if (typeof node.id !== 'number' || !Number.isSafeInteger(node.id) || !nonEmptyString(node.filename)) return false;
  if (node.fieldtype === 'asset') return true;
  return inArray && node.fieldtype === undefined && node.component === undefined && node.linktype === undefined;
}
