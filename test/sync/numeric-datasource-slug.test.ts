/**
 * A datasource slug that is a number (`100`) beside a datasource whose id is that number: the
 * service answers the entries of the datasource of that slug only, and sync stores those.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PUBLIC } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from './support.js';

let service: RunningServer;

beforeAll(async () => {
  const space = fixtureSpace();
  // The fixture's `colors` has id 100.
  space.datasources.push({
    datasource: { id: 300, name: 'Numbered', slug: '100', dimensions: [] },
    entries: [{ id: 3001, name: 'only', value: 'Only' }],
  });
  service = await startServer({ space, publicToken: PUBLIC, rateLimit: false });
});
afterAll(async () => {
  await service?.close();
  await removeTempDirs();
});

const names = (entries: Array<{ name: string }>) => entries.map((e) => e.name);

describe('a datasource slug that is another datasource id', () => {
  it('names the datasource of that slug only', async () => {
    const res = await fetch(`${service.url}/v1/cdn/datasource_entries?token=${PUBLIC}&datasource=100`);
    const body = (await res.json()) as { datasource_entries: Array<{ name: string }> };
    expect(names(body.datasource_entries)).toEqual(['only']);
    expect(res.headers.get('total')).toBe('1');
  });

  it('is synced with its own entries, and the datasource of that id with its own', async () => {
    const out = await tempDir('numeric-slug');
    await sync({ baseUrl: service.url, token: PUBLIC, out, ...unpaced() });
    const read = async (id: number) =>
      JSON.parse(await readFile(path.join(out, 'datasources', `${id}.json`), 'utf8')) as {
        entries: Array<{ name: string }>;
      };
    expect(names((await read(300)).entries)).toEqual(['only']);
    expect(names((await read(100)).entries)).toEqual(['red', 'blue', 'green']);
  });
});
