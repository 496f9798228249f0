/**
 * The story-list pipeline: every filter parameter of a list query, then the
 * order. The caller has already chosen the view, the language and the slug to
 * match against, and handles paging and serialization.
 *
 * Choices where the contract is silent:
 * - Empty lists (`by_uuids=`, `with_tag=`, `content_type=`, ...) and blank
 *   `starts_with` / `search_term` mean "no such filter".
 * - starts_with is a plain prefix of the match slug; a trailing `*`
 *   (`starts_with=de/*`, as the contract suggests with by_uuids) is dropped.
 * - by_slugs / excluding_slugs: whole slugs, `*` matches any run of characters
 *   including `/`, the trailing slash matters (`blog/` is the start page).
 * - level=n: match slugs of exactly n `/`-separated segments; start pages
 *   (is_startpage, or a slug ending in `/`) never match.
 * - search_term is trimmed; see search.ts.
 * - *_gt / *_lt are strict, *_gte / *_lte inclusive; instants in UTC; a missing
 *   timestamp never matches.
 * - by_uuids_ordered orders the result by its sequence and takes precedence
 *   over sort_by. Stories whose uuid appears twice keep their first position.
 */
import type { Story, StoryListQuery } from '../../api/index.js';
import { QueryError, shown } from './errors.js';
import { compileFilter } from './filter-match.js';
import type { FilterNode } from './filter-parse.js';
import { compileSearch } from './search.js';
import { parseSortBy, sortByKeys, type SortKey } from './sort.js';
import { compileWildcard, parseInstant } from './values.js';

export interface Candidate {
  /** The story as it will be delivered (already in the right view and language). */
  story: Story;
  /** The path that starts_with, by_slugs, excluding_slugs and level match against. */
  matchSlug: string;
  /** For in_workflow_stages. */
  workflowStageId: number | null;
  /** ISO timestamp, for updated_at_gt/lt. */
  updatedAt: string | null;
}

type Test = (c: Candidate) => boolean;

/**
 * Applies every filter of `query` and `filter`, then sort_by or
 * by_uuids_ordered. Input order is kept where no order applies. Inputs are
 * not changed. Throws QueryError for values that cannot be understood.
 */
export function selectStories(
  candidates: readonly Candidate[],
  query: StoryListQuery,
  filter: FilterNode | null,
): readonly Candidate[] {
  // The page asked for is cut from the selection by the caller: all pages of one query share it.
  const { page: _page, per_page: _perPage, ...selecting } = query;
  const key = JSON.stringify([selecting, filter]);
  let made = selections.get(candidates);
  if (!made) {
    made = new Map();
    selections.set(candidates, made);
  }
  const known = made.get(key);
  if (known) {
    // Most recently used last, as the orders below are not: a client pages through one query at a time.
    made.delete(key);
    made.set(key, known);
    return known;
  }
  const selected = select(candidates, query, filter);
  if (made.size >= MAX_SELECTIONS_PER_LIST) made.delete(made.keys().next().value!);
  made.set(key, selected);
  return selected;
}

/**
 * The selections last made from a candidate list, by query without its page: a client paging
 * through a search or a filtered listing asked for the whole selection again for each page, so
 * reading all of one (search_term over 20,000 stories: 4 s for its 194 pages) was quadratic.
 */
const selections = new WeakMap<readonly Candidate[], Map<string, readonly Candidate[]>>();
const MAX_SELECTIONS_PER_LIST = 16;

function select(candidates: readonly Candidate[], query: StoryListQuery, filter: FilterNode | null): Candidate[] {
  const tests = compileTests(query, filter);
  const n = candidates.length;
  const mask = new Uint8Array(n);
  const selected: Candidate[] = [];
  const admit = (i: number): void => {
    const c = candidates[i]!;
    for (let t = 0; t < tests.length; t++) if (!tests[t]!(c)) return;
    mask[i] = 1;
    selected.push(c);
  };
  const named = namedPositions(candidates, query);
  if (named) for (const i of named) admit(i);
  else for (let i = 0; i < n; i++) admit(i);
  const ordered = nonEmpty(query.by_uuids_ordered);
  if (ordered) return orderByUuids(selected, ordered);
  if (query.sort_by !== undefined) {
    const keys = parseSortBy(query.sort_by);
    if (keys.length === 0) return selected;
    // Few matches: sort them. Many: walk the cached order of the whole list.
    if (selected.length * 8 < n) return sortByKeys(selected, storyOf, keys);
    const order = globalOrder(candidates, query.sort_by, keys);
    const out: Candidate[] = [];
    for (let i = 0; i < n; i++) {
      const index = order[i]!;
      if (mask[index]) out.push(candidates[index]!);
    }
    return out;
  }
  return selected;
}

/**
 * The order of a whole candidate list under one sort_by, like a database index:
 * computed once per list (lists are rebuilt, and so forgotten, whenever content
 * changes) and reused by every query that sorts that way. The sort is stable,
 * so walking it and keeping the selected candidates gives the same result as
 * sorting the selection.
 */
const orders = new WeakMap<readonly Candidate[], Map<string, Uint32Array>>();
const MAX_ORDERS_PER_LIST = 16;

