/**
 * Spaces and inputs large enough to show work that grows faster than they do: used by the tests
 * of what such work computes (at a small size) and by `npm run bench -- scale` (at a large one).
 */
import type { DatasourceInput } from '../../src/server/store.js';
import type { DatasourceRecord, Folder, SpaceData, StoryRecord } from '../../src/snapshot/index.js';
import { fixtureSpace } from './fixture-space.js';

export const DIMENSIONS = ['de', 'fr', 'es'].map((code) => ({ name: code, entry_value: code }));

/** `n` datasource entries, each with a value in the three DIMENSIONS. */
export function entries(n: number): DatasourceInput['entries'] {
  return Array.from({ length: n }, (_, i) => ({
    name: `entry-${i}`,
    value: `value ${i}`,
    dimension_values: { de: `de ${i}`, fr: `fr ${i}`, es: `es ${i}` },
  }));
}

/** The id of the folder `outer` of foldersSpace. */
export const OUTER = 800_000;

/**
 * The fixture space and `n` stories, each in a folder of its own inside `outer/`, with a story
 * in `outer/` itself; `listed`: the folders as a space directory lists them, else as a synced
 * snapshot has them (none: the service derives them from the stories' paths).
 */
export function foldersSpace(n: number, listed: boolean): SpaceData {
  const base = fixtureSpace();
  const proto = base.stories.find((s) => s.published && !s.published.story.is_startpage)!;
  const story = (id: number, parentId: number, fullSlug: string): StoryRecord => {
    const record = structuredClone(proto);
    Object.assign(record, { id, uuid: `uuid-${id}`, draft: null });
    const s = record.published!.story;
    Object.assign(s, {
      id,
      uuid: record.uuid,
      parent_id: parentId,
      full_slug: fullSlug,
      slug: fullSlug.split('/').pop(),
    });
    return record;
  };
  const stories: StoryRecord[] = [];
  const folders: Folder[] = [];
  const folder = (id: number, parentId: number, fullSlug: string): Folder => ({
    id,
    uuid: `folder-${id}`,
    name: fullSlug,
    slug: fullSlug.split('/').pop()!,
    full_slug: fullSlug,
    parent_id: parentId,
    position: 0,
  });
  if (listed) folders.push(folder(OUTER, 0, 'outer'));
  for (let i = 0; i < n; i++) {
    stories.push(story(900_000 + i, 600_000 + i, `outer/f${i}/page`));
    if (listed) folders.push(folder(600_000 + i, OUTER, `outer/f${i}`));
  }
  // Last: the folders' parent is the last folder a search for it would come to.
  stories.push(story(OUTER + 1, OUTER, 'outer/intro'));
  return { ...base, stories: [...base.stories, ...stories], folders: [...base.folders, ...folders] };
}

/** A datasource `slug` of `entries` entries (`entry-<i>`), each with a value in the dimension `de`. */
export function labelledDatasource(id: number, slug: string, entries: number): DatasourceRecord {
  return {
    datasource: { id, name: slug, slug, dimensions: [{ id: id + 1, name: 'de', entry_value: 'de' }] },
    entries: Array.from({ length: entries }, (_, i) => ({
      id: id * 100_000 + i,
      name: `entry-${i}`,
      value: `value ${i}`,
      dimension_values: { de: `Wert ${i}` },
    })),
  };
}
