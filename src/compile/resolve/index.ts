/**
 * Resolution of relations and links at compile time, and back references:
 * pure functions over stories of one language and view of a snapshot.
 */
export { createResolver } from './resolver.js';
export { isNumericId, isUuid } from './scan.js';
export type { ScanMemo } from './scan.js';
export { backlinks } from './backlinks.js';
export type { BacklinksOptions } from './backlinks.js';
export { missingReport } from './report.js';
export type { LinkableRecord, LinksMode, MissingTarget, ResolveConfig, ResolveResult, Resolver, StoryLookup } from './types.js';
