/**
 * Back references: which stories point at a story.
 */
import type { Story } from '../../api/index.js';
import { scanStory } from '../../resolve/index.js';
import { scanOptions } from './resolver.js';
import type { ResolveConfig } from './types.js';

export interface BacklinksOptions {
  /** Count internal links (multilinks and rich-text story links) as references; default true. */
  links?: boolean;
}

/**
 * For each story uuid, the uuids of stories that reference it, sorted. The
 * stories given are the whole set: relations are found as resolution finds
 * them (the listed `component.field` entries and, with `detectRelations`, uuid
 * fields naming a story of the set); internal links count too, whether or not
 * `config.links` resolves them, unless `options.links` is false. Only direct references count (a story that
 * references itself is its own backlink). Every story of the set is a key, in
 * uuid order; references to stories outside the set are left out.
 */
export function backlinks(
  stories: Iterable<Story>,
  config: ResolveConfig,
  options: BacklinksOptions = {},
): Map<string, string[]> {
  const list = [...stories];
  const byUuid = new Map<string, Story>();
  const byId = new Map<number, Story>();
  for (const story of list) {
    if (!byUuid.has(story.uuid)) byUuid.set(story.uuid, story);
    if (!byId.has(story.id)) byId.set(story.id, story);
  }
  const lookup = { byUuid: (uuid: string) => byUuid.get(uuid), byId: (id: number) => byId.get(id) };
  const scanConfig = scanOptions(config, lookup, options.links !== false);

  const referrers = new Map<string, Set<string>>();
  for (const uuid of byUuid.keys()) referrers.set(uuid, new Set());
  for (const story of list) {
    const scan = scanStory(story, scanConfig);
    for (const target of scan.relationTargets) referrers.get(target.uuid)?.add(story.uuid);
    for (const target of scan.linkTargets) referrers.get(target.uuid)?.add(story.uuid);
  }

  const result = new Map<string, string[]>();
  for (const uuid of [...referrers.keys()].sort()) result.set(uuid, [...referrers.get(uuid)!].sort());
  return result;
}
