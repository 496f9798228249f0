/**
 * Relation and link resolution, the part the local service and the compiler
 * share: pure functions over stories as stored. What a reference is and what
 * it names (references), one walk that finds them and plans the copy (scan),
 * the copy built from the plan (plan), and the shapes of resolved links
 * (shapes). What differs between the two (the API's limits, depth,
 * `published`, href refresh) is the caller's policy.
 */
export { changedKeys, originalOf, setOwn, shallowCopy } from './json.js';
export type { JsonObject } from './json.js';
export { relationMatcher } from './references.js';
export type { LinkTarget, RelationMatcher, StoryLookup } from './references.js';
export { scanStory } from './scan.js';
export type { MissingTarget, Scan, ScanMemo, ScanOptions } from './scan.js';
export { applyPlan } from './plan.js';
export type { EditValues } from './plan.js';
export { LinkShapes, sitePath } from './shapes.js';
export type { LinkPolicy, LinksMode } from './shapes.js';
