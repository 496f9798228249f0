/**
 * The shapes a resolved link takes, as the API gives them, and what differs
 * between those who resolve (the service and the compiler) as explicit policy.
 */
import type { LinkObject, LinkUrl, Story } from '../api/index.js';
import type { Folder } from '../snapshot/index.js';
import type { JsonObject } from './json.js';
import type { LinkTarget } from './references.js';

/** How internal links (multilinks and rich-text story link marks) are resolved. */
export type LinksMode = 'url' | 'story' | 'link';

/** A folder or a story: what an internal link can point at. */
export type LinkableRecord = Story | Folder;

export interface LinkPolicy {
  /**
   * The story as a link shows it (name, slug, path, ...), when the lookup
   * gives a stand-in that carries only what embedding needs. Default: the story.
   */
  linkRecord?(story: Story): Story;
  /**
   * The URL path of a target (a rich-text link's `href`, the `url` of `url`
   * links, the `real_path` of `link` links). Default, as the API: '/' +
   * full slug, the defined real path or the full slug.
   */
  pathOf?(target: LinkableRecord): string;
  /**
   * Whether a story target has a published version (`published` of `link`
   * links; a folder is `published: false`). Undefined, or no answer: its
   * `published` flag when it has one, else whether it has a publication date.
   */
  published?(story: Story): boolean | undefined;
  /**
   * A resolved link mark's `href`: `always` set to the target's path; or,
   * as the API does, refreshed only where it holds a `site-path` (one leading
   * `/`, as the editor writes it for story links), since an absolute URL, an
   * empty or a missing href was not derived from the target's slug.
   */
  href: 'always' | 'site-path';
}

/** The link shapes of one policy. */
export class LinkShapes {
  readonly #policy: LinkPolicy;

  constructor(policy: LinkPolicy) {
    this.#policy = policy;
  }

  /** What a link shows of its target. */
  #record(target: LinkTarget): LinkableRecord {
    if (target.kind === 'folder') return target.folder;
    return this.#policy.linkRecord ? this.#policy.linkRecord(target.story) : target.story;
  }

  /** The target's current full slug: what a multilink's `cached_url` says. */
  fullSlug(target: LinkTarget): string {
    return this.#record(target).full_slug;
  }

  /** A resolved link mark's `href`, given the one it has. */
  href(target: LinkTarget, current: unknown): unknown {
    if (this.#policy.href === 'site-path' && !isSitePath(current)) return current;
    const t = this.#record(target);
    return this.#policy.pathOf ? this.#policy.pathOf(t) : sitePath(t.full_slug);
  }

  /** `story` mode for a folder: the folder, marked as one (a story target is embedded itself). */
  folderStory(target: LinkTarget & { kind: 'folder' }): JsonObject {
    return { ...target.folder, is_folder: true };
  }

  /** `url` mode: `{id, uuid, name, slug, full_slug, url}`. */
  url(target: LinkTarget): LinkUrl {
    const t = this.#record(target);
    return {
      id: t.id,
      uuid: t.uuid,
      name: t.name,
      slug: t.slug,
      full_slug: t.full_slug,
      url: this.#policy.pathOf ? this.#policy.pathOf(t) : (definedRealPath(t) ?? t.full_slug),
    };
  }

  /**
   * `link` mode: the routing properties, as the links endpoint gives them: its `slug` is the
   * full slug (kept in `full_slug` too) and a folder, which is never published, says `false`.
   * `real_path` is the defined real path, else the full slug, as a site path (sitePath);
   * `translated_slugs` appears when the target has some.
   */
  routing(target: LinkTarget): LinkObject {
    const t = this.#record(target);
    const realPath = this.#policy.pathOf ? this.#policy.pathOf(t) : sitePath(definedRealPath(t) ?? t.full_slug);
    const link: LinkObject = {
      id: t.id,
      uuid: t.uuid,
      slug: t.full_slug,
      full_slug: t.full_slug,
      name: t.name,
      is_folder: target.kind === 'folder',
      parent_id: t.parent_id,
      published: target.kind === 'story' && this.#published(target.story, t as Story),
      position: t.position,
      is_startpage: target.kind === 'story' ? (t as Story).is_startpage : false,
      real_path: realPath,
    };
    const translated = t.translated_slugs;
    if (Array.isArray(translated) && translated.length > 0) link.translated_slugs = translated;
    return link;
  }

  #published(story: Story, shown: Story): boolean {
    const known = this.#policy.published?.(story);
    if (known !== undefined) return known;
    const fields = shown as unknown as Record<string, unknown>;
    if (typeof fields.published === 'boolean') return fields.published;
    return fields.published_at !== null && fields.published_at !== undefined;
  }
}

/**
 * The site path of a full slug (or a real path): `/` and the slug without the slashes it starts
 * with. The API's full slugs start with none; one that did (a space edited by hand, a hostile
 * source) would make `//host/...`, which a browser follows off the site (so would `/\host`, and
 * a tab or a line break between the two, which URL parsing drops).
 */
export function sitePath(slug: string): string {
  return `/${slug.replace(/^[/\\\t\n\r]+/, '')}`;
}

/** The real path set for navigation (`path`), when one is defined. */
function definedRealPath(t: LinkableRecord): string | undefined {
  const path = (t as Record<string, unknown>).path;
  return typeof path === 'string' && path !== '' ? path : undefined;
}

function isSitePath(href: unknown): boolean {
  return typeof href === 'string' && href.startsWith('/') && !href.startsWith('//');
}
