/**
 * Server-side resolution of `resolve_relations`, `resolve_links` and
 * `resolve_assets`: pure functions over stories as stored.
 *
 * - `resolveV2` collects the targets of a whole response into the top-level
 *   `rels`, `links`, `assets` (content is left as it is).
 * - `resolveV1` nests them inside a copy of one story.
 *
 * Both read their inputs only: stories are shared, cached objects.
 */
export { resolveV1 } from './v1.js';
export { resolveV2 } from './v2.js';
export { relationMatcher, scanContent } from './scan.js';
export type { Frame, LinkSite, RelationMatcher, RelationSite, Scan, ScanWants } from './scan.js';
export { linkTarget, relatedStory, routingLink, storyLink, urlLink } from './targets.js';
export type { LinkTarget } from './targets.js';
export { LIMITS } from './types.js';
export type { LinksMode, OverflowUuids, ResolveOptions, ResolveSource, V2Extras } from './types.js';
