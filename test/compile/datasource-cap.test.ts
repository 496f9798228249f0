/**
 * Values of a datasource past the literal cap: an incremental compile whose counts lost a held
 * value (while another is past the cap) cannot tell whether every value left is an entry name,
 * so it observes every story again, as for literal values, and prints a full compile's types.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer } from '../../src/server/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC } from '../helpers/server.js';
import { admin, removeTempDirs, tempDir, unpaced } from '../sync/support.js';
import { bytesDiff, readOutput } from './support.js';

const STATE = '.content-sync-compile.json';

afterAll(removeTempDirs);

it('a datasource field that loses a held value past the cap gets the types of a full compile', async () => {
  const server = await startServer({
    space: generateDemoSpace({ stories: 10 }),
    rateLimit: false,
    admin: true,
    publicToken: PUBLIC,
  });
  try {
    // Thirteen entry names, each on one swatch: one past the cap of twelve, so a string.
    const names = Array.from({ length: 13 }, (_, k) => `shade-${String(k).padStart(2, '0')}`);
    await admin(server.url, 'PUT', '/datasources/shades/entries', {
      entries: names.map((name) => ({ name, value: name.toUpperCase() })),
    });
    const swatches = new Map<string, number>();
    for (const name of names) {
      const created = await admin(server.url, 'POST', '/stories', {
        name,
        slug: name,
        parent_id: 0,
        content: { component: 'swatch', shade: name },
      });
      await admin(server.url, 'POST', `/stories/${created.story.id}/publish`);
      swatches.set(name, created.story.id);
    }
    const snapshot = await tempDir('ds-cap-snapshot');
    const out = await tempDir('ds-cap-out');
    const doSync = () => sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
    await doSync();
    expect((await compile({ snapshot, out })).mode).toBe('full');
    expect(readFileSync(path.join(out, 'types.d.ts'), 'utf8')).toMatch(/\bshade: string;/);
    // The state holds twelve of the values (which depends on the order they were seen); one of those leaves.
    const state = JSON.parse(readFileSync(path.join(out, STATE), 'utf8')) as {
      types: { comps: Record<string, { f: Record<string, { str: { vals: Record<string, number> } }> }> };
    };
    const held = Object.keys(state.types.comps.swatch!.f.shade!.str.vals);
    expect(held).toHaveLength(12);
    await admin(server.url, 'DELETE', `/stories/${swatches.get(held[0]!)}`);
    await doSync();
    expect((await compile({ snapshot, out })).mode).toBe('incremental');
    // Every value left is an entry name of the datasource: its names, as a full compile prints them.
    expect(readFileSync(path.join(out, 'types.d.ts'), 'utf8')).toContain(
      `shade: ${names.map((n) => JSON.stringify(n)).join(' | ')};`,
    );
    const fresh = await tempDir('ds-cap-fresh');
    await compile({ snapshot, out: fresh, full: true });
    expect(bytesDiff(await readOutput(out), await readOutput(fresh), [STATE])).toEqual([]);
  } finally {
    await server.close();
  }
});
