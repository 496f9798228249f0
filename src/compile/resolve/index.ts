/**
 * Resolution of relations and links at compile time, and back references:
 * pure functions over stories of one language and view of a snapshot, on the
 * shared core (src/resolve) with the compiler's policy: no limits, any depth,
 * every link's href set from its target.
 */
export { createResolver } from './resolver.js';
export type { ScanMemo } from '../../resolve/index.js';
export { backlinks } from './backlinks.js';
export { missingReport } from './report.js';
export type { LinksMode, MissingTarget, ResolveResult, StoryLookup } from './types.js';
