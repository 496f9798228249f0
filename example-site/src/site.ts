/**
 * The site's map: which URL each story has in each language, the folder tree
 * (start pages), tag pages and the language switcher. Built from the
 * metadata in `content:index`; no story body is loaded here.
 */
import { byLanguage, byUuid, entries, languages, type StoryEntry } from 'content:index';
import { tags } from 'content:tags';
import { PagesByUrl, pageUrl, urlSegment } from './page-paths.js';
import { type PlannedPage, planPages, type RefusedPage } from './page-plan.js';

export const DEFAULT_LANGUAGE = 'default';

/** The slug of the story served at the site root (`/`, `/de/`, ...). */
export const HOME_SLUG = 'home';

/** The `lang` attribute of a language of the space. */
export const htmlLang = (lang: string): string => (lang === DEFAULT_LANGUAGE ? 'en' : lang);

/** `/` for the default language, `/de/` for de. */
export const languageRoot = (lang: string): string => (lang === DEFAULT_LANGUAGE ? '/' : `/${lang}/`);

/**
 * What the per-page lookups need, computed once per index (a dev update brings a new `entries`
 * array): a page then costs map lookups, not scans of every entry (29,000 pages over 30,000 entries).
 */
interface SiteMap {
  homeId: number | undefined;
  /** Each story's entry in each of its languages, by story id. */
  variants: Map<number, Map<string, StoryEntry>>;
  /** The start page of each folder (path without the language prefix), by language. */
  starts: Map<string, Map<string, StoryEntry>>;
  /** The start pages of sub-folders and the other stories directly in a folder, by language and folder. */
  folders: Map<string, { folders: StoryEntry[]; stories: StoryEntry[] }>;
}

let siteMap: { of: readonly StoryEntry[]; map: SiteMap } | undefined;

function mapOf(): SiteMap {
  if (siteMap?.of === entries) return siteMap.map;
  const map: SiteMap = {
    homeId: entries.find((e) => e.lang === DEFAULT_LANGUAGE && e.full_slug === HOME_SLUG)?.id,
    variants: new Map(),
    starts: new Map(),
    folders: new Map(),
  };
  const folderOf = (lang: string, folder: string) => {
    const key = `${lang}\0${folder}`;
    return map.folders.get(key) ?? map.folders.set(key, { folders: [], stories: [] }).get(key)!;
  };
  for (const e of entries) {
    const variants = map.variants.get(e.id) ?? map.variants.set(e.id, new Map()).get(e.id)!;
    variants.set(e.lang, e);
    const folder = localFolder(e);
    if (e.is_startpage) {
      const starts = map.starts.get(e.lang) ?? map.starts.set(e.lang, new Map()).get(e.lang)!;
      starts.set(folder, e);
      folderOf(e.lang, parentFolder(folder)).folders.push(e);
    } else {
      folderOf(e.lang, folder).stories.push(e);
    }
  }
  for (const contents of map.folders.values()) {
    contents.folders.sort(byOrder);
    contents.stories.sort(byOrder);
  }
  siteMap = { of: entries, map };
  return map;
}

/** The URL a story's page has, written or not: its full slug as a folder path; the home story at the language's root. */
function storyPageUrl(entry: StoryEntry): string {
  return entry.id === mapOf().homeId ? languageRoot(entry.lang) : pageUrl(entry.path);
}

/** The URL a tag's page has, written or not. */
const tagPageUrl = (tag: string, lang: string): string => `${languageRoot(lang)}tags/${urlSegment(tag)}/`;

/**
 * The URL of a story's page in its language (each segment encoded: a `?` in a slug is part of its
 * page's path); undefined when the site has no page for it (refused, see page-plan.ts), so that no
 * link leads to another page or to none.
 */
export function urlOf(entry: StoryEntry): string | undefined {
  return planOf().stories.has(entry) ? storyPageUrl(entry) : undefined;
}

/** The URL of a story (by uuid) in a language, when it is published there and has a page. */
export function urlOfUuid(uuid: string, lang: string): string | undefined {
  const entry = byUuid(uuid, lang);
  return entry ? urlOf(entry) : undefined;
}

/** The URL of the home page in a language; undefined when the site has none (no home story published). */
export function homeUrl(lang: string): string | undefined {
  const { homeId, variants } = mapOf();
  const home = homeId === undefined ? undefined : variants.get(homeId)?.get(lang);
  return home && urlOf(home);
}

/** The URL of a tag's page in a language; undefined when the site has no page for it. */
export function tagUrl(tag: string, lang: string): string | undefined {
  return planOf().tags.has(`${lang}\0${tag}`) ? tagPageUrl(tag, lang) : undefined;
}

export type Route =
  | { kind: 'story'; url: string; lang: string; entry: StoryEntry }
  | { kind: 'tag'; url: string; lang: string; tag: string }
  | { kind: 'tags'; url: string; lang: string };

/** Where the not-found page is written (a static host serves it for any missing path). */
export const NOT_FOUND_URL = '/404.html';

/** Every page the site could have: each published story in each language, and the tag pages. */
function allRoutes(): Route[] {
  const out: Route[] = [];
  for (const lang of languages) {
    for (const entry of byLanguage(lang)) out.push({ kind: 'story', url: storyPageUrl(entry), lang, entry });
    out.push({ kind: 'tags', url: `${languageRoot(lang)}tags/`, lang });
    for (const tag of tags) out.push({ kind: 'tag', url: tagPageUrl(tag.name, lang), lang, tag: tag.name });
  }
  return out;
}