function globalOrder(candidates: readonly Candidate[], sortBy: string, keys: readonly SortKey[]): Uint32Array {
  let byKey = orders.get(candidates);
  if (!byKey) {
    byKey = new Map();
    orders.set(candidates, byKey);
  }
  const known = byKey.get(sortBy);
  if (known) return known;
  const indexed = candidates.map((c, i) => ({ c, i }));
  const sorted = sortByKeys(indexed, (x) => x.c.story, keys);
  const order = Uint32Array.from(sorted, (x) => x.i);
  if (byKey.size >= MAX_ORDERS_PER_LIST) byKey.delete(byKey.keys().next().value!);
  byKey.set(sortBy, order);
  return order;
}

/** Where each id and uuid is in a candidate list (see `namedPositions`), made once per list. */
interface ListIndex {
  byUuid: Map<string, number[]>;
  byId: Map<number, number[]>;
}

const indexes = new WeakMap<readonly Candidate[], ListIndex>();

function indexOf(candidates: readonly Candidate[]): ListIndex {
  let index = indexes.get(candidates);
  if (!index) {
    index = { byUuid: new Map(), byId: new Map() };
    for (let i = 0; i < candidates.length; i++) {
      const { id, uuid } = candidates[i]!.story;
      (index.byUuid.get(uuid) ?? index.byUuid.set(uuid, []).get(uuid)!).push(i);
      (index.byId.get(id) ?? index.byId.set(id, []).get(id)!).push(i);
    }
    indexes.set(candidates, index);
  }
  return index;
}

/**
 * The positions, in input order, of the only candidates by_uuids, by_uuids_ordered or by_ids
 * can admit (the shortest of those lists: the tests check all of them); undefined when the query
 * has none. A lookup instead of a test of every candidate: a sync asks for its stories a page at
 * a time in every language by uuid, and at 10,000 stories the scans were most of the service's time.
 */
function namedPositions(candidates: readonly Candidate[], query: StoryListQuery): number[] | undefined {
  let shortest: number[] | undefined;
  const consider = <K>(keys: readonly K[] | null, where: Map<K, number[]>) => {
    if (!keys) return;
    const found: number[] = [];
    for (const key of keys) for (const i of where.get(key) ?? []) found.push(i);
    if (!shortest || found.length < shortest.length) shortest = found;
  };
  const uuids = nonEmpty(query.by_uuids);
  const ordered = nonEmpty(query.by_uuids_ordered);
  const ids = nonEmpty(query.by_ids);
  if (!uuids && !ordered && !ids) return undefined;
  const index = indexOf(candidates);
  consider(uuids, index.byUuid);
  consider(ordered, index.byUuid);
  consider(ids, index.byId);
  // Input order, each candidate once (a list may name a story twice).
  return [...new Set(shortest!)].sort((a, b) => a - b);
}

const storyOf = (c: Candidate): Story => c.story;

function nonEmpty<T>(list: readonly T[] | undefined): readonly T[] | null {
  return list && list.length > 0 ? list : null;
}

