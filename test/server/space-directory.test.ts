/**
 * A space directory holding content nested deeper than the service can walk: refused when the
 * directory is read, naming the story's file, as the control plane refuses such content; content
 * as deep as the service accepts loads and is served. A real demo directory, a real service.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';
import { startServer } from '../../src/server/index.js';
import { MAX_CONTENT_NESTING, SpaceDirectoryError } from '../../src/snapshot/index.js';
import { readSpaceDirectory } from '../../src/snapshot/read.js';

let dir: string;
let file: string;
let original: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'space-directory-'));
  await writeDemoSpace(dir, { stories: 20 });
  const names = await fs.readdir(path.join(dir, 'stories'));
  file = path.join(dir, 'stories', names[0]!);
  original = await fs.readFile(file, 'utf8');
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** The story's file with a field of its published content nested `depth` levels (the content itself counted). */
async function nest(depth: number): Promise<void> {
  const record = JSON.parse(original);
  record.published.story.content.deep = '__DEEP__';
  // Written as text: JSON.stringify cannot write a value this deep. The content is one level, `deep` the rest.
  const deep = `${'{"x":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}`;
  await fs.writeFile(file, JSON.stringify(record, null, 2).replace('"__DEEP__"', deep));
}

describe('a space directory with deeply nested content', () => {
  it('is refused when read, naming the story, beyond what the service accepts', async () => {
    await nest(5_000);
    const read = readSpaceDirectory(dir);
    await expect(read).rejects.toBeInstanceOf(SpaceDirectoryError);
    await expect(read).rejects.toThrow(
      `${file}: its content is nested 5000 levels deep, more than the ${MAX_CONTENT_NESTING} the service accepts`,
    );
  });

  it('is refused when two stories share a uuid', async () => {
    await fs.writeFile(file, original);
    const names = await fs.readdir(path.join(dir, 'stories'));
    const other = path.join(dir, 'stories', names[1]!);
    const before = await fs.readFile(other, 'utf8');
    const record = JSON.parse(before);
    const { uuid } = JSON.parse(original);
    record.uuid = uuid;
    for (const v of [record.published, record.draft]) if (v) v.story.uuid = uuid;
    await fs.writeFile(other, JSON.stringify(record, null, 2));
    try {
      await expect(readSpaceDirectory(dir)).rejects.toThrow(
        new RegExp(`stories/\\d+\\.json: its uuid ${uuid} is also the uuid of story \\d+$`),
      );
    } finally {
      await fs.writeFile(other, before);
    }
  });

  it('is refused when two datasources share a slug', async () => {
    await fs.writeFile(file, original);
    const [first] = (await fs.readdir(path.join(dir, 'datasources'))).sort();
    const record = JSON.parse(await fs.readFile(path.join(dir, 'datasources', first!), 'utf8'));
    // A copy under another id with other entries: served for the slug, the entries of both.
    record.datasource.id = 999_999;
    record.entries = record.entries.map((e: { id: number }, i: number) => ({ ...e, id: 888_000 + i }));
    const copy = path.join(dir, 'datasources', '999999.json');
    await fs.writeFile(copy, JSON.stringify(record, null, 2));
    try {
      await expect(readSpaceDirectory(dir)).rejects.toThrow(
        `${copy}: its slug ${JSON.stringify(record.datasource.slug)} is also the slug of datasource ${parseInt(first!, 10)}`,
      );
    } finally {
      await fs.rm(copy);
    }
  });

  it('is served when as deep as the service accepts', async () => {
    await nest(MAX_CONTENT_NESTING);
    const server = await startServer({ space: await readSpaceDirectory(dir), rateLimit: false });
    try {
      const res = await fetch(`${server.url}/v2/cdn/stories?token=local-public-token&per_page=100`, {
        redirect: 'follow',
      });
      expect(res.status).toBe(200);
      const { stories } = (await res.json()) as { stories: Array<{ content: { deep?: unknown } }> };
      expect(stories.some((s) => s.content.deep !== undefined)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
