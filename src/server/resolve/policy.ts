/**
 * How the service resolves, on the shared core: as the API does. Targets are
 * embedded as stored (no nested resolution, so cycles cannot recur), a rich-text
 * link's `href` is refreshed only where it holds a site path, and a `link`
 * link says whether its target has a published version.
 */
import type { Story } from '../../api/index.js';
import { LinkShapes, scanStory, type LinkTarget, type RelationMatcher, type Scan } from '../../resolve/index.js';
import type { LinksMode, ResolveSource } from './types.js';

export function scanFor(
  story: Story,
  source: ResolveSource,
  wants: { matcher: RelationMatcher | undefined; links: boolean; assets?: boolean },
): Scan {
  return scanStory(story, {
    matcher: wants.matcher,
    detect: false,
    links: wants.links,
    assets: wants.assets === true,
    lookup: source,
  });
}

/** What a link to a target shows, by mode: one object per target, shared by every link to it. */
export function linkShaper(
  mode: LinksMode,
  source: ResolveSource,
): { shapes: LinkShapes; shape(target: LinkTarget): Record<string, unknown> } {
  const shapes = new LinkShapes({ ...(source.published ? { published: source.published } : {}), href: 'site-path' });
  const made = new Map<string, Record<string, unknown>>();
  const make = (target: LinkTarget): Record<string, unknown> => {
    if (mode === 'url') return shapes.url(target);
    if (mode === 'link') return shapes.routing(target);
    return target.kind === 'story' ? target.story : shapes.folderStory(target);
  };
  return {
    shapes,
    shape(target) {
      let shown = made.get(target.uuid);
      if (!shown) made.set(target.uuid, (shown = make(target)));
      return shown;
    },
  };
}
