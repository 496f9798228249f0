/**
 * Version 2: content keeps its uuids; the resolved targets of the whole
 * response go to top-level `rels`, `links` and `assets`.
 */
import type { Story } from '../../api/index.js';
import { relationMatcher, type JsonObject, type LinkTarget } from '../../resolve/index.js';
import { linkShaper, scanFor } from './policy.js';
import { LIMITS, type OverflowUuids, type ResolveOptions, type ResolveSource, type V2Extras } from './types.js';

/** Asset metadata keys copied into `assets`, in this order, when present. */
const ASSET_KEYS = [
  'id',
  'filename',
  'alt',
  'title',
  'copyright',
  'focus',
  'name',
  'source',
  'is_external_url',
  'meta_data',
] as const;

/**
 * Resolves the references of every story of one response.
 *
 * - `rels`: the related stories as stored (relations inside them are not
 *   resolved), unique by uuid, in the order first referenced; at most 50.
 * - `links`: link targets unique by uuid in the order first linked, shaped by
 *   the mode; at most 50 (`story`) or 100 (`url`, `link`).
 * - Beyond a limit, `rel_uuids` / `link_uuids` list uuids (see `OverflowUuids`);
 *   they are absent otherwise. Targets that cannot be found (not visible in
 *   this view) are neither resolved nor listed: content keeps their uuid.
 * - `assets` (only with `assets: true`): asset metadata unique by id, in the
 *   order first met.
 */
export function resolveV2(stories: readonly Story[], options: ResolveOptions, source: ResolveSource): V2Extras {
  const matcher = relationMatcher(options.relations);
  const linksMode = options.links;
  const wantAssets = options.assets === true;

  const related = new Map<string, Story>();
  const linked = new Map<string, LinkTarget>();
  const assets = new Map<number, JsonObject>();

  if (matcher || linksMode || wantAssets) {
    for (const story of stories) {
      const scan = scanFor(story, source, { matcher, links: linksMode !== undefined, assets: wantAssets });
      for (const target of scan.relationTargets) if (!related.has(target.uuid)) related.set(target.uuid, target);
      for (const target of scan.linkTargets) if (!linked.has(target.uuid)) linked.set(target.uuid, target);
      for (const asset of scan.assets) {
        const id = asset.id as number;
        if (!assets.has(id)) assets.set(id, assetMeta(asset));
      }
    }
  }

  const overflow = options.overflowUuids ?? 'remaining';
  const extras: V2Extras = { rels: [], links: [] };

  const rels = limited([...related.values()], LIMITS.v2Relations, overflow);
  extras.rels = rels.resolved;
  if (rels.uuids) extras.rel_uuids = rels.uuids;

  if (linksMode) {
    const { shape } = linkShaper(linksMode, source);
    const links = limited([...linked.values()], linksMode === 'story' ? LIMITS.linksStory : LIMITS.linksUrl, overflow);
    extras.links = links.resolved.map(shape);
    if (links.uuids) extras.link_uuids = links.uuids;
  }

  if (wantAssets) extras.assets = [...assets.values()];
  return extras;
}

function limited<T extends { readonly uuid: string }>(
  items: T[],
  limit: number,
  overflow: OverflowUuids,
): { resolved: T[]; uuids?: string[] } {
  if (items.length <= limit) return { resolved: items };
  const listed = overflow === 'all' ? items : items.slice(limit);
  return { resolved: items.slice(0, limit), uuids: listed.map((item) => item.uuid) };
}

function assetMeta(asset: JsonObject): JsonObject {
  const meta: JsonObject = {};
  for (const key of ASSET_KEYS) {
    if (Object.hasOwn(asset, key)) meta[key] = asset[key];
  }
  return meta;
}
