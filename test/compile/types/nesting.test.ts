/**
 * Content nested deeper than the compile's walks can follow is refused with an error naming the
 * story and its depth, not a bare "Maximum call stack size exceeded"; nesting a space really has
 * compiles, and so does content as deep as the service accepts, however deep its relations resolve.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { type CompileOptions, compile } from '../../../src/compile/index.js';
import { MAX_CONTENT_NESTING, nestingDepth, type SpaceData } from '../../../src/snapshot/index.js';
import { sync } from '../../../src/sync/index.js';
import { fixtureSpace, uuidOf } from '../../helpers/fixture-space.js';
import { PUBLIC, startTestServer } from '../../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../../sync/support.js';
import { readGenerated } from '../support.js';

/** The fixture space and story 999, whose content nests `levels` bloks, each in the last one's field. */
function deepSpace(
  levels: number,
  leaf: Record<string, unknown> = { _uid: 'leaf', component: 'leaf', text: 'x' },
): SpaceData {
  const space = fixtureSpace();
  const record = structuredClone(space.stories.find((r) => r.id === 19)!);
  record.id = 999;
  record.uuid = uuidOf(999);
  const story = record.published!.story;
  Object.assign(story, { id: 999, uuid: uuidOf(999), slug: 'deep', full_slug: 'deep', group_id: 'g-999' });
  let inner = leaf;
  for (let i = 0; i < levels; i++) inner = { _uid: `n${i}`, component: 'nest', child: [inner] };
  story.content = { _uid: 'root', component: 'product', body: [inner] } as typeof story.content;
  space.stories.push(record);
  return space;
}

async function compileSpace(levels: number, space = deepSpace(levels), options: Partial<CompileOptions> = {}) {
  const server = await startTestServer({ space });
  try {
    const dir = await tempDir('nesting');
    await sync({ baseUrl: server.url, token: PUBLIC, out: path.join(dir, 'snapshot'), ...unpaced() });
    const out = path.join(dir, 'modules');
    return { out, ...(await compile({ snapshot: path.join(dir, 'snapshot'), out, threads: 1, ...options })) };
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

  it('as deep as the service accepts, relating to itself at the bottom, resolved 10 levels deep', async () => {
    // 490 bloks (981 levels, within MAX_CONTENT_NESTING): each level of resolution nests the story
    // in itself again, so the resolved story is ten times as deep as its content.
    const space = deepSpace(490, { _uid: 'leaf', component: 'leaf', rel: uuidOf(999) });
    expect(nestingDepth(space.stories.at(-1)!.published!.story.content)).toBeLessThanOrEqual(MAX_CONTENT_NESTING);
    const { out } = await compileSpace(490, space, { resolveRelations: ['leaf.rel'], depth: 10 });
    const { default: story } = readGenerated<{ default: Story }>(out, 'stories/999.js');
    let levels = 0;
    let target: unknown = story;
    for (; typeof target === 'object'; levels++) {
      let blok = (target as Story).content.body as Array<Record<string, unknown>>;
      while (blok[0]!.child) blok = blok[0]!.child as Array<Record<string, unknown>>;
      target = blok[0]!.rel;
    }
    expect([levels, target]).toEqual([11, uuidOf(999)]);
  }, 60_000);
});
