/**
 * A slug holding a lone surrogate (JSON carries `\ud800`, and the control plane takes it as a
 * slug): the census of every later sync names the story's full slug in a URL, which
 * encodeURIComponent refuses ("URI malformed"); the sync still completes, the story kept.
 */
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readSpaceDirectory } from '../../src/snapshot/index.js';
import { sync } from '../../src/sync/index.js';
import { PUBLIC, startTestServer } from '../helpers/server.js';
import { admin, removeTempDirs, tempDir, unpaced } from './support.js';

afterAll(() => removeTempDirs());

it('a published story whose slug holds a lone surrogate: a later sync completes and keeps it', async () => {
  const service = await startTestServer({ admin: true });
  try {
    const out = path.join(await tempDir('lone-surrogate'), 'snapshot');
    const { story } = await admin(service.url, 'POST', '/stories', {
      name: 'Odd',
      slug: 'odd-\ud800',
      content: { component: 'page', title: 'odd' },
    });
    await admin(service.url, 'POST', `/stories/${story.id}/publish`);
    await sync({ baseUrl: service.url, token: PUBLIC, out, ...unpaced() });
    // Another story changes: the next sync counts the stories it holds (the census) by id and slug.
    await admin(service.url, 'PUT', '/stories/12', { content: { title: 'Changed' } });
    await admin(service.url, 'POST', '/stories/12/publish');
    const result = await sync({ baseUrl: service.url, token: PUBLIC, out, ...unpaced() });
    expect(result.mode).toBe('incremental');
    expect(result.changed.removed).toEqual([]);
    const snapshot = await readSpaceDirectory(out);
    expect(snapshot.stories.find((r) => r.id === story.id)?.published?.story.full_slug).toBe('odd-\ud800');
  } finally {
    await service.close();
  }
});
