/**
 * Names from content are data, never keys that reach an object's prototype: a datasource
 * dimension named `__proto__` (or `constructor`) is served, synced and stored like any other, and
 * so is a content field of that name at the root of a story's content.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { readSpaceDirectory, writeSpaceDirectory } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PREVIEW, PUBLIC } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from './support.js';

let service: RunningServer;

/** Dimension values with keys that are special to objects, as JSON.parse gives them (own properties). */
const values = (proto: string, ctor: string): Record<string, string> =>
  JSON.parse(
    JSON.stringify({ de: 'Rot' }).replace(
      '{',
      `{"__proto__":${JSON.stringify(proto)},"constructor":${JSON.stringify(ctor)},`,
    ),
  );

beforeAll(async () => {
  const space = fixtureSpace();
  const colors = space.datasources[0]!;
  colors.datasource.dimensions.push(
    { id: 1002, entry_value: '__proto__', name: 'Proto' },
    { id: 1003, entry_value: 'constructor', name: 'Ctor' },
  );
  colors.entries[0]!.dimension_values = values('Proto red', 'Ctor red');
  service = await startServer({ space, publicToken: PUBLIC, rateLimit: false });
});
afterAll(async () => {
  await service?.close();
  await removeTempDirs();
});

describe('a datasource dimension named __proto__', () => {
  it('is served as its own value, null where an entry has none', async () => {
    const read = async (dimension: string) =>
      (await (
        await fetch(
          `${service.url}/v2/cdn/datasource_entries?token=${PUBLIC}&datasource=colors&dimension=${dimension}&cv=${service.service.store.space.version}`,
        )
      ).json()) as {
        datasource_entries: Array<{ name: string; dimension_value: unknown }>;
      };
    for (const [dimension, value] of [
      ['__proto__', 'Proto red'],
      ['constructor', 'Ctor red'],
    ] as const) {
      const { datasource_entries } = await read(dimension);
      expect(datasource_entries.map((e) => e.dimension_value)).toEqual([value, null, null]);
    }
  });

  it('syncs into the snapshot with every dimension value of the entry', async () => {
    const out = await tempDir('proto');
    await sync({ baseUrl: service.url, token: PUBLIC, out, ...unpaced() });
    const text = await readFile(path.join(out, 'datasources', '100.json'), 'utf8');
    const record = JSON.parse(text) as { entries: Array<{ name: string; dimension_values?: Record<string, string> }> };
    const red = record.entries.find((e) => e.name === 'red')!;
    expect(Object.getPrototypeOf(red.dimension_values)).toBe(Object.prototype);
    expect(Object.entries(red.dimension_values!)).toEqual([
      ['__proto__', 'Proto red'],
      ['constructor', 'Ctor red'],
      ['de', 'Rot'],
    ]);
    expect(record.entries.find((e) => e.name === 'blue')!.dimension_values).toEqual({ de: 'Blau' });
    // Read back as a space directory (what the service serves and compile reads): the same values.
    const back = (await readSpaceDirectory(out)).datasources.find((d) => d.datasource.id === 100)!;
    expect(Object.entries(back.entries.find((e) => e.name === 'red')!.dimension_values!)).toEqual(
      Object.entries(red.dimension_values!),
    );
  });
});

describe('a content field named __proto__ at the root of a story', () => {
  let own: RunningServer;
  beforeAll(async () => {
    const space = fixtureSpace();
    const record = space.stories.find((r) => r.id === 12)!;
    // As JSON.parse gives it: an own key, delivered by the service like any field.
    record.published!.story.content = JSON.parse(
      JSON.stringify(record.published!.story.content).replace('{', '{"__proto__":{"note":"kept"},'),
    );
    own = await startServer({ space, publicToken: PUBLIC, previewToken: PREVIEW, rateLimit: false });
  });
  afterAll(() => own?.close());

  for (const [what, token, views] of [
    ['the published view', PUBLIC, ['published']],
    ['both views', PREVIEW, ['published', 'draft']],
  ] as const) {
    it(`is kept in the snapshot as delivered: ${what}`, async () => {
      const out = await tempDir('proto-content');
      await sync({ baseUrl: own.url, token, out, views: [...views], ...unpaced() });
      const stored = JSON.parse(await readFile(path.join(out, 'stories', '12.json'), 'utf8'));
      const content = stored.published.story.content as Record<string, unknown>;
      expect(Object.hasOwn(content, '__proto__')).toBe(true);
      expect(Object.getOwnPropertyDescriptor(content, '__proto__')?.value).toEqual({ note: 'kept' });
      expect(content.title).toBe('Alpha news');
    });
  }
});

describe('a content field named __proto__ in a space directory', () => {
  it('is read as written, at the root of the content and of a language overlay', async () => {
    const space = fixtureSpace();
    const record = space.stories.find((r) => r.id === 12)!;
    const withProto = (content: object) =>
      JSON.parse(JSON.stringify(content).replace('{', '{"__proto__":{"note":"kept"},'));
    record.published!.story.content = withProto(record.published!.story.content);
    record.published!.languages = {
      ...record.published!.languages,
      de: { full_slug: 'de/news/alpha', content: withProto({ title: 'Alpha' }) },
    };
    const dir = await tempDir('proto-space');
    await writeSpaceDirectory(dir, space);
    const read = (await readSpaceDirectory(dir)).stories.find((r) => r.id === 12)!;
    for (const content of [read.published!.story.content, read.published!.languages!.de!.content!]) {
      expect(Object.getOwnPropertyDescriptor(content, '__proto__')?.value).toEqual({ note: 'kept' });
    }
  });
});

describe('__proto__ through the control plane', () => {
  let own: RunningServer;
  beforeAll(async () => {
    own = await startServer({ space: fixtureSpace(), publicToken: PUBLIC, rateLimit: false, admin: true });
  });
  afterAll(() => own?.close());

  /** A control-plane request whose body is sent as written (JSON.parse makes `__proto__` an own key). */
  const admin = (method: string, route: string, body = '') =>
    fetch(`${own.url}/__admin${route}`, { method, headers: { 'content-type': 'application/json' }, body });

  it('keeps a dimension value and a content field of that name, and checks their values', async () => {
    const put = await admin(
      'PUT',
      '/datasources/colors/entries',
      '{"dimensions":[{"name":"Proto","entry_value":"__proto__"}],"entries":[{"name":"red","value":"Red","dimension_values":{"__proto__":"Proto red"}}]}',
    );
    expect(put.status).toBe(200);
    expect((await admin('PUT', '/stories/12', '{"content":{"__proto__":{"note":"kept"}}}')).status).toBe(200);
    expect((await admin('POST', '/stories/12/publish')).status).toBe(200);

    const out = await tempDir('proto-admin');
    await sync({ baseUrl: own.url, token: PUBLIC, out, ...unpaced() });
    const colors = JSON.parse(await readFile(path.join(out, 'datasources', '100.json'), 'utf8'));
    expect(Object.entries(colors.entries[0].dimension_values)).toEqual([['__proto__', 'Proto red']]);
    const content = JSON.parse(await readFile(path.join(out, 'stories', '12.json'), 'utf8')).published.story.content;
    expect(Object.getOwnPropertyDescriptor(content, '__proto__')?.value).toEqual({ note: 'kept' });

    const wrong = await admin(
      'PUT',
      '/datasources/colors/entries',
      '{"entries":[{"name":"red","value":"Red","dimension_values":{"__proto__":5}}]}',
    );
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as { error: string }).error).toMatch(/^entries\.0\.dimension_values\.__proto__: /);
  });
});
