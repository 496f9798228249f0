/**
 * The example site rebuilt over its last output, where what the last build wrote is in the way of
 * this one: a page file where a folder must now be and back, and the image files of a story taken
 * out of the space. Each rebuilt output must be the one a build from nothing over a copy of the
 * same space makes (a content directory of its own: the same one would share what the last builds
 * left in it). Real builds of a 100-story demo space, real files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoryRecord } from '../../src/snapshot/format.js';
import type { SpaceStore } from '../../src/server/store.js';
import { takeRendered } from '../../example-site/rendered-pages.js';
import { changeSpace, filesUnder, type SiteApi, siteInTemp } from './support.js';

const STORIES = 100;

/** Every file of an output with its bytes, by its path inside it. */
async function contentsOf(dir: string): Promise<Map<string, Buffer>> {
  const files = await filesUnder(dir);
  return new Map(await Promise.all(files.map(async (f) => [path.relative(dir, f), await fs.readFile(f)] as const)));
}

/** The image URLs a published story shows. */
const imagesOf = (r: StoryRecord): string[] =>
  r.published
    ? [...JSON.stringify(r.published).matchAll(/"filename":"([^"]+\.(?:jpe?g|png|webp))"/g)].map((m) => m[1]!)
    : [];

describe('the example site rebuilt where the last build is in the way', () => {
  let tmp: string;
  let api: SiteApi;
  let contentDir: string;
  let outDir: string;
  let fresh = 0;
  /** The folder the first test changed. */
  let other: string | undefined;

  const change = (edit: (store: SpaceStore) => void) => changeSpace(contentDir, edit);

  /** Rebuilds over the last output, and builds the same space from nothing: the two outputs are the same. */
  async function rebuildAsFromNothing(): Promise<{ refused: string[]; files: Map<string, Buffer> }> {
    const again = await api.buildSite({ outDir, contentDir, stories: STORIES, logLevel: 'silent' });
    const name = `fresh-${fresh++}`;
    const freshContent = path.join(tmp, `${name}-content`);
    await fs.cp(path.join(contentDir, 'space'), path.join(freshContent, 'space'), { recursive: true });
    const reference = await api.buildSite({
      outDir: path.join(tmp, name),
      contentDir: freshContent,
      stories: STORIES,
      logLevel: 'silent',
    });
    expect(again.refused).toEqual(reference.refused);
    expect(again.pages).toBe(reference.pages);
    const [rebuilt, expected] = await Promise.all([contentsOf(outDir), contentsOf(reference.outDir)]);
    expect([...rebuilt.keys()].sort()).toEqual([...expected.keys()].sort());
    expect([...expected].filter(([file, bytes]) => !rebuilt.get(file)!.equals(bytes)).map(([f]) => f)).toEqual([]);
    return { refused: again.refused, files: rebuilt };
  }

  beforeAll(async () => {
    ({ tmp, api, contentDir, outDir } = await siteInTemp('leftovers', STORIES));
  }, 120_000);

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  /**
   * Unpublishes a folder's start page (one of a folder not `except`) and gives a story of that
   * folder the slug index.html: its page is <folder>/index.html/index.html where the start page's
   * file was. The folder's path, and the two stories.
   */
  async function startPageGoes(except?: string): Promise<{ folder: string; start: StoryRecord; child: StoryRecord }> {
    let found: { folder: string; start: StoryRecord; child: StoryRecord } | undefined;
    await change((store) => {
      const records = [...store.records()];
      const childOf = (r: StoryRecord) =>
        records.find(
          (c) =>
            c.published &&
            !c.published.story.is_startpage &&
            !c.published.story.is_folder &&
            c.published.story.parent_id === r.published!.story.parent_id,
        );
      const start = records.find(
        (r) =>
          r.published?.story.is_startpage &&
          r.published.story.parent_id &&
          r.published.story.full_slug.replace(/\/*$/, '') !== except &&
          childOf(r),
      )!;
      found = { folder: start.published!.story.full_slug.replace(/\/*$/, ''), start, child: childOf(start)! };
      store.unpublish(start.id);
      store.updateStory(found.child.id, { slug: 'index.html' });
      store.publish(found.child.id);
    });
    return found!;
  }

  it('writes a page whose file is now a folder, and the folder page again when it is a file once more', async () => {
    const { folder, start } = await startPageGoes();
    const moved = await rebuildAsFromNothing();
    expect(moved.files.has(path.join(folder, 'index.html', 'index.html'))).toBe(true);
    // Settled there, then the start page back: its file is where that folder is.
    await api.buildSite({ outDir, contentDir, stories: STORIES, logLevel: 'silent' });
    await change((store) => store.publish(start.id));
    const back = await rebuildAsFromNothing();
    expect(back.files.has(path.join(folder, 'index.html'))).toBe(true);
    expect(back.refused.length).toBeGreaterThan(0);
    other = folder;
  }, 180_000);

  it('copies again an image file that a build stopped while copying it left cut short', async () => {
    const ssrAssets = path.join(contentDir, 'ssr', 'assets');
    const name = (await fs.readdir(ssrAssets)).find((f) => /\.(jpe?g|png|webp)$/.test(f))!;
    const whole = await fs.readFile(path.join(ssrAssets, name));
    // What a build stopped in the middle of copying the file to the site's assets leaves there.
    await fs.writeFile(path.join(outDir, 'assets', name), whole.subarray(0, whole.length >> 1));
    await api.buildSite({ outDir, contentDir, stories: STORIES, logLevel: 'silent' });
    expect((await fs.readFile(path.join(outDir, 'assets', name))).equals(whole)).toBe(true);
  }, 60_000);

  it('does so after a build that stopped once it had taken the stamps of the last one', async () => {
    const { folder } = await startPageGoes(other);
    // What a build that stopped in the middle of its pages leaves: the stamps taken, none kept.
    await takeRendered(contentDir, outDir);
    const moved = await rebuildAsFromNothing();
    expect(moved.files.has(path.join(folder, 'index.html', 'index.html'))).toBe(true);
  }, 180_000);

  it('builds the articles of an author taken out of the space, without the author', async () => {
    let name = '';
    let article = '';
    await change((store) => {
      const records = [...store.records()];
      const author = records.find(
        (r) =>
          r.published?.story.content.component === 'author' &&
          records.some((a) => a.published?.story.content.author === r.uuid),
      )!;
      name = String(author.published!.story.content.name);
      article = records.find((a) => a.published?.story.content.author === author.uuid)!.published!.story.full_slug;
      store.unpublish(author.id);
    });
    // The article's single relation to it is null now (the compile says so): no page fails on it.
    const { files } = await rebuildAsFromNothing();
    const page = files.get(path.join(article, 'index.html'))?.toString('utf8');
    expect(page).toContain('<title>');
    expect(page).not.toContain('rel="author"');
    expect(page).not.toContain(name);
  }, 180_000);

  it('leaves out the image files of a story taken out of the space', async () => {
    let image = '';
    await change((store) => {
      const published = [...store.records()].filter((r) => r.published && !r.published.story.is_folder);
      const users = new Map<string, number[]>();
      for (const r of published)
        for (const url of new Set(imagesOf(r))) users.set(url, [...(users.get(url) ?? []), r.id]);
      const only = [...users].find(([, ids]) => ids.length === 1)!;
      image = only[0];
      store.deleteStory(only[1][0]!);
    });
    expect(image).not.toBe('');
    const { files } = await rebuildAsFromNothing();
    expect(files.size).toBeGreaterThan(0);
  }, 180_000);
});
