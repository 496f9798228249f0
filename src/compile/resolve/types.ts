/**
 * What compile-time resolution takes and gives.
 */
import type { Story } from '../../api/index.js';
import type { LinkPolicy, LinksMode, MissingTarget, StoryLookup as Lookup } from '../../resolve/index.js';

export type { LinksMode, MissingTarget } from '../../resolve/index.js';

export interface ResolveConfig {
  /** `component.field` entries, as the API's `resolve_relations` takes them. */
  relations?: readonly string[];
  /**
   * Also treat as relations the blok fields that hold a uuid string naming a
   * story of the snapshot, or an array of uuid strings at least one of which
   * names a story of the snapshot.
   */
  detectRelations?: boolean;
  /** Multilinks and rich-text story links; absent: links are left as they are. */
  links?: LinksMode;
  /**
   * Levels of resolution. 1 (the default): the story's references are
   * resolved and the targets embedded as they are in the snapshot; 2: the
   * targets are themselves resolved at depth 1; and so on. 0 resolves nothing.
   */
  depth?: number;
  /**
   * Keep a relation's reference (its uuid or id, as written) where its target
   * is not in this view of the snapshot. Default false: such a target is left
   * out of the resolved value (an array loses the item, a single value
   * becomes null); the compile's warning names it either way.
   */
  keepUnresolved?: boolean;
}

/**
 * One language and view of the snapshot, and what links show of it (see
 * LinkPolicy: `linkRecord`, `pathOf`, `published`).
 */
export interface StoryLookup extends Lookup, Omit<LinkPolicy, 'href'> {}

export interface ResolveResult {
  /** A new object; unchanged subtrees are shared with the input, which is never written to. */
  story: Story;
  /**
   * Uuids of every story or folder the output embeds or points at, at every
   * level of the resolution, missing targets included (they change the output
   * once they appear). Sorted, unique. Drives invalidation.
   */
  references: string[];
  /** References of this story's own content whose target is not in the snapshot (see `keepUnresolved`). */
  missing: MissingTarget[];
  /**
   * The references embedded only whole, as the snapshot has them (at depth 1, relation targets
   * no link points at), never through what a link shows of them (path, name, ...). A change to
   * such a target that keeps it in the snapshot with its content type changes nothing else in
   * this story's output. Sorted, unique.
   */
  embedded: string[];
}

export interface Resolver {
  resolve(story: Story): ResolveResult;
}
