/**
 * The shapes a resolved link takes, as the API gives them.
 */
import type { JsonObject } from './json.js';
import type { LinkTarget } from './scan.js';
import type { LinkableRecord, StoryLookup } from './types.js';

function record(target: LinkTarget): LinkableRecord {
  return target.kind === 'story' ? target.story : target.folder;
}

/** The target's current full slug: what a multilink's `cached_url` says. */
export function fullSlugOf(target: LinkTarget): string {
  return record(target).full_slug;
}

/** The real path set for navigation (`path`), when one is defined. */
function definedRealPath(target: LinkTarget): string | undefined {
  const path = (record(target) as Record<string, unknown>).path;
  return typeof path === 'string' && path !== '' ? path : undefined;
}

/** A rich-text link's `href`: the caller's path, else '/' + full slug. */
export function hrefOf(target: LinkTarget, lookup: StoryLookup): string {
  return lookup.pathOf ? lookup.pathOf(record(target)) : `/${fullSlugOf(target)}`;
}

/** `story` mode for a folder: the folder, marked as one. */
export function folderStory(target: LinkTarget & { kind: 'folder' }): JsonObject {
  return { ...target.folder, is_folder: true };
}

/** `url` mode: `{id, uuid, name, slug, full_slug, url}`. */
export function urlLink(target: LinkTarget, lookup: StoryLookup): JsonObject {
  const t = record(target);
  return {
    id: t.id,
    uuid: t.uuid,
    name: t.name,
    slug: t.slug,
    full_slug: t.full_slug,
    url: lookup.pathOf ? lookup.pathOf(t) : (definedRealPath(target) ?? t.full_slug),
  };
}

/** `link` mode: the routing properties, as the links endpoint gives them. */
export function routingLink(target: LinkTarget, lookup: StoryLookup): JsonObject {
  const t = record(target);
  const isStory = target.kind === 'story';
  let realPath: string;
  if (lookup.pathOf) realPath = lookup.pathOf(t);
  else {
    const defined = definedRealPath(target);
    realPath = defined === undefined ? `/${t.full_slug}` : defined.startsWith('/') ? defined : `/${defined}`;
  }
  const link: JsonObject = {
    id: t.id,
    uuid: t.uuid,
    slug: t.slug,
    full_slug: t.full_slug,
    name: t.name,
    is_folder: !isStory,
    parent_id: t.parent_id,
    published: isStory ? isPublished(target.story) : true,
    position: t.position,
    is_startpage: isStory ? target.story.is_startpage : false,
    real_path: realPath,
  };
  const translated = t.translated_slugs;
  if (Array.isArray(translated) && translated.length > 0) link.translated_slugs = translated;
  return link;
}

function isPublished(story: Record<string, unknown>): boolean {
  if (typeof story.published === 'boolean') return story.published;
  return story.published_at !== null && story.published_at !== undefined;
}
