import type { Story } from '../../../src/api/index.js';
import type { ResolveSource } from '../../../src/server/resolve/index.js';
import type { Folder } from '../../../src/snapshot/index.js';

export { realdata } from '../../helpers/realdata.js';

let nextId = 1000;

/** A story with every required field; `content` defaults to an empty page. */
export function story(fields: Partial<Story> & { uuid: string }): Story {
  const id = fields.id ?? nextId++;
  const slug = fields.slug ?? `story-${id}`;
  return {
    id,
    name: `Story ${id}`,
    slug,
    full_slug: slug,
    created_at: '2024-01-01T00:00:00.000Z',
    published_at: '2024-01-01T00:00:00.000Z',
    first_published_at: '2024-01-01T00:00:00.000Z',
    lang: 'default',
    content: { component: 'page', _uid: `uid-${id}` },
    position: 0,
    is_startpage: false,
    parent_id: 0,
    group_id: `group-${id}`,
    alternates: [],
    tag_list: [],
    ...fields,
  };
}

export function folder(fields: Partial<Folder> & { uuid: string }): Folder {
  const id = fields.id ?? nextId++;
  const slug = fields.slug ?? `folder-${id}`;
  return { id, name: `Folder ${id}`, slug, full_slug: slug, parent_id: 0, position: 0, ...fields };
}

/** A source over a closed set; counts lookups so tests can see what was asked. */
export function sourceOf(
  stories: readonly Story[],
  folders: readonly Folder[] = [],
): ResolveSource & { lookups: number } {
  const byUuid = new Map(stories.map((s) => [s.uuid, s]));
  const byId = new Map(stories.map((s) => [s.id, s]));
  const foldersByUuid = new Map(folders.map((f) => [f.uuid, f]));
  const source = {
    lookups: 0,
    byUuid(uuid: string) {
      source.lookups++;
      return byUuid.get(uuid);
    },
    byId(id: number) {
      source.lookups++;
      return byId.get(id);
    },
    folderByUuid(uuid: string) {
      source.lookups++;
      return foldersByUuid.get(uuid);
    },
  };
  return source;
}

export { deepFreeze } from '../../helpers/freeze.js';

export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function storyLinkField(target: string, cached = 'old/path'): Record<string, unknown> {
  return { id: target, url: '', linktype: 'story', fieldtype: 'multilink', cached_url: cached };
}
