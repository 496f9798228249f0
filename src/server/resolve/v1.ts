/**
 * Version 1: resolved relations and links are nested inside the referencing
 * fields of a copy of the story.
 */
import type { Story } from '../../api/index.js';
import { CopyOnWrite, setOwn } from './copy-on-write.js';
import { relationMatcher, scanContent, type JsonObject, type LinkSite, type RelationSite } from './scan.js';
import { linkTarget, relatedStory, storyLink, targetFullSlug, urlLink, type LinkTarget } from './targets.js';
import { LIMITS, type ResolveOptions, type ResolveSource } from './types.js';

/**
 * Returns a copy of the story with relations and links resolved inside its
 * content. The input is never written to; only the nodes on the way from the
 * content root to a changed node are copied, everything else is shared.
 *
 * Relations: the uuid (or numeric id) in a `component.field` value, or each one
 * in an array, is replaced by the related story as stored (no nested
 * resolution, so reference cycles cannot recur). At most 100 distinct stories
 * per story, in document order; references beyond that, and references whose
 * target cannot be found, stay as they are.
 *
 * Links (`story` or `url`; version 1 has no `link` mode, which is ignored):
 * - a multilink to a story or folder gets `story` (`story`: the target as
 *   stored; `url`: `{name, id, uuid, slug, full_slug, url}`) and a `cached_url`
 *   set to the target's current full slug;
 * - a rich-text link mark gets `attrs.story` the same way. Its `attrs.href` is
 *   refreshed to `/` + the current full slug only when it holds a cached
 *   site path (it starts with a single `/`, as the editor writes it for story
 *   links); an absolute URL, an empty or a missing href is kept, since it was
 *   not derived from the target's slug.
 * At most 50 (`story`) or 100 (`url`) distinct targets per story, in document
 * order; links beyond that stay as they are.
 */
export function resolveV1(story: Story, options: ResolveOptions, source: ResolveSource): Story {
  const matcher = relationMatcher(options.relations);
  const linksMode = options.links === 'story' || options.links === 'url' ? options.links : undefined;
  if (!matcher && !linksMode) return { ...story };

  const scan = scanContent(story.content, { relations: matcher, links: linksMode !== undefined });
  const cow = new CopyOnWrite();

  const relationBudget = new DistinctBudget(LIMITS.v1Relations);
  for (const site of scan.relations) resolveRelation(site, cow, relationBudget, source);

  if (linksMode) {
    const linkBudget = new DistinctBudget(linksMode === 'story' ? LIMITS.linksStory : LIMITS.linksUrl);
    const shape = linksMode === 'story' ? storyLink : urlLink;
    // One target object per uuid, shared by every link to it.
    const shaped = new Map<string, { target: LinkTarget; story: JsonObject } | undefined>();
    for (const site of scan.links) {
      let resolved = shaped.get(site.uuid);
      if (!shaped.has(site.uuid)) {
        const target = linkTarget(site.uuid, source);
        resolved = target && linkBudget.admit(site.uuid) ? { target, story: shape(target) } : undefined;
        shaped.set(site.uuid, resolved);
      }
      if (resolved) resolveLink(site, resolved.target, resolved.story, cow);
    }
  }

  return { ...story, content: cow.result(story.content) };
}

/** Admits up to `limit` distinct keys; a key already admitted is always admitted again. */
class DistinctBudget {
  readonly #admitted = new Set<string>();
  constructor(readonly limit: number) {}

  admit(key: string): boolean {
    if (this.#admitted.has(key)) return true;
    if (this.#admitted.size >= this.limit) return false;
    this.#admitted.add(key);
    return true;
  }
}

function resolveRelation(site: RelationSite, cow: CopyOnWrite, budget: DistinctBudget, source: ResolveSource): void {
  if (Array.isArray(site.value)) {
    // Items are replaced one by one in a copy of the array, so that changes
    // found inside other items of the same array are kept.
    const refs: readonly unknown[] = site.value;
    for (let index = 0; index < refs.length; index++) {
      const target = admitted(refs[index], budget, source);
      if (target && site.valueFrame) setOwn(cow.writable(site.valueFrame), index, target);
    }
    return;
  }
  const target = admitted(site.value, budget, source);
  if (target) setOwn(cow.writable(site.blok), site.field, target);
}

function admitted(ref: unknown, budget: DistinctBudget, source: ResolveSource): Story | undefined {
  const target = relatedStory(ref, source);
  return target && budget.admit(target.uuid) ? target : undefined;
}

function resolveLink(site: LinkSite, target: LinkTarget, story: JsonObject, cow: CopyOnWrite): void {
  const fullSlug = targetFullSlug(target);
  if (site.kind === 'multilink') {
    const link = cow.writable(site.frame);
    setOwn(link, 'story', story);
    setOwn(link, 'cached_url', fullSlug);
    return;
  }
  const mark = cow.writable(site.frame) as JsonObject;
  const attrs: JsonObject = { ...(mark.attrs as JsonObject) };
  attrs.story = story;
  if (isCachedSitePath(attrs.href)) attrs.href = `/${fullSlug}`;
  setOwn(mark, 'attrs', attrs);
}

function isCachedSitePath(href: unknown): boolean {
  return typeof href === 'string' && href.startsWith('/') && !href.startsWith('//');
}
