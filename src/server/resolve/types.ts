/**
 * What resolution takes: the parsed `resolve_*` parameters of one request and
 * lookups into the space as that request sees it.
 */
import type { Story } from '../../api/index.js';
import type { LinkPolicy, LinksMode, StoryLookup } from '../../resolve/index.js';

/** `resolve_links`. Version 1 knows `story` and `url`; `link` exists in version 2 only. */
export type { LinksMode };

/**
 * What to list in `rel_uuids` / `link_uuids` once a limit is exceeded.
 *
 * - `remaining` (the contract's wording): the first targets up to the limit are
 *   resolved, the uuids of the rest are listed.
 * - `all`: every target uuid is listed (the first ones are still resolved).
 *   storyblok-js-client fetches `rel_uuids` / `link_uuids` by uuid and then uses
 *   only what it fetched, dropping `rels` / `links`; with `remaining` it leaves
 *   the first targets unresolved. The real service answers "rel_uuids instead of
 *   rels" above the limit, which is what `all` reproduces for such clients.
 */
export type OverflowUuids = 'remaining' | 'all';

export interface ResolveOptions {
  /** Parsed `resolve_relations`: `component.field` entries (`['article.author', 'page.featured']`). */
  relations: readonly string[];
  /** `resolve_links`. */
  links?: LinksMode;
  /** `resolve_assets=1` (version 2 only). */
  assets?: boolean;
  /** Version 2: content of `rel_uuids` / `link_uuids` above a limit. Default `remaining`. */
  overflowUuids?: OverflowUuids;
}

/**
 * Lookups into the space, already in the request's view and language: they
 * give nothing for targets not visible in that view (e.g. unpublished). And
 * whether a target has a published version, for `link` links (in the draft
 * view, a draft-only target is `published: false`).
 */
export interface ResolveSource extends StoryLookup, Pick<LinkPolicy, 'published'> {}

/** Version 2: content keeps uuids; resolved targets go to top-level arrays. */
export interface V2Extras {
  rels: Story[];
  rel_uuids?: string[];
  links: Record<string, unknown>[];
  link_uuids?: string[];
  assets?: Record<string, unknown>[];
}

/** Limits of the contract ("Limits" and the `resolve_*` parameters). */
export const LIMITS = {
  /** Version 2: referenced stories resolved per request. */
  v2Relations: 50,
  /** Version 1: related stories resolved per story. */
  v1Relations: 100,
  /** `resolve_links=story`: targets per story (v1) or per request (v2). */
  linksStory: 50,
  /** `resolve_links=url` and `link`: targets per story (v1) or per request (v2). */
  linksUrl: 100,
} as const;