/** What a route's page is, for messages. */
export function describeRoute(route: Route): string {
  const lang = route.lang === DEFAULT_LANGUAGE ? '' : ` (${route.lang})`;
  if (route.kind === 'story')
    return `${route.entry.id === mapOf().homeId ? 'home ' : ''}story ${route.entry.id}${lang}`;
  return route.kind === 'tag' ? `tag ${JSON.stringify(route.tag)}${lang}` : `the tags index${lang}`;
}

/**
 * Who gets a page whose file two routes name: the not-found page, then each language's home, the
 * tags indexes and the tag pages (the site's own pages), then the other stories by id (each in the
 * order of its languages): never which worker writes last.
 */
function inPriority(all: Route[]): Array<PlannedPage<Route | undefined>> {
  const homeId = mapOf().homeId;
  const rank = (r: Route): number => (r.kind === 'story' ? (r.entry.id === homeId ? 0 : 3) : r.kind === 'tags' ? 1 : 2);
  const ranked = [...all].sort(
    (a, b) => rank(a) - rank(b) || (a.kind === 'story' && b.kind === 'story' ? a.entry.id - b.entry.id : 0),
  );
  const notFound = { url: NOT_FOUND_URL, what: 'the not-found page', page: undefined };
  return [notFound, ...ranked.map((route) => ({ url: route.url, what: describeRoute(route), page: route }))];
}

interface RoutePlan {
  routes: Route[];
  refused: RefusedPage[];
  byUrl: PagesByUrl<Route>;
  /** The story entries that have a page. */
  stories: Set<StoryEntry>;
  /** The tags that have a page, as `<lang>\0<tag>`. */
  tags: Set<string>;
}

let routePlan: { of: [readonly StoryEntry[], typeof tags]; plan: RoutePlan } | undefined;

/** The routes that get their page and those refused, computed once per index and tag list. */
function planOf(): RoutePlan {
  if (routePlan?.of[0] === entries && routePlan.of[1] === tags) return routePlan.plan;
  const all = allRoutes();
  const { pages, refused } = planPages(inPriority(all));
  const kept = new Set(pages.map((p) => p.page));
  const routes = all.filter((r) => kept.has(r));
  const plan = {
    routes,
    refused,
    byUrl: new PagesByUrl(routes),
    stories: new Set(routes.flatMap((r) => (r.kind === 'story' ? [r.entry] : []))),
    tags: new Set(routes.flatMap((r) => (r.kind === 'tag' ? [`${r.lang}\0${r.tag}`] : []))),
  };
  routePlan = { of: [entries, tags], plan };
  return plan;
}

/** Every page of the site: each published story in each language, and the tag pages, one per file. */
export const routes = (): Route[] => planOf().routes;

/** The routes refused a page because another page has its file (see page-plan.ts). */
export const refusedRoutes = (): RefusedPage[] => planOf().refused;

/** The route a URL path names (with or without its trailing slash), if any. */
export function findRoute(pathname: string): Route | undefined {
  return planOf().byUrl.find(pathname);
}

const byOrder = (a: StoryEntry, b: StoryEntry): number => a.position - b.position || a.name.localeCompare(b.name);

/** The folder path without the language prefix (`de/artikel/2025` -> `artikel/2025`). */
function localFolder(entry: StoryEntry): string {
  const prefix = entry.lang === DEFAULT_LANGUAGE ? '' : `${entry.lang}/`;
  return prefix && (entry.folder === entry.lang || entry.folder.startsWith(prefix))
    ? entry.folder.slice(prefix.length)
    : entry.folder;
}

const parentFolder = (folder: string): string => folder.split('/').slice(0, -1).join('/');

/** Start pages of the top-level folders: the main navigation. */
export function topNavigation(lang: string): StoryEntry[] {
  return mapOf().folders.get(`${lang}\0`)?.folders ?? [];
}

/** The start pages of the folders above a story, outermost first. */
export function breadcrumbs(entry: StoryEntry): StoryEntry[] {
  const starts = mapOf().starts.get(entry.lang) ?? new Map<string, StoryEntry>();
  const folder = localFolder(entry);
  const chain: StoryEntry[] = [];
  let current = entry.is_startpage ? parentFolder(folder) : folder;
  while (current) {
    const start = starts.get(current);
    if (start) chain.unshift(start);
    current = parentFolder(current);
  }
  return chain;
}

/** What a folder's start page lists: the start pages of its sub-folders and the stories in it. */
export function folderContents(start: StoryEntry): { folders: StoryEntry[]; stories: StoryEntry[] } {
  const contents = mapOf().folders.get(`${start.lang}\0${localFolder(start)}`);
  return {
    folders: contents?.folders.filter((e) => e.id !== start.id) ?? [],
    stories: contents?.stories ?? [],
  };
}

/** The same page in every language: for the language switcher. */
export function alternates(route: Route): Array<{ lang: string; url: string }> {
  return languages.flatMap((lang) => {
    const url = alternateUrl(route, lang);
    return url ? [{ lang, url }] : [];
  });
}

/** The URL of a route's page in another language, when it has one there. */
function alternateUrl(route: Route, lang: string): string | undefined {
  if (route.kind === 'tags') return `${languageRoot(lang)}tags/`;
  if (route.kind === 'tag') return tagUrl(route.tag, lang);
  const variant = mapOf().variants.get(route.entry.id)?.get(lang);
  return variant && urlOf(variant);
}

/** What a page needs besides its story: its language and how other stories are titled. */
export interface PageContext {
  lang: string;
  /** A story's title in the page's language (the delivered name is not translated). */
  title(entry: StoryEntry): string;
}

/** A story's title from its entry (the site's `entryFields`): no story needs loading for it. */
export const entryTitle = (entry: StoryEntry): string => entry.fields.title || entry.fields.name || entry.name;

export function pageContext(lang: string): PageContext {
  return { lang, title: entryTitle };
}

export { languages };
