/**
 * Resolution of relations and links at compile time, and back references:
 * pure functions over stories of one language and view of a snapshot, on the
 * shared core (src/resolve) with the compiler's policy: no limits, any depth,
 * every link's href set from its target.
 */
export { createResolver } from './resolver.js';
export { isNumericId, isUuid } from '../../resolve/index.js';
export type { ScanMemo } from '../../resolve/index.js';
export { backlinks } from './backlinks.js';
export type { BacklinksOptions } from './backlinks.js';
export { missingReport } from './report.js';
export type {
  LinkableRecord,
  LinksMode,
  MissingTarget,
  ResolveConfig,
  ResolveResult,
  Resolver,
  StoryLookup,
} from './types.js';
