/**
 * `label()` of content:datasources, which looks entries up by name (its cost in a large
 * datasource against a small one is measured by `npm run bench -- scale`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasourcesModule } from '../../src/compile/emit.js';
import { labelledDatasource as datasource } from '../helpers/scale-spaces.js';
import { removeTempDirs, tempDir } from '../sync/support.js';
import { importFresh } from './support.js';

afterAll(removeTempDirs);

type Label = (datasource: string, name: unknown, dimension?: string) => string | undefined;

describe('content:datasources label()', () => {
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
