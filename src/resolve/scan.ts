/**
 * One pass over a story's content that finds what resolution acts on and plans
 * the copy: relation fields (listed `component.field` entries and, when asked,
 * detected uuid fields), internal multilinks and rich-text story link marks.
 *
 * The walk is iterative (deep nesting cannot exhaust the call stack), reads own
 * keys only, never writes, and visits each container once: a container shared
 * by several parents is planned once and its copy used everywhere; a container
 * that contains itself is not followed into again.
 *
 * The plan lists the containers that must be copied (those holding a change or
 * leading to one), children before parents, so that a copy can be built for any
 * depth without walking the content again.
 */
import type { Story } from '../api/index.js';
import { isContainer, isJsonObject, type JsonContainer, type JsonObject } from './json.js';
import {
  isAsset,
  isReference,
  isUuid,
  linkAt,
  linkTarget,
  nonEmptyString,
  relatedStory,
  type LinkTarget,
  type RelationMatcher,
  type StoryLookup,
} from './references.js';

/** A reference whose target is not in the lookup. */
export interface MissingTarget {
  /** Where: the content type, then the path inside content (`page.body[2].featured`, `article.tags[1]`). */
  field: string;
  /** The reference as written (a uuid, or a numeric id as a string). */
  uuid: string;
}

export type Edit =
  /** `node[field]` (or `node[field][index]`) becomes the target story. */
  | { readonly kind: 'relation'; readonly field: string; readonly index: number | undefined; readonly target: Story }
  /** `node[field]` (or `node[field][index]`) names a story the lookup does not give. */
  | { readonly kind: 'unresolved'; readonly field: string; readonly index: number | undefined }
  /** The multilink object gains `story` and a current `cached_url`. */
  | { readonly kind: 'multilink'; readonly target: LinkTarget }
  /** The link mark's `attrs` gain `story` and a current `href`. */
  | { readonly kind: 'mark'; readonly target: LinkTarget };

export interface PlanStep {
  readonly node: JsonContainer;
  /** Children (by key) that are themselves copied. */
  readonly children: ReadonlyArray<readonly [string | number, JsonContainer]>;
  readonly edits: readonly Edit[];
}

export interface Scan {
  /** Containers to copy, children before parents; empty when nothing changes. */
  readonly steps: readonly PlanStep[];
  /** Distinct relation targets, in document order. */
  readonly relationTargets: readonly Story[];
  /** Distinct link targets, in document order. */
  readonly linkTargets: readonly LinkTarget[];
  /**
   * Uuids of every target and every missing target, and of uuid values of detected fields that
   * name no story (not reported missing: such a field may be no relation; but were a story to
   * appear with that uuid, the field would embed it, so it is a reference all the same).
   */
  readonly direct: ReadonlySet<string>;
  readonly missing: readonly MissingTarget[];
  /** Asset objects as they appear in content, duplicates included, in document order (only when asked). */
  readonly assets: readonly JsonObject[];
}

export interface ScanOptions {
  readonly matcher: RelationMatcher | undefined;
  readonly detect: boolean;
  readonly links: boolean;
  /** Also list the assets met (see `Scan.assets`). */
  readonly assets?: boolean;
  readonly lookup: StoryLookup;
  /** See ScanMemo. */
  readonly memo?: ScanMemo | undefined;
}

/**
 * What scans of the language variants of one story share: the containers
 * directly under a content root in which a scan found nothing (no reference,
 * no missing target). A variant's untranslated fields are those same objects
 * at the same keys, and what a scan finds inside a field depends only on the
 * field's value and the options, so another scan skips them.
 */
export interface ScanMemo {
  readonly clean: Set<object>;
}

/** Keys of a blok that are never relations, whatever they hold. */
const NOT_RELATIONS = new Set(['_uid', 'component', '_editable']);

interface Visit {
  readonly node: JsonContainer;
  readonly parent: Visit | undefined;
  readonly key: string | number;
  expanded: boolean;
  children: Array<readonly [string | number, JsonContainer]> | undefined;
  edits: Edit[] | undefined;
  /** How many missing targets and assets were known when the visit began. */
  foundBefore: number;
}

