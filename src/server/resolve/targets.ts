/**
 * Finding what a reference points to, and the shapes a resolved link takes.
 */
import type { LinkObject, LinkUrl, Story } from '../../api/index.js';
import type { Folder } from '../../snapshot/index.js';
import type { JsonObject } from './scan.js';
import type { ResolveSource } from './types.js';

const NUMERIC_ID = /^\d{1,15}$/;

/**
 * The story a relation value names: a uuid string, a numeric id or a numeric
 * string. Anything else (objects, empty strings, unsafe numbers) names nothing.
 */
export function relatedStory(ref: unknown, source: ResolveSource): Story | undefined {
  if (typeof ref === 'string') {
    if (ref === '') return undefined;
    return NUMERIC_ID.test(ref) ? source.storyById(Number(ref)) : source.storyByUuid(ref);
  }
  if (typeof ref === 'number' && Number.isSafeInteger(ref)) return source.storyById(ref);
  return undefined;
}

/** A link target: stories and folders can both be linked to. */
export type LinkTarget = { readonly kind: 'story'; readonly story: Story } | { readonly kind: 'folder'; readonly folder: Folder };

export function linkTarget(uuid: string, source: ResolveSource): LinkTarget | undefined {
  const story = source.storyByUuid(uuid);
  if (story) return { kind: 'story', story };
  const folder = source.folderByUuid(uuid);
  return folder ? { kind: 'folder', folder } : undefined;
}

function targetObject(target: LinkTarget): Story | Folder {
  return target.kind === 'story' ? target.story : target.folder;
}

export function targetUuid(target: LinkTarget): string {
  return targetObject(target).uuid;
}

/** The target's current full slug: what a multilink's `cached_url` should say. */
export function targetFullSlug(target: LinkTarget): string {
  return targetObject(target).full_slug;
}

/**
 * The real path set for navigation (`path` of the story), when one is defined.
 * The contract: `url` "is computed and returns the real path when one is
 * defined for navigation". Without one, `url` is the full slug.
 */
function definedRealPath(target: LinkTarget): string | undefined {
  const path = (targetObject(target) as Record<string, unknown>).path;
  return typeof path === 'string' && path !== '' ? path : undefined;
}

/**
 * `resolve_links=story`: the target story as stored (no nested resolution).
 * A folder is delivered as what it is, marked `is_folder: true`.
 */
export function storyLink(target: LinkTarget): JsonObject {
  return target.kind === 'story' ? target.story : { ...target.folder, is_folder: true };
}

/** `resolve_links=url`: `{id, uuid, name, slug, full_slug, url}`. */
export function urlLink(target: LinkTarget): LinkUrl {
  const t = targetObject(target);
  return {
    id: t.id,
    uuid: t.uuid,
    name: t.name,
    slug: t.slug,
    full_slug: t.full_slug,
    url: definedRealPath(target) ?? t.full_slug,
  };
}

/**
 * `resolve_links=link` (version 2): the routing properties, as the links
 * endpoint gives them. `real_path` is the defined real path, else
 * `/` + full_slug; `translated_slugs` appears when the target has some.
 */
export function routingLink(target: LinkTarget): LinkObject {
  const t = targetObject(target);
  const isStory = target.kind === 'story';
  const realPath = definedRealPath(target);
  const link: LinkObject = {
    id: t.id,
    uuid: t.uuid,
    slug: t.slug,
    full_slug: t.full_slug,
    name: t.name,
    is_folder: !isStory,
    parent_id: t.parent_id,
    published: true,
    position: t.position,
    is_startpage: isStory ? target.story.is_startpage : false,
    real_path: realPath === undefined ? `/${t.full_slug}` : realPath.startsWith('/') ? realPath : `/${realPath}`,
  };
  const translated = t.translated_slugs;
  if (Array.isArray(translated) && translated.length > 0) link.translated_slugs = translated;
  return link;
}
