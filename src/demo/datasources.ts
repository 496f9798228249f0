/**
 * Datasources of the demo space: key-value lists that option fields draw
 * their values from, some with per-language dimensions.
 */
import type { DatasourceRecord, DatasourceRecordEntry } from '../snapshot/index.js';
import type { Ids } from './structure.js';
import { COLORS, COUNTRIES, PRODUCT_CATEGORIES, SIZES } from './vocabulary.js';

function dimensions(ids: Ids): { id: number; entry_value: string; name: string }[] {
  return [
    { id: ids.next(), entry_value: 'de', name: 'German' },
    { id: ids.next(), entry_value: 'fr', name: 'French' },
  ];
}

function entry(
  ids: Ids,
  name: string,
  value: string,
  byDimension?: Record<string, string | undefined>,
): DatasourceRecordEntry {
  const out: DatasourceRecordEntry = { id: ids.next(), name, value };
  if (byDimension) {
    const values: Record<string, string> = {};
    for (const [dim, v] of Object.entries(byDimension)) if (v !== undefined) values[dim] = v;
    if (Object.keys(values).length) out.dimension_values = values;
  }
  return out;
}

/**
 * `colors` (dimensions de and fr, a few entries untranslated), `product-categories`
 * (no dimensions), `countries` (more entries than one default page) and `sizes`.
 */
export function buildDatasources(datasourceIds: Ids, dimensionIds: Ids, entryIds: Ids): DatasourceRecord[] {
  const colors: DatasourceRecord = {
    datasource: { id: datasourceIds.next(), name: 'Colors', slug: 'colors', dimensions: dimensions(dimensionIds) },
    entries: COLORS.map((c) => entry(entryIds, c.name, c.value, { de: c.de, fr: c.fr })),
  };
  const categories: DatasourceRecord = {
    datasource: { id: datasourceIds.next(), name: 'Product categories', slug: 'product-categories', dimensions: [] },
    entries: PRODUCT_CATEGORIES.map((c) => entry(entryIds, c.name, c.label.en)),
  };
  const countries: DatasourceRecord = {
    datasource: {
      id: datasourceIds.next(),
      name: 'Countries',
      slug: 'countries',
      dimensions: dimensions(dimensionIds),
    },
    entries: COUNTRIES.map(([code, en, de, fr], i) =>
      entry(entryIds, code, en, { de, fr: i % 11 === 10 ? undefined : fr }),
    ),
  };
  const sizes: DatasourceRecord = {
    datasource: { id: datasourceIds.next(), name: 'Sizes', slug: 'sizes', dimensions: [] },
    entries: SIZES.map((s) => entry(entryIds, s, s)),
  };
  return [colors, categories, countries, sizes];
}
