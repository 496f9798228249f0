/**
 * The example site's warm build after a content change renders again only the pages made from
 * what changed (page-keys.ts), and the output is byte for byte the one a build from nothing makes.
 * Real builds over a demo space of their own (changed between builds as the local service stores
 * changes), real files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceStore } from '../../src/server/store.js';
import { changeSpace, filesUnder, type SiteApi, type SiteBuild, siteInTemp } from './support.js';

/** What `read` gives of every file under `dir`, by its path inside it. */
async function eachFile<T>(dir: string, read: (file: string) => Promise<T>): Promise<Map<string, T>> {
  const files = await filesUnder(dir);
  return new Map(await Promise.all(files.map(async (f) => [path.relative(dir, f), await read(f)] as const)));
}

/** Every file of an output with its bytes. */
const contentsOf = (dir: string) => eachFile(dir, (f) => fs.readFile(f));

/** Modification times of every file of an output. */
const timesOf = (dir: string) => eachFile(dir, async (f) => (await fs.stat(f)).mtimeMs);

describe('the example site rebuilt after a change', () => {
  let tmp: string;
  let api: SiteApi;
  let contentDir: string;
  let outDir: string;
  let first: SiteBuild;

  const change = (edit: (store: SpaceStore) => void) => changeSpace(contentDir, edit);

  /** A build from nothing of the same content into a fresh directory: what the rebuilt output must equal. */
  async function expectSameAsFresh(name: string): Promise<void> {
    const fresh = await api.buildSite({ outDir: path.join(tmp, name), contentDir, logLevel: 'silent' });
    expect(fresh.rendered).toBe(fresh.pages);
    const [rebuilt, reference] = await Promise.all([contentsOf(outDir), contentsOf(fresh.outDir)]);
    expect([...rebuilt.keys()].sort()).toEqual([...reference.keys()].sort());
    const differing = [...reference].filter(([file, bytes]) => !rebuilt.get(file)!.equals(bytes)).map(([f]) => f);
    expect(differing).toEqual([]);
  }

  beforeAll(async () => {
    ({ tmp, api, contentDir, outDir, first } = await siteInTemp('rerender'));
  }, 120_000);

  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('renders again the pages of a changed author and of the articles that embed it, and nothing else', async () => {
    expect(first.rendered).toBe(first.pages);
    let author = 0;
    await change((store) => {
      const record = [...store.records()].find((r) => r.published?.story.content.component === 'author')!;
      author = record.id;
      const bio = {
        type: 'doc',
        content: [
          { type: 'paragraph', content: [{ type: 'text', text: 'A biography written since the last build.' }] },
        ],
      };
      store.updateStory(author, { content: { bio } });
      store.publish(author);
    });
    // A page another writer replaced since is rendered again too.
    const replaced = path.join(outDir, 'tags', 'index.html');
    await fs.writeFile(replaced, 'not the page');
    const before = await timesOf(outDir);
    const records = path.join(contentDir, 'snapshot', 'stories');
    const recordsBefore = await timesOf(records);

    const again = await api.buildSite({ outDir, contentDir, logLevel: 'silent' });
    // The embedded service is where it was (its asset URLs are the same): the sync rewrote the
    // changed story's record only.
    const recordsAfter = await timesOf(records);
    expect([...recordsAfter].filter(([file, time]) => recordsBefore.get(file) !== time).map(([f]) => f)).toEqual([
      `${author}.json`,
    ]);
    expect(again.pages).toBe(first.pages);
    // The author's page in each language, the articles that show it, the replaced page and the home
    // page (the client build writes its template there first): a few dozen of 645.
    expect(again.rendered).toBeGreaterThan(3);
    expect(again.rendered).toBeLessThan(first.pages / 4);
    // Pages rendered to the same bytes (an article shows its author's name, not the biography) are left alone.
    expect(again.rewritten).toBeLessThan(again.rendered);
    const after = await timesOf(outDir);
    const touched = [...after].filter(([file, time]) => before.get(file) !== time).map(([file]) => file);
    expect(touched.filter((f) => f.endsWith('.html')).length).toBe(again.rewritten);
    const authorPage = touched.find((f) => f.startsWith('authors/'));
    expect(authorPage).toBeDefined();
    expect(await fs.readFile(path.join(outDir, authorPage!), 'utf8')).toContain(
      'A biography written since the last build.',
    );
    expect(await fs.readFile(replaced, 'utf8')).not.toBe('not the page');

    await expectSameAsFresh('fresh-after-edit');
  }, 180_000);

  it('renders every page again when what every page shows changes (a story title in the navigation)', async () => {
    // The output as this content renders it, known again (the fresh build before kept its own).
    const settled = await api.buildSite({ outDir, contentDir, logLevel: 'silent' });
    expect(settled.rendered).toBe(1);
    await change((store) => {
      const record = [...store.records()].find((r) => r.published?.story.is_startpage && r.published.story.parent_id)!;
      store.updateStory(record.id, { content: { title: 'A folder renamed' } });
      store.publish(record.id);
    });
    const again = await api.buildSite({ outDir, contentDir, logLevel: 'silent' });
    expect(again.rendered).toBe(again.pages);
    await expectSameAsFresh('fresh-after-rename');
  }, 180_000);

  it('renders every page when what the last build left is damaged, and leaves usable stamps again', async () => {
    const stamps = (await fs.readdir(contentDir)).filter((f) => /^rendered-pages-[0-9a-f]{16}\.json$/.test(f));
    expect(stamps.length).toBeGreaterThan(0);
    for (const file of stamps) await fs.writeFile(path.join(contentDir, file), '{"outDir": "not json');
    const again = await api.buildSite({ outDir, contentDir, logLevel: 'silent' });
    expect(again.rendered).toBe(again.pages);
    expect(again.rewritten).toBe(1);
    const next = await api.buildSite({ outDir, contentDir, logLevel: 'silent' });
    expect(next.rendered).toBe(1);
  }, 120_000);
});
