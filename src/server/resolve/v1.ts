/**
 * Version 1: resolved relations and links are nested inside the referencing
 * fields of a copy of the story.
 */
import type { Story } from '../../api/index.js';
import { applyPlan, relationMatcher } from '../../resolve/index.js';
import { linkShaper, scanFor } from './policy.js';
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

  const scan = scanFor(story, source, { matcher, links: linksMode !== undefined });
  // The limits are per story: the first distinct targets in document order.
  const relations = firstUuids(scan.relationTargets, LIMITS.v1Relations);
  const links = firstUuids(scan.linkTargets, linksMode === 'story' ? LIMITS.linksStory : LIMITS.linksUrl);
  const { shapes, shape } = linkShaper(linksMode ?? 'url', source);
  const content = applyPlan(scan, story.content, {
    unresolved: 'keep',
    relation: (target) => (relations.has(target.uuid) ? target : undefined),
    link: (target) => (links.has(target.uuid) ? shape(target) : undefined),
    cachedUrl: (target) => shapes.fullSlug(target),
    href: (target, current) => shapes.href(target, current),
  }) as Story['content'];
  return { ...story, content };
}

function firstUuids(targets: ReadonlyArray<{ readonly uuid: string }>, limit: number): ReadonlySet<string> {
  return new Set(targets.slice(0, limit).map((t) => t.uuid));
}
