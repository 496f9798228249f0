/**
 * `label()` of content:datasources is called for every datasource value a page shows, on every
 * page of a build: one label costs about the same in a datasource of 50,000 entries as in one of
 * 50. Compared in CPU time between the two, with a factor far from what a search through the
 * entries gives (a thousand), so that a loaded machine cannot tip it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasourcesModule } from '../../src/compile/emit.js';
import type { DatasourceRecord } from '../../src/snapshot/index.js';
import { removeTempDirs, tempDir } from '../sync/support.js';
import { importFresh } from './support.js';

afterAll(removeTempDirs);

type Label = (datasource: string, name: unknown, dimension?: string) => string | undefined;

function datasource(id: number, slug: string, entries: number): DatasourceRecord {
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

describe('content:datasources label()', () => {
  it('costs about the same in a large datasource as in a small one', async () => {
    const dir = await tempDir('datasource-labels');
    const file = path.join(dir, 'datasources.js');
    await fs.writeFile(file, datasourcesModule([datasource(1, 'small', 50), datasource(2, 'large', 50_000)]));
    const { label } = await importFresh<{ label: Label }>(file);
    // The last entries: a search goes through every one before them.
    const labels = (slug: string, entries: number) => () => {
      for (let i = 0; i < 2_000; i++) label(slug, `entry-${entries - 1 - (i % 10)}`, 'de');
    };
    labels('small', 50)();
    labels('large', 50_000)();
    const small = cpuTime(labels('small', 50));
    const large = cpuTime(labels('large', 50_000));
    // A search of the entries for each label: about a thousand times as long.
    expect(large).toBeLessThan(Math.max(small, 1_000) * 20);
  });

  it('finds the first entry of a name, in its dimension or by its value', async () => {
    const dir = await tempDir('datasource-labels');
    const file = path.join(dir, 'datasources.js');
    const record = datasource(1, 'colors', 3);
    record.entries.push({ id: 99, name: 'entry-0', value: 'second', dimension_values: { de: 'zweite' } });
    await fs.writeFile(file, datasourcesModule([record]));
    const { label } = await importFresh<{ label: Label }>(file);
    expect(label('colors', 'entry-0', 'de')).toBe('Wert 0');
    expect(label('colors', 'entry-1')).toBe('value 1');
    expect(label('colors', 'entry-2', 'fr')).toBe('value 2');
    expect(label('colors', 'missing', 'de')).toBeUndefined();
    expect(label('colors', undefined)).toBeUndefined();
    expect(label('toString', 'entry-0')).toBeUndefined();
  });
});
