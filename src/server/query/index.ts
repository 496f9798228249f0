/**
 * The story-list query engine: pure functions over plain data.
 *
 *   parseFilterQuery  `filter_query[...]` URL pairs -> FilterNode (or QueryError)
 *   matchesFilter     one FilterNode against one story's content
 *   selectStories     every filter of a list query, then sort_by / by_uuids_ordered
 *   excludeFields     excluding_fields on one story
 *
 * QueryError messages are written for the 422 body `{"error": message}`.
 */
export { QueryError } from './errors.js';
export { parseFilterQuery, splitFilterKey, type FilterNode } from './filter-parse.js';
export { matchesFilter } from './filter-match.js';
export { selectStories, type Candidate } from './select.js';
export { parseSortBy } from './sort.js';
export { excludeFields } from './fields.js';
