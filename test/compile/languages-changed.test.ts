/**
 * A compile after the space's languages changed is a full one (each language is an export, a lean
 * index module and a type), and says so: the languages changed, not the options or content-sync.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { sync } from '../../src/sync/index.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PUBLIC, startTestServer } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../sync/support.js';

afterAll(removeTempDirs);

/** Syncs the fixture space, with these languages, into `snapshot`. */
async function syncWith(languages: string[], snapshot: string): Promise<void> {
  const space = fixtureSpace();
  space.space.language_codes = languages;
  const server = await startTestServer({ space });
  try {
    await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
  } finally {
    await server.close();
  }
}

describe('a compile after the space’s languages changed', () => {
  it('is full, saying the languages changed rather than the options or the version of content-sync', async () => {
    const root = await tempDir('languages-changed');
    const snapshot = path.join(root, 'snapshot');
    const out = path.join(root, 'modules');
    await syncWith(['de'], snapshot);
    await compile({ snapshot, out });

    await syncWith(['de', 'pt-br'], snapshot);
    const added = await compile({ snapshot, out });
    expect(added.mode).toBe('full');
    expect(added.fullBecause).toBe(
      "the snapshot's languages changed since the last compile (default, de; now default, de, pt-br)",
    );
    expect((await compile({ snapshot, out })).fullBecause).toBeUndefined();

    await syncWith(['pt-br'], snapshot);
    expect((await compile({ snapshot, out })).fullBecause).toBe(
      "the snapshot's languages changed since the last compile (default, de, pt-br; now default, pt-br)",
    );
  }, 30_000);
});
