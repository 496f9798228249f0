/**
 * Content nested deeper than the compile's walks can follow is refused with an error naming the
 * story and its depth, not a bare "Maximum call stack size exceeded"; nesting a space really has
 * compiles.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../../src/compile/index.js';
import type { SpaceData } from '../../../src/snapshot/index.js';
import { sync } from '../../../src/sync/index.js';
import { fixtureSpace, uuidOf } from '../../helpers/fixture-space.js';
import { PUBLIC, startTestServer } from '../../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../../sync/support.js';

/** The fixture space and story 999, whose content nests `levels` bloks, each in the last one's field. */
function deepSpace(levels: number): SpaceData {
  const space = fixtureSpace();
  const record = structuredClone(space.stories.find((r) => r.id === 19)!);
  record.id = 999;
  record.uuid = uuidOf(999);
  const story = record.published!.story;
  Object.assign(story, { id: 999, uuid: uuidOf(999), slug: 'deep', full_slug: 'deep', group_id: 'g-999' });
  let inner: Record<string, unknown> = { _uid: 'leaf', component: 'leaf', text: 'x' };
  for (let i = 0; i < levels; i++) inner = { _uid: `n${i}`, component: 'nest', child: [inner] };
  story.content = { _uid: 'root', component: 'product', body: [inner] } as typeof story.content;
  space.stories.push(record);
  return space;
}

async function compileSpace(levels: number) {
  const server = await startTestServer({ space: deepSpace(levels) });
  try {
    const dir = await tempDir('nesting');
    await sync({ baseUrl: server.url, token: PUBLIC, out: path.join(dir, 'snapshot'), ...unpaced() });
    return await compile({ snapshot: path.join(dir, 'snapshot'), out: path.join(dir, 'modules'), threads: 1 });
  } finally {
    await server.close();
  }
}

afterAll(() => removeTempDirs());

describe('deeply nested content', () => {
  it('compiles nesting a space really has (100 bloks deep)', async () => {
    expect((await compileSpace(100)).stories).toBe(11);
  }, 60_000);

  it('beyond what the compile can follow (1,000 bloks deep): an error naming the story and its depth', async () => {
    await expect(compileSpace(1_000)).rejects.toThrow(
      /^story 999 \(00000000-0000-4000-8000-000000000999\): its content is nested 2003 levels deep, more than the compile can follow \(Maximum call stack size exceeded\); flatten it in the space$/,
    );
  }, 60_000);
});
