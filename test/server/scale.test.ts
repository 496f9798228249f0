/**
 * The control plane's work grows with what a request carries, not with its square: a change the
 * service takes in blocks every client of it until it is done. Work is compared in CPU time with
 * that of a request of the same size known to be linear, with a factor far from both what a
 * linear and a quadratic one give, so that a loaded machine cannot tip it either way.
 */
import { describe, expect, it } from 'vitest';
import { SpaceStore, type DatasourceInput } from '../../src/server/store.js';
import type { Folder, SpaceData, StoryRecord } from '../../src/snapshot/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';

/** The least CPU time, in microseconds, of a few runs of `run`. */
function cpuTime(run: () => void, runs = 3): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    run();
    const spent = process.cpuUsage(before);
    least = Math.min(least, spent.user + spent.system);
  }
  return least;
}

const DIMENSIONS = ['de', 'fr', 'es'].map((code) => ({ name: code, entry_value: code }));

function entries(n: number): DatasourceInput['entries'] {
  return Array.from({ length: n }, (_, i) => ({
    name: `entry-${i}`,
    value: `value ${i}`,
    dimension_values: { de: `de ${i}`, fr: `fr ${i}`, es: `es ${i}` },
  }));
}

/**
 * CPU time of putting `n` entries in three dimensions into a datasource that holds none of them,
 * and of putting them again into the one that then holds them all (each entry keeps its id).
 */
function creatingAndReplacing(n: number): { creating: number; replacing: number } {
  const input = { dimensions: DIMENSIONS, entries: entries(n) };
  let round = 0;
  const creating = cpuTime(() => new SpaceStore(fixtureSpace()).replaceDatasourceEntries(`new-${round++}`, input));
  const store = new SpaceStore(fixtureSpace());
  store.replaceDatasourceEntries('held', input);
  const replacing = cpuTime(() => store.replaceDatasourceEntries('held', input));
  return { creating, replacing };
}

const OUTER = 800_000;

/**
 * The fixture space and `n` stories, each in a folder of its own inside `outer/`, with a story
 * in `outer/` itself; `listed`: the folders as a space directory lists them, else as a synced
 * snapshot has them (none: the service derives them from the stories' paths).
 */
function foldersSpace(n: number, listed: boolean): SpaceData {
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

describe('a space with many folders', () => {
  it('places the folders of a synced snapshot in about the time a listing of them takes', () => {
    // Each derived folder's parent is looked up by path: a search of every folder for each made
    // loading quadratic in folders (20,000 folders: 5.5 s), here about forty times the listed time.
    const listed = foldersSpace(16_000, true);
    const derived = foldersSpace(16_000, false);
    const withListed = cpuTime(() => new SpaceStore(listed), 2);
    const withDerived = cpuTime(() => new SpaceStore(derived), 2);
    expect(withDerived).toBeLessThan(withListed * 10);
  });

  it('puts each derived folder in the folder of its path', () => {
    const store = new SpaceStore(foldersSpace(3, false));
    expect(store.folder(OUTER)?.parent_id).toBe(0);
    for (let i = 0; i < 3; i++)
      expect(store.folder(600_000 + i)).toMatchObject({ full_slug: `outer/f${i}`, parent_id: OUTER });
  });
});

describe('control plane at scale', () => {
  it('replaces the entries of a large datasource in about the time it takes to create them', () => {
    // Matching each entry to the one it replaces is a lookup: a search through the held entries
    // made the replacement quadratic (80,000 entries held the service up for 46 s), here about
    // fifty times the creation's time.
    const { creating, replacing } = creatingAndReplacing(16_000);
    expect(replacing).toBeLessThan(creating * 10);
  });

  it('keeps the ids of entries it replaces by name', () => {
    const store = new SpaceStore(fixtureSpace());
    store.replaceDatasourceEntries('kept', { dimensions: DIMENSIONS, entries: entries(3) });
    const before = store.datasourceEntries('kept', undefined).map((e) => [e.name, e.id]);
    store.replaceDatasourceEntries('kept', { dimensions: DIMENSIONS, entries: entries(4).reverse() });
    const after = new Map(store.datasourceEntries('kept', undefined).map((e) => [e.name, e.id]));
    for (const [name, id] of before) expect(after.get(name as string)).toBe(id);
    expect(after.size).toBe(4);
  });
});
