/**
 * The control plane's work grows with what a request carries, not with its square: a change the
 * service takes in blocks every client of it until it is done. Work is compared in CPU time with
 * that of a request of the same size known to be linear, with a factor far from both what a
 * linear and a quadratic one give, so that a loaded machine cannot tip it either way.
 */
import { describe, expect, it } from 'vitest';
import { SpaceStore, type DatasourceInput } from '../../src/server/store.js';
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
