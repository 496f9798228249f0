/**
 * What compile-time resolution takes and gives.
 */
import type { Story } from '../../api/index.js';
import type { Folder } from '../../snapshot/index.js';

/** How internal links (multilinks and rich-text story link marks) are resolved. */
export type LinksMode = 'url' | 'story' | 'link';

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
}

/** A folder or a story: what an internal link can point at. */
export type LinkableRecord = Story | Folder;

/** One language and view of the snapshot. */
export interface StoryLookup {
  byUuid(uuid: string): Story | undefined;
  byId(id: number): Story | undefined;
  /**
   * The story as a link shows it (name, slug, path, ...), when `byUuid` gives
   * a stand-in that carries only what embedding needs (see the compiler's
   * relation targets). Without it: the story `byUuid` gives.
   */
  linkRecord?(story: Story): Story;
  /** Folders, for links that point at a folder (optional: without it such links count as missing). */
  folderByUuid?(uuid: string): Folder | undefined;
  /**
   * The URL path of a story or folder for links (e.g. '/' + full_slug without
   * trailing slash; the caller decides). Used for a rich-text link's `href`,
   * the `url` of `url` links and the `real_path` of `link` links. Without it:
   * '/' + full_slug, the defined real path or the full slug, as the API does.
   */
  pathOf?(target: LinkableRecord): string;
}

/** A reference whose target is not in the snapshot. */
export interface MissingTarget {
  /** Where: the content type, then the path inside content (`page.body[2].featured`, `article.tags[1]`). */
  field: string;
  /** The reference as written (a uuid, or a numeric id as a string). */
  uuid: string;
}

export interface ResolveResult {
  /** A new object; unchanged subtrees are shared with the input, which is never written to. */
  story: Story;
  /**
   * Uuids of every story or folder the output embeds or points at, at every
   * level of the resolution, missing targets included (they change the output
   * once they appear). Sorted, unique. Drives invalidation.
   */
  references: string[];
  /** References of this story's own content whose target is not in the snapshot (kept as written). */
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
