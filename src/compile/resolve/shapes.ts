/**
 * The shapes a resolved link takes, as the API gives them.
 */
import type { Story } from '../../api/index.js';
import type { JsonObject } from './json.js';
import type { LinkTarget } from './scan.js';
import type { LinkableRecord, StoryLookup } from './types.js';

/** What a link shows of its target. */
function record(target: LinkTarget, lookup: StoryLookup): LinkableRecord {
  if (target.kind === 'folder') return target.folder;
  return lookup.linkRecord ? lookup.linkRecord(target.story) : target.story;
}

/** The target's current full slug: what a multilink's `cached_url` says. */
export function fullSlugOf(target: LinkTarget, lookup: StoryLookup): string {
  return record(target, lookup).full_slug;
}

/** The real path set for navigation (`path`), when one is defined. */
function definedRealPath(t: LinkableRecord): string | undefined {
  const path = (t as Record<string, unknown>).path;
  return typeof path === 'string' && path !== '' ? path : undefined;
}

/** A rich-text link's `href`: the caller's path, else '/' + full slug. */
export function hrefOf(target: LinkTarget, lookup: StoryLookup): string {
  const t = record(target, lookup);
  return lookup.pathOf ? lookup.pathOf(t) : `/${t.full_slug}`;
}

/** `story` mode for a folder: the folder, marked as one. */
export function folderStory(target: LinkTarget & { kind: 'folder' }): JsonObject {
  return { ...target.folder, is_folder: true };
}

/** `url` mode: `{id, uuid, name, slug, full_slug, url}`. */
export function urlLink(target: LinkTarget, lookup: StoryLookup): JsonObject {
  const t = record(target, lookup);
  return {
    id: t.id,
    uuid: t.uuid,
    name: t.name,
    slug: t.slug,
    full_slug: t.full_slug,
    url: lookup.pathOf ? lookup.pathOf(t) : (definedRealPath(t) ?? t.full_slug),
  };
}

/** `link` mode: the routing properties, as the links endpoint gives them. */
export function routingLink(target: LinkTarget, lookup: StoryLookup): JsonObject {
  const t = record(target, lookup);
  const isStory = target.kind === 'story';
  let realPath: string;
  if (lookup.pathOf) realPath = lookup.pathOf(t);
  else {
    const defined = definedRealPath(t);
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
    published: isStory ? isPublished(t) : true,
    position: t.position,
    is_startpage: isStory ? (t as Story).is_startpage : false,
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
