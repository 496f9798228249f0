/**
 * Building resolved content from a scan's plan: the containers on the way to
 * a change are copied (children before parents), everything else is shared
 * with the input, which is never written to.
 */
import type { Story } from '../api/index.js';
import { setOwn, shallowCopy, type JsonContainer, type JsonObject } from './json.js';
import type { LinkTarget } from './references.js';
import type { Scan } from './scan.js';

/** What each edit of a plan writes. A value of undefined leaves that reference as written. */
export interface EditValues {
  /**
   * A relation whose target the lookup does not give (missing, or not in this
   * view): kept as written, or left out (an array loses the item, a single
   * value becomes null).
   */
  unresolved: 'keep' | 'leave-out';
  /** What takes the place of a relation's reference to `target`. */
  relation(target: Story): unknown;
  /** What a link to `target` shows under `story`. */
  link(target: LinkTarget): unknown;
  /** A resolved multilink's `cached_url`. */
  cachedUrl(target: LinkTarget): string;
  /** A resolved link mark's `attrs.href`, given the one it has. */
  href(target: LinkTarget, current: unknown): unknown;
}

/**
 * The content with the plan's edits applied: a copy of each container holding
 * an edit that writes something, or a copied child, linked into copies of its
 * ancestors; the input itself when nothing is written.
 */
export function applyPlan(scan: Scan, content: unknown, values: EditValues): unknown {
  if (scan.steps.length === 0) return content;
  const copies = new Map<object, JsonContainer>();
  for (const step of scan.steps) {
    let copy: JsonContainer | undefined;
    const writable = (): JsonObject => (copy ??= shallowCopy(step.node)) as JsonObject;
    for (const [key, child] of step.children) {
      const childCopy = copies.get(child);
      if (childCopy) setOwn(writable(), key, childCopy);
    }
    let arrays: Map<string, unknown[]> | undefined;
    let leftOut: Map<string, Set<number>> | undefined;
    for (const edit of step.edits) {
      if (edit.kind === 'unresolved') {
        if (values.unresolved === 'keep') continue;
        if (edit.index === undefined) setOwn(writable(), edit.field, null);
        else {
          let items = leftOut?.get(edit.field);
          if (!items) (leftOut ??= new Map()).set(edit.field, (items = new Set()));
          items.add(edit.index);
        }
        continue;
      }
      if (edit.kind === 'relation') {
        const value = values.relation(edit.target);
        if (value === undefined) continue;
        const obj = writable();
        if (edit.index === undefined) {
          setOwn(obj, edit.field, value);
          continue;
        }
        // Items are replaced one by one in one copy of the array, so that changes found inside its other items are kept.
        let array = arrays?.get(edit.field);
        if (!array) {
          array = shallowCopy(obj[edit.field] as unknown[]);
          (arrays ??= new Map()).set(edit.field, array);
          setOwn(obj, edit.field, array);
        }
        setOwn(array, edit.index, value);
        continue;
      }
      const shown = values.link(edit.target);
      if (shown === undefined) continue;
      const obj = writable();
      if (edit.kind === 'multilink') {
        setOwn(obj, 'story', shown);
        setOwn(obj, 'cached_url', values.cachedUrl(edit.target));
      } else {
        const attrs = shallowCopy(obj.attrs as JsonObject);
        setOwn(attrs, 'story', shown);
        const href = values.href(edit.target, attrs.href);
        if (href !== attrs.href) setOwn(attrs, 'href', href);
        setOwn(obj, 'attrs', attrs);
      }
    }
    // Arrays that lose items: a new array of the items kept (resolved ones included).
    for (const [field, items] of leftOut ?? []) {
      const obj = writable();
      setOwn(
        obj,
        field,
        (obj[field] as unknown[]).filter((_, i) => !items.has(i)),
      );
    }
    if (copy) copies.set(step.node, copy);
  }
  return copies.get(content as object) ?? content;
}