function compileTests(query: StoryListQuery, filter: FilterNode | null): Test[] {
  const tests: Test[] = [];

  const prefix = query.starts_with?.replace(/\*+$/, '');
  if (prefix) tests.push((c) => c.matchSlug.startsWith(prefix));

  const bySlugs = nonEmpty(query.by_slugs);
  if (bySlugs) {
    const match = slugMatcher(bySlugs, 'by_slugs');
    tests.push((c) => match(c.matchSlug));
  }
  const excludingSlugs = nonEmpty(query.excluding_slugs);
  if (excludingSlugs) {
    const match = slugMatcher(excludingSlugs, 'excluding_slugs');
    tests.push((c) => !match(c.matchSlug));
  }

  for (const list of [query.by_uuids, query.by_uuids_ordered]) {
    const uuids = nonEmpty(list);
    if (uuids) {
      const set = new Set(uuids);
      tests.push((c) => set.has(c.story.uuid));
    }
  }
  const byIds = nonEmpty(query.by_ids);
  if (byIds) {
    const set = new Set(byIds);
    tests.push((c) => set.has(c.story.id));
  }
  const excludingIds = nonEmpty(query.excluding_ids);
  if (excludingIds) {
    const set = new Set(excludingIds);
    tests.push((c) => !set.has(c.story.id));
  }

  if (query.content_type !== undefined) {
    const types = new Set(
      query.content_type
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    );
    if (types.size > 0) tests.push((c) => isRecord(c.story.content) && set(types, c.story.content.component));
  }

  if (query.level !== undefined) {
    const level = query.level;
    tests.push((c) => !c.story.is_startpage && !c.matchSlug.endsWith('/') && levelOf(c.matchSlug) === level);
  }
  if (query.is_startpage !== undefined) {
    const wanted = query.is_startpage;
    tests.push((c) => c.story.is_startpage === wanted);
  }

  const tags = nonEmpty(query.with_tag);
  if (tags) {
    const wanted = new Set(tags);
    tests.push((c) => {
      const list: unknown = c.story.tag_list;
      if (!Array.isArray(list)) return false;
      for (let i = 0; i < list.length; i++) if (set(wanted, list[i])) return true;
      return false;
    });
  }

  const stages = nonEmpty(query.in_workflow_stages);
  if (stages) {
    const wanted = new Set(stages);
    tests.push((c) => c.workflowStageId !== null && wanted.has(c.workflowStageId));
  }

  const term = query.search_term?.trim();
  if (term) {
    const matches = compileSearch(term);
    tests.push((c) => matches(c.story));
  }

  addDateTests(tests, query);

  if (filter) {
    const predicate = compileFilter(filter);
    tests.push((c) => isRecord(c.story.content) && predicate(c.story.content));
  }
  return tests;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function set<T>(values: ReadonlySet<T>, value: unknown): boolean {
  return values.has(value as T);
}

/** Wildcard patterns are tried one by one on every candidate: a few hundred is plenty, tens of thousands stall the service. */
const MAX_WILDCARDS = 100;

function slugMatcher(patterns: readonly string[], name: string): (slug: string) => boolean {
  const exact = new Set<string>();
  const wild = new Set<string>();
  for (const p of patterns) {
    if (p.includes('*')) wild.add(p);
    else exact.add(p);
  }
  if (wild.size > MAX_WILDCARDS)
    throw new QueryError(`${name}: more than ${MAX_WILDCARDS} different patterns with *; list full slugs instead`);
  const wildcards = [...wild].map(compileWildcard);
  return (slug) => {
    if (exact.has(slug)) return true;
    for (let i = 0; i < wildcards.length; i++) if (wildcards[i]!(slug)) return true;
    return false;
  };
}

/** Number of `/`-separated segments. */
function levelOf(slug: string): number {
  if (slug === '') return 0;
  let n = 1;
  for (let i = 0; i < slug.length; i++) if (slug.charCodeAt(i) === 47) n++;
  return n;
}

type Comparison = 'gt' | 'gte' | 'lt' | 'lte';

const DATE_PARAMS: readonly [keyof StoryListQuery, (c: Candidate) => string | null | undefined, Comparison][] = [
  ['first_published_at_gt', (c) => c.story.first_published_at, 'gt'],
  ['first_published_at_gte', (c) => c.story.first_published_at, 'gte'],
  ['first_published_at_lt', (c) => c.story.first_published_at, 'lt'],
  ['first_published_at_lte', (c) => c.story.first_published_at, 'lte'],
  ['published_at_gt', (c) => c.story.published_at, 'gt'],
  ['published_at_gte', (c) => c.story.published_at, 'gte'],
  ['published_at_lt', (c) => c.story.published_at, 'lt'],
  ['published_at_lte', (c) => c.story.published_at, 'lte'],
  ['updated_at_gt', (c) => c.updatedAt, 'gt'],
  ['updated_at_lt', (c) => c.updatedAt, 'lt'],
];

function addDateTests(tests: Test[], query: StoryListQuery): void {
  for (const [name, timestampOf, comparison] of DATE_PARAMS) {
    const raw = query[name];
    if (typeof raw !== 'string') continue;
    const limit = parseInstant(raw.trim());
    if (Number.isNaN(limit)) throw new QueryError(`${name}: ${shown(raw)} is not a date like 2024-01-31 13:45`);
    tests.push(compareTimestamp(timestampOf, comparison, limit));
  }
}

/**
 * Stored timestamps are nearly always canonical (`2024-02-08T16:26:24.425Z`),
 * whose text order is their chronological order: those compare as strings
 * against the limit in the same form; anything else is parsed.
 */
function compareTimestamp(
  timestampOf: (c: Candidate) => string | null | undefined,
  comparison: Comparison,
  limit: number,
): Test {
  const date = new Date(limit);
  const year = date.getUTCFullYear();
  const iso = year >= 0 && year <= 9999 ? date.toISOString() : null;
  const canonical = (t: string): boolean =>
    iso !== null && t.length === 24 && t.charCodeAt(10) === 84 && t.charCodeAt(23) === 90;
  /** Sign of timestamp minus limit; NaN when missing or unreadable. */
  const compare = (c: Candidate): number => {
    const t = timestampOf(c);
    if (typeof t !== 'string') return Number.NaN;
    if (canonical(t)) return t > iso! ? 1 : t < iso! ? -1 : 0;
    return parseInstant(t) - limit;
  };
  switch (comparison) {
    case 'gt':
      return (c) => compare(c) > 0;
    case 'gte':
      return (c) => compare(c) >= 0;
    case 'lt':
      return (c) => compare(c) < 0;
    case 'lte':
      return (c) => compare(c) <= 0;
  }
}

function orderByUuids(selected: readonly Candidate[], uuids: readonly string[]): Candidate[] {
  const rank = new Map<string, number>();
  for (const uuid of uuids) if (!rank.has(uuid)) rank.set(uuid, rank.size);
  const order = selected.map((_, i) => i);
  order.sort((a, b) => rank.get(selected[a]!.story.uuid)! - rank.get(selected[b]!.story.uuid)! || a - b);
  return order.map((i) => selected[i]!);
}
