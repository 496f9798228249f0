/**
 * An entry value in a dimension its datasource does not have (a space directory edited by hand, a
 * dimension removed and its values left): not served, as sync reads only the datasource's own
 * dimensions, so the compiled module and the service agree.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PUBLIC } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from './support.js';

let service: RunningServer;

beforeAll(async () => {
  const space = fixtureSpace();
  // `colors` has the dimension de only.
  space.datasources[0]!.entries[0]!.dimension_values = { de: 'Rot', fr: 'Rouge' };
  service = await startServer({ space, publicToken: PUBLIC, rateLimit: false });
});
afterAll(async () => {
  await service?.close();
  await removeTempDirs();
});

/** The dimension values the service answers for `colors` in `dimension`. */
async function served(dimension: string): Promise<unknown[]> {
  const res = await fetch(
    `${service.url}/v1/cdn/datasource_entries?token=${PUBLIC}&datasource=colors&dimension=${dimension}`,
  );
  const body = (await res.json()) as { datasource_entries: Array<{ dimension_value: unknown }> };
  return body.datasource_entries.map((e) => e.dimension_value);
}

describe('a value in a dimension the datasource lacks', () => {
  it('is not served, and the compiled labels are what the service answers', async () => {
    expect(await served('fr')).toEqual([null, null, null]);
    expect(await served('de')).toEqual(['Rot', 'Blau', null]);

    const root = await tempDir('undeclared-dimension');
    await sync({ baseUrl: service.url, token: PUBLIC, out: path.join(root, 'snapshot'), ...unpaced() });
    await compile({ snapshot: path.join(root, 'snapshot'), out: path.join(root, 'modules') });
    const { label } = await import(pathToFileURL(path.join(root, 'modules', 'datasources.js')).href);
    expect(label('colors', 'red', 'fr')).toBe('Red');
    expect(label('colors', 'red', 'de')).toBe('Rot');
  });
});
