/**
 * A snapshot synced with one view, served as a local mirror: the view it holds is served as the
 * service it was synced from serves it; the other is refused, saying so, not served as the view
 * it has (drafts that were never synced) or as a space without stories. A real service, real syncs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { View } from '../../src/api/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { readSpaceDirectory } from '../../src/snapshot/read.js';
import { sync } from '../../src/sync/index.js';
import { SPACE_VERSION } from '../helpers/fixture-space.js';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../sync/support.js';

let origin: TestServer;
const mirrors = new Map<View, RunningServer>();

beforeAll(async () => {
  origin = await startTestServer();
  for (const view of ['published', 'draft'] as const) {
    const out = await tempDir(`mirror-${view}`);
    await sync({ baseUrl: origin.url, token: PREVIEW, out, views: [view], ...unpaced() });
    const space = await readSpaceDirectory(out);
    mirrors.set(view, await startServer({ space, publicToken: PUBLIC, previewToken: PREVIEW, rateLimit: false }));
  }
});
afterAll(async () => {
  await Promise.all([...mirrors.values()].map((m) => m.close()));
  await origin?.close();
  await removeTempDirs();
});

async function ask(base: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(base + path, { redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

const stories = (version: View) =>
  `/v2/cdn/stories?token=${PREVIEW}&version=${version}&per_page=100&cv=${SPACE_VERSION}`;

describe('a snapshot synced with one view, served', () => {
  it('serves that view as the service it was synced from', async () => {
    for (const [view, mirror] of mirrors) {
      const [a, b] = await Promise.all([ask(origin.url, stories(view)), ask(mirror.url, stories(view))]);
      expect(a.status).toBe(200);
      // Parsed: the fixture's keys are in no canonical order, the snapshot's are.
      expect({ status: b.status, body: JSON.parse(b.text) }).toEqual({ status: a.status, body: JSON.parse(a.text) });
    }
  });

  it('refuses the other view, naming the one it holds', async () => {
    for (const [held, mirror] of mirrors) {
      const other: View = held === 'published' ? 'draft' : 'published';
      for (const path of [
        stories(other),
        `/v1/cdn/stories?token=${PREVIEW}&version=${other}`,
        `/v2/cdn/tags?token=${PREVIEW}&version=${other}`,
      ]) {
        const answer = await ask(mirror.url, path);
        expect(answer.status, path).toBe(422);
        expect(JSON.parse(answer.text).error).toContain(`holds the ${held} view only`);
      }
    }
    // A public token's request without a version asks for the published view.
    const bare = await ask(mirrors.get('draft')!.url, `/v2/cdn/stories?token=${PUBLIC}&cv=${SPACE_VERSION}`);
    expect(bare.status).toBe(422);
  });

  it('serves what has no view (the space, datasources) either way', async () => {
    for (const mirror of mirrors.values()) {
      expect((await ask(mirror.url, `/v2/cdn/spaces/me?token=${PUBLIC}`)).status).toBe(200);
      expect((await ask(mirror.url, `/v2/cdn/datasources?token=${PUBLIC}&cv=${SPACE_VERSION}`)).status).toBe(200);
    }
  });
});