type FieldKind = 'explicit' | 'detect';

/** Where the walk is with a container: still inside it (on the path), done with it, done and copied. */
const ON_PATH = 0;
const PLANNED = 1;
const COPIED = 2;
type Seen = typeof ON_PATH | typeof PLANNED | typeof COPIED;

/** A blok field to read as a relation. */
interface FieldTask {
  readonly visit: Visit;
  readonly field: string;
  readonly kind: FieldKind;
}

function pathOf(visit: Visit, tail: ReadonlyArray<string | number>): string {
  const keys: Array<string | number> = [];
  for (let v: Visit | undefined = visit; v; v = v.parent) keys.push(v.key);
  keys.reverse();
  keys.push(...tail);
  let path = String(keys[0]);
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    path += typeof key === 'number' ? `[${key}]` : `.${key}`;
  }
  return path;
}

export function scanStory(story: Story, options: ScanOptions): Scan {
  const content: unknown = story.content;
  const steps: PlanStep[] = [];
  const relationTargets = new Map<string, Story>();
  const linkTargets = new Map<string, LinkTarget>();
  const direct = new Set<string>();
  const missing: MissingTarget[] = [];
  const assets: JsonObject[] = [];
  if (!isContainer(content)) return { steps, relationTargets: [], linkTargets: [], direct, missing, assets };

  const { matcher, detect, links, lookup } = options;
  const wantAssets = options.assets === true;
  const clean = options.memo?.clean;
  const rootLabel = isJsonObject(content) && nonEmptyString(content.component) ? content.component : 'content';

  /** Each container met: on the path from the root, planned, or planned and copied (one map: no churn). */
  const seen = new Map<object, Seen>();

  const addRelation = (visit: Visit, field: string, index: number | undefined, target: Story): void => {
    (visit.edits ??= []).push({ kind: 'relation', field, index, target });
    if (!relationTargets.has(target.uuid)) relationTargets.set(target.uuid, target);
    direct.add(target.uuid);
  };
  const addMissing = (visit: Visit, tail: ReadonlyArray<string | number>, ref: string | number): void => {
    const uuid = String(ref);
    missing.push({ field: pathOf(visit, tail), uuid });
    direct.add(uuid);
  };

  const addUnresolved = (visit: Visit, field: string, index: number | undefined, ref: string | number): void => {
    (visit.edits ??= []).push({ kind: 'unresolved', field, index });
    addMissing(visit, index === undefined ? [field] : [field, index], ref);
  };

  const explicitRelation = (visit: Visit, field: string, value: unknown): void => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const ref: unknown = value[i];
        if (!isReference(ref)) continue;
        const target = relatedStory(ref, lookup);
        if (target) addRelation(visit, field, i, target);
        else addUnresolved(visit, field, i, ref);
      }
      return;
    }
    if (!isReference(value)) return;
    const target = relatedStory(value, lookup);
    if (target) addRelation(visit, field, undefined, target);
    else addUnresolved(visit, field, undefined, value);
  };

  const detectedRelation = (visit: Visit, field: string, value: unknown): void => {
    if (isUuid(value)) {
      const target = relatedStory(value, lookup);
      if (target) addRelation(visit, field, undefined, target);
      else direct.add(value);
      return;
    }
    if (!Array.isArray(value) || value.length === 0 || !value.every(isUuid)) return;
    const targets = value.map((ref: string) => relatedStory(ref, lookup));
    if (!targets.some((t) => t !== undefined)) {
      for (const ref of value as string[]) direct.add(ref);
      return;
    }
    targets.forEach((target, i) => {
      if (target) addRelation(visit, field, i, target);
      else addUnresolved(visit, field, i, value[i] as string);
    });
  };

  const addLink = (visit: Visit, kind: 'multilink' | 'mark', uuid: string): void => {
    const target = linkTargets.get(uuid) ?? linkTarget(uuid, lookup);
    if (!target) {
      addMissing(visit, [], uuid);
      return;
    }
    (visit.edits ??= []).push({ kind, target });
    if (!linkTargets.has(uuid)) linkTargets.set(uuid, target);
    direct.add(uuid);
  };

  /** Finds a link at the node; for a blok, says how each of its fields is read. */
  const examine = (visit: Visit): ((key: string) => FieldKind | undefined) | undefined => {
    const node = visit.node;
    if (Array.isArray(node)) return undefined;
    if (links) {
      const link = linkAt(node, visit.key, visit.parent?.node);
      if (link) addLink(visit, link.kind, link.uuid);
    }
    if (wantAssets && isAsset(node, Array.isArray(visit.parent?.node))) assets.push(node);
    const component = node.component;
    if (typeof component !== 'string') return undefined;
    const fields = matcher?.get(component);
    // Multilinks, assets and other typed field values are not bloks.
    const isBlok = detect && node.fieldtype === undefined && node.linktype === undefined;
    if (!fields && !isBlok) return undefined;
    return (key) => (fields?.has(key) ? 'explicit' : isBlok && !NOT_RELATIONS.has(key) ? 'detect' : undefined);
  };

  const root: Visit = {
    node: content,
    parent: undefined,
    key: rootLabel,
    expanded: false,
    children: undefined,
    edits: undefined,
    foundBefore: 0,
  };
  /** A field of the root that another variant's scan may skip (a link mark's `attrs` depend on their parent). */
  const shareable = (visit: Visit) => visit.parent === root && visit.key !== 'attrs';
  const stack: Array<Visit | FieldTask> = [root];
  while (stack.length > 0) {
    const entry = stack[stack.length - 1]!;
    if ('field' in entry) {
      // A relation field, read in document order: after the fields before it, before what its value holds.
      stack.pop();
      const value = (entry.visit.node as JsonObject)[entry.field];
      if (entry.kind === 'explicit') explicitRelation(entry.visit, entry.field, value);
      else detectedRelation(entry.visit, entry.field, value);
      continue;
    }
    const visit = entry;
    if (visit.expanded) {
      stack.pop();
      seen.set(visit.node, visit.edits || visit.children ? COPIED : PLANNED);
      if (
        clean &&
        !visit.edits &&
        !visit.children &&
        missing.length + assets.length === visit.foundBefore &&
        shareable(visit)
      )
        clean.add(visit.node);
      if (visit.edits || visit.children) {
        steps.push({ node: visit.node, children: visit.children ?? [], edits: visit.edits ?? [] });
        if (visit.parent) (visit.parent.children ??= []).push([visit.key, visit.node]);
      }
      continue;
    }
    const met = seen.get(visit.node);
    if (met !== undefined) {
      // Met again through another parent after it was planned.
      stack.pop();
      if (visit.parent && met === COPIED) (visit.parent.children ??= []).push([visit.key, visit.node]);
      continue;
    }
    if (clean?.has(visit.node) && shareable(visit)) {
      stack.pop();
      continue;
    }
    seen.set(visit.node, ON_PATH);
    visit.expanded = true;
    visit.foundBefore = missing.length + assets.length;
    const fieldKind = examine(visit);

    const node = visit.node;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) push(stack, visit, i, node[i], seen);
    } else {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        push(stack, visit, key, node[key], seen);
        const kind = fieldKind?.(key);
        if (kind) stack.push({ visit, field: key, kind });
      }
    }
  }

  return {
    steps,
    relationTargets: [...relationTargets.values()],
    linkTargets: [...linkTargets.values()],
    direct,
    missing,
    assets,
  };
}

function push(
  stack: Array<Visit | FieldTask>,
  parent: Visit,
  key: string | number,
  value: unknown,
  seen: ReadonlyMap<object, Seen>,
): void {
  // A container that holds one of its ancestors: not followed (JSON cannot do this).
  if (!isContainer(value) || seen.get(value) === ON_PATH) return;
  stack.push({ node: value, parent, key, expanded: false, children: undefined, edits: undefined, foundBefore: 0 });
}
