/**
 * Server-side resolution of `resolve_relations`, `resolve_links` and
 * `resolve_assets`: pure functions over stories as stored, on the shared core
 * (src/resolve) with the API's policy (its limits, `rel_uuids`, depth 1).
 *
 * - `resolveV2` collects the targets of a whole response into the top-level
 *   `rels`, `links`, `assets` (content is left as it is).
 * - `resolveV1` nests them inside a copy of one story.
 *
 * Both read their inputs only: stories are shared, cached objects.
 */
export { resolveV1 } from './v1.js';
export { resolveV2 } from './v2.js';
export type { ResolveOptions, ResolveSource } from './types.js';
