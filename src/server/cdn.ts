/**
 * Handlers of the Content Delivery API endpoints, versions 1 and 2. Each takes
 * a parsed request and the store and returns a Reply; the pipeline around
 * them (tokens, cache versions, CDN cache, rate limits) lives in app.ts.
 */
import type { z } from 'zod';
import {
  DatasourceEntriesQuery,
  DatasourcesQuery,
  PAGING,
  SingleStoryQuery,
  SpaceQuery,
  StoryListQuery,
  TagsQuery,
  isFilterQueryKey,
  resolveLinksV1,
  resolveLinksV2,
  SINGLE_STORY_PARAMS_V2,
  STORY_LIST_PARAMS_V2,
  type ApiVersion,
  type Story,
} from '../api/index.js';
import { DEFAULT_LANG, type Folder } from '../snapshot/index.js';
import { QueryError, excludeFields, parseFilterQuery, selectStories, type Candidate } from './query/index.js';
import { resolveV1, resolveV2, type ResolveOptions, type ResolveSource } from './resolve/index.js';
import { errorReply, notFound, reply, type Reply } from './respond.js';
import type { View } from '../api/index.js';
import type { Entry, Selection, SpaceStore } from './store.js';

export type Endpoint = 'stories' | 'story' | 'space' | 'datasources' | 'datasource_entries' | 'tags';

export interface CdnRequest {
  api: ApiVersion;
  endpoint: Endpoint;
  /** For `story`: the path after `stories/`, decoded. */
  path: string;
  params: URLSearchParams;
  /** Whether the token may read drafts. */
  preview: boolean;
}

/** Matches `/v1/cdn/...` and `/v2/cdn/...`, with or without a trailing slash. */
export function route(pathname: string): { api: ApiVersion; endpoint: Endpoint; path: string } | undefined {
  const m = /^\/(v1|v2)\/cdn\/(.*)$/.exec(pathname);
  if (!m) return undefined;
  const api = m[1] as ApiVersion;
  const rest = m[2]!;
  const bare = rest.replace(/\/$/, '');
  switch (bare) {
    case 'stories':
      return { api, endpoint: 'stories', path: '' };
    case 'spaces/me':
      return { api, endpoint: 'space', path: '' };
    case 'datasources':
      return { api, endpoint: 'datasources', path: '' };
    case 'datasource_entries':
      return { api, endpoint: 'datasource_entries', path: '' };
    case 'tags':
      return { api, endpoint: 'tags', path: '' };
  }
  if (rest.startsWith('stories/')) {
    let path: string;
    try {
      path = decodeURIComponent(rest.slice('stories/'.length));
    } catch {
      return undefined;
    }
    return { api, endpoint: 'story', path };
  }
  return undefined;
}

/** Endpoints whose v2 published answers are tied to a cache version (`cv` in body, 301 without it). */
export function carriesCv(endpoint: Endpoint): boolean {
  return (
    endpoint === 'stories' || endpoint === 'story' || endpoint === 'datasources' || endpoint === 'datasource_entries'
  );
}

/** The view a request asks for (endpoints without a view read the published one). */
/** The endpoints the contract gives `version`; elsewhere it is a parameter they do not take (clients send it to all). */
export const takesVersion = (endpoint: Endpoint): boolean =>
  endpoint === 'stories' || endpoint === 'story' || endpoint === 'tags';

export function requestedView(req: Pick<CdnRequest, 'endpoint' | 'params'>): View {
  if (takesVersion(req.endpoint)) {
    return req.params.get('version') === 'draft' ? 'draft' : 'published';
  }
  return 'published';
}

/** v2 stories endpoints refuse parameters they do not take. */
export function disallowedParams(req: CdnRequest): string[] {
  if (req.api !== 'v2' || (req.endpoint !== 'stories' && req.endpoint !== 'story')) return [];
  const allowed = req.endpoint === 'stories' ? STORY_LIST_PARAMS_V2 : SINGLE_STORY_PARAMS_V2;
  const bad = new Set<string>();
  for (const key of req.params.keys()) {
    if (allowed.has(key)) continue;
    if (req.endpoint === 'stories' && isFilterQueryKey(key)) continue;
    bad.add(key);
  }
  return [...bad];
}

export class BadRequest extends Error {}

/** Parses the typed parameters of a request; unknown ones are left out (v1 ignores them). */
export function parseParams<T extends z.ZodObject>(schema: T, params: URLSearchParams): z.output<T> {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = params.get(key);
    if (value !== null) raw[key] = value;
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = issue.path.join('.');
    throw new BadRequest(issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`);
  }
  return result.data;
}

function paging(page: number | undefined, perPage: number | undefined, max: number): { page: number; perPage: number } {
  return { page: page ?? 1, perPage: Math.min(perPage ?? PAGING.defaultPerPage, max) };
}

function pageOf<T>(items: readonly T[], page: number, perPage: number): T[] {
  const start = (page - 1) * perPage;
  return start >= items.length ? [] : items.slice(start, start + perPage);
}

function listHeaders(total: number, perPage: number): Record<string, string> {
  return { total: String(total), 'per-page': String(perPage) };
}

/**
 * The language a story request reads and the path left after a language
 * prefix. v1 (and v2, as a convenience) take a language code as the first
 * path segment; `[default]/` addresses the default language explicitly; v2's
 * `language` parameter selects it otherwise.
 */
function splitLanguage(
  store: SpaceStore,
  path: string,
  languageParam: string | undefined,
): { lang: string; rest: string; prefixed: boolean } {
  if (path.startsWith('[default]/'))
    return { lang: DEFAULT_LANG, rest: path.slice('[default]/'.length), prefixed: true };
  const slash = path.indexOf('/');
  const first = slash === -1 ? path : path.slice(0, slash);
  if (store.isLanguage(first)) return { lang: first, rest: slash === -1 ? '' : path.slice(slash + 1), prefixed: true };
  const lang = languageParam && store.isLanguage(languageParam) ? languageParam : DEFAULT_LANG;
  return { lang, rest: path, prefixed: false };
}

function resolveOptions(
  api: ApiVersion,
  q: {
    resolve_relations?: string[] | undefined;
    resolve_links?: string | undefined;
    resolve_assets?: boolean | undefined;
  },
): ResolveOptions {
  let links: ResolveOptions['links'];
  if (q.resolve_links !== undefined && q.resolve_links !== '') {
    const parsed = (api === 'v1' ? resolveLinksV1 : resolveLinksV2).safeParse(q.resolve_links);
    if (!parsed.success) throw new BadRequest(parsed.error.issues[0]!.message);
    links = parsed.data;
  }
  // Above the limits, rel_uuids/link_uuids list every referenced uuid (the real
  // service sends them "instead"; the official client replaces rels with them).
  return {
    relations: q.resolve_relations ?? [],
    ...(links ? { links } : {}),
    assets: api === 'v2' && Boolean(q.resolve_assets),
    overflowUuids: 'all',
  };
}

function sourceFor(store: SpaceStore, sel: Selection): ResolveSource {
  return {
    byUuid: (uuid) => store.byUuid(sel, uuid)?.story,
    byId: (id) => store.byId(sel, id)?.story,
    folderByUuid: (uuid) => folderIn(store.folderByUuid(uuid), sel.lang),
    // Whether the target has a published version: in the draft view, a draft-only target is not published.
    published: (story) => {
      const entry = store.byUuid(sel, story.uuid);
      return entry ? Boolean(entry.record.published) : undefined;
    },
  };
}

/**
 * A folder as links show it in a language: under `<lang>/` and its translated path, as every story
 * of that language is (see materialize), so that a link to a folder and links to its stories agree.
 */
function folderIn(folder: Folder | undefined, lang: string): Folder | undefined {
  if (!folder || lang === DEFAULT_LANG) return folder;
  const translated = folder.translated_slugs?.find((t) => t.lang === lang)?.path;
  return { ...folder, full_slug: `${lang}/${translated ?? folder.full_slug}` };
}

function needsResolution(o: ResolveOptions): boolean {
  return o.relations.length > 0 || o.links !== undefined || Boolean(o.assets);
}

function dropStoryFields(story: Story, fields: readonly string[] | undefined): Story {
  if (!fields || fields.length === 0) return story;
  const copy: Record<string, unknown> = { ...story };
  for (const f of fields) if (f !== 'id' && f !== 'uuid' && f !== 'content') delete copy[f];
  return copy as Story;
}

const candidateCache = new WeakMap<readonly Entry[], { v1: Candidate[]; v2: Candidate[] }>();

/** Listing candidates in space order. v1 matches paths as delivered (with the
 * language prefix); v2 matches the default-language path. */
function candidates(store: SpaceStore, sel: Selection, api: ApiVersion): Candidate[] {
  const entries = store.entries(sel);
  let cached = candidateCache.get(entries);
  if (!cached) {
    const v1: Candidate[] = [];
    const v2: Candidate[] = [];
    for (const e of entries) {
      const workflowStageId = e.record.workflow_stage_id ?? null;
      const updatedAt = e.record.updated_at ?? null;
      // Object literals of one shape keep the query engine's loops monomorphic.
      v1.push({ story: e.story, matchSlug: e.story.full_slug, workflowStageId, updatedAt });
      v2.push({ story: e.story, matchSlug: store.defaultSlugOf(e, sel), workflowStageId, updatedAt });
    }
    cached = { v1, v2 };
    candidateCache.set(entries, cached);
  }
  return cached[api];
}

/** Parameters version 2 added (the contract's Versioning): version 1 ignores them, as it ignores any it does not know. */
const ADDED_IN_V2 = ['content_type', 'level', 'by_ids', 'resolve_assets'];

/** The request's parameters its API version reads. */
function paramsOf(req: CdnRequest): URLSearchParams {
  if (req.api === 'v2') return req.params;
  const params = new URLSearchParams(req.params);
  for (const key of ADDED_IN_V2) params.delete(key);
  return params;
}

function listStories(store: SpaceStore, req: CdnRequest): Reply {
  const q = parseParams(StoryListQuery, paramsOf(req));
  const filterEntries: Array<[string, string]> = [];
  for (const [k, v] of req.params) if (isFilterQueryKey(k)) filterEntries.push([k, v]);
  const filter = parseFilterQuery(filterEntries);
  const options = resolveOptions(req.api, q);

  let lang = req.api === 'v2' && q.language && store.isLanguage(q.language) ? q.language : DEFAULT_LANG;
  // `starts_with=de/*` (the contract's way to pick a language with by_uuids): a
  // trailing `*` adds nothing to a prefix match.
  let query = q.starts_with?.endsWith('*') ? { ...q, starts_with: q.starts_with.replace(/\*+$/, '') } : q;
  if (query.starts_with !== undefined) {
    const split = splitLanguage(store, query.starts_with, undefined);
    if (split.prefixed) {
      lang = split.lang;
      // v1 paths of a variant carry the prefix; v2 matches the default path.
      if (req.api === 'v2' || split.lang === DEFAULT_LANG) query = { ...query, starts_with: split.rest };
    }
  }
  const sel: Selection = { view: requestedView(req), lang, fallbackLang: q.fallback_lang, release: q.from_release };
  const selected = selectStories(candidates(store, sel, req.api), query, filter);
  const { page, perPage } = paging(q.page, q.per_page, PAGING.maxStoriesPerPage);
  let stories = pageOf(selected, page, perPage).map((c) => c.story);
  if (q.excluding_fields?.length) stories = stories.map((s) => excludeFields(s, q.excluding_fields!));
  const headers = listHeaders(selected.length, perPage);
  if (req.api === 'v1') {
    if (needsResolution(options)) {
      const source = sourceFor(store, sel);
      stories = stories.map((s) => resolveV1(s, options, source));
    }
    return reply(200, { stories: stories.map((s) => dropStoryFields(s, q.excluding_story_fields)) }, headers);
  }
  const extras = needsResolution(options)
    ? resolveV2(stories, options, sourceFor(store, sel))
    : { rels: [], links: [] };
  return reply(
    200,
    { stories: stories.map((s) => dropStoryFields(s, q.excluding_story_fields)), cv: store.space.version, ...extras },
    headers,
  );
}

function singleStory(store: SpaceStore, req: CdnRequest): Reply {
  const q = parseParams(SingleStoryQuery, paramsOf(req));
  const options = resolveOptions(req.api, q);
  const view = requestedView(req);
  const languageParam = q.language;
  let entry: Entry | undefined;
  let sel: Selection;
  if (q.find_by === 'uuid') {
    const lang = languageParam && store.isLanguage(languageParam) ? languageParam : DEFAULT_LANG;
    sel = { view, lang, fallbackLang: q.fallback_lang, release: q.from_release };
    entry = store.byUuid(sel, req.path);
  } else {
    // v1: `language` localizes id paths only; a slug path carries its language as a prefix.
    const pathLanguage = req.api === 'v1' && !/^\d{1,15}$/.test(req.path) ? undefined : languageParam;
    let split = splitLanguage(store, req.path, pathLanguage);
    if (req.api === 'v2' && split.prefixed && !req.path.startsWith('[default]/')) {
      // v2: the path identifies the story; a leading language code is only a
      // fallback, so a root folder named like a language code stays reachable.
      const lang = languageParam && store.isLanguage(languageParam) ? languageParam : DEFAULT_LANG;
      const plain: Selection = { view, lang, fallbackLang: q.fallback_lang, release: q.from_release };
      if (store.bySlug(plain, req.path)) split = { lang, rest: req.path, prefixed: false };
    }
    sel = { view, lang: split.lang, fallbackLang: q.fallback_lang, release: q.from_release };
    if (/^\d{1,15}$/.test(split.rest)) entry = store.byId(sel, Number(split.rest));
    if (!entry) {
      const slug = split.prefixed && split.lang !== DEFAULT_LANG ? `${split.lang}/${split.rest}` : split.rest;
      entry = store.bySlug(sel, slug) ?? store.bySlug(sel, split.rest);
    }
  }
  if (!entry) return notFound();
  let story = entry.story;
  if (req.api === 'v1') {
    if (needsResolution(options)) story = resolveV1(story, options, sourceFor(store, sel));
    return reply(200, { story: dropStoryFields(story, q.excluding_story_fields) });
  }
  const extras = needsResolution(options)
    ? resolveV2([story], options, sourceFor(store, sel))
    : { rels: [], links: [] };
  return reply(200, { story: dropStoryFields(story, q.excluding_story_fields), cv: store.space.version, ...extras });
}

function space(store: SpaceStore, req: CdnRequest): Reply {
  parseParams(SpaceQuery, req.params);
  const body: Record<string, unknown> = { space: { ...store.space } };
  if (req.api === 'v2') body.cv = store.space.version;
  return reply(200, body);
}

function datasources(store: SpaceStore, req: CdnRequest): Reply {
  const q = parseParams(DatasourcesQuery, req.params);
  const all = store.datasources();
  const { page, perPage } = paging(q.page, q.per_page, PAGING.maxDatasourcesPerPage);
  const body: Record<string, unknown> = { datasources: pageOf(all, page, perPage) };
  if (req.api === 'v2') body.cv = store.space.version;
  return reply(200, body, listHeaders(all.length, perPage));
}

function datasourceEntries(store: SpaceStore, req: CdnRequest): Reply {
  const q = parseParams(DatasourceEntriesQuery, req.params);
  const all = store.datasourceEntries(q.datasource, q.dimension);
  const { page, perPage } = paging(q.page, q.per_page, PAGING.maxDatasourcesPerPage);
  const body: Record<string, unknown> = { datasource_entries: pageOf(all, page, perPage) };
  if (req.api === 'v2') body.cv = store.space.version;
  return reply(200, body, listHeaders(all.length, perPage));
}

function tags(store: SpaceStore, req: CdnRequest): Reply {
  const q = parseParams(TagsQuery, req.params);
  const list = store.tags(q.version ?? 'published', q.starts_with);
  // Tags are not paged: one page holds them all.
  return reply(200, { tags: list }, listHeaders(list.length, Math.max(list.length, PAGING.defaultPerPage)));
}

/** Answers a request that passed the pipeline. */
export function handleCdn(store: SpaceStore, req: CdnRequest): Reply {
  try {
    switch (req.endpoint) {
      case 'stories':
        return listStories(store, req);
      case 'story':
        return singleStory(store, req);
      case 'space':
        return space(store, req);
      case 'datasources':
        return datasources(store, req);
      case 'datasource_entries':
        return datasourceEntries(store, req);
      case 'tags':
        return tags(store, req);
    }
  } catch (err) {
    if (err instanceof BadRequest || err instanceof QueryError) return errorReply(422, err.message);
    throw err;
  }
}
