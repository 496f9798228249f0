/**
 * Round trips through the snapshot format, on seeded random content: what the
 * writers produce, the readers give back. The stories index written in pieces
 * (copying unchanged entries from the previous file) is the canonical JSON of
 * its entries; its rows, scanned, read from the rows file or taken from the
 * writer's layout, are the same; the slices of a record's text parse to the
 * values they stand for; the state read from disk is what was written.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Story } from '../../src/api/index.js';
import {
  FILES,
  INDEX_FILES,
  canonicalJson,
  fileStamp,
  indexRowOf,
  indexRowsOfLayout,
  indexRowsText,
  loadState,
  overlayContentTexts,
  parseIndexRowsText,
  scanIndexRows,
  sha256,
  sortedIndex,
  sortedIndexPieces,
  versionStoryText,
  type IndexLayout,
  type StoryIndexEntry,
  type StoryRecord,
  type StoryVersion,
} from '../../src/snapshot/index.js';
import { random } from '../helpers/random.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-round-trip-'));
  dirs.push(dir);
  return dir;
};

/** Text with what JSON escapes or encodes in several bytes, now and then. */
function words(next: () => number, n = 3): string {
  const pool = ['post', 'Über', '記事', 'a "quote"', 'back\\slash', 'line\nbreak', 'tab\t', 'emoji 🎉', '  spaced  '];
  return Array.from({ length: 1 + Math.floor(next() * n) }, () => pool[Math.floor(next() * pool.length)]!).join(' ');
}

function entry(next: () => number, id: number): StoryIndexEntry {
  const slug = `s-${id}`;
  const e: StoryIndexEntry = {
    id,
    uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    name: words(next),
    full_slug: `blog/${slug}`,
    parent_id: next() < 0.3 ? null : Math.floor(next() * 100),
    is_startpage: next() < 0.1,
    component: next() < 0.2 ? words(next, 1) : 'article',
    tag_list: next() < 0.5 ? [] : [words(next, 1)],
    published_at: next() < 0.3 ? null : '2026-01-01T00:00:00.000Z',
    slugs: { default: `blog/${slug}`, de: `de/blog/${slug}` },
    slug,
    path: next() < 0.8 ? null : words(next, 1),
    published: next() < 0.7,
    digest: sha256(String(id * next())).slice(0, 16),
  };
  if (next() < 0.3) e.link_fields = { de: { name: words(next) } };
  return e;
}

/** Writes the stories index as sync does, into `file`, and gives its bytes and layout. */
async function writeIndex(stories: Map<number, StoryIndexEntry>, file: string, previous?: IndexLayout) {
  let layout: Omit<IndexLayout, 'stamp'> | undefined;
  const pieces: Uint8Array[] = [];
  for await (const piece of sortedIndexPieces(stories, previous && { layout: previous, file }, (l) => (layout = l)))
    pieces.push(piece);
  const bytes = Buffer.concat(pieces);
  writeFileSync(file, bytes);
  return { bytes, layout: { ...layout!, stamp: (await fileStamp(file))! } };
}

describe('the stories index', () => {
  it.each([1, 2, 3, 4, 5])(
    'written in pieces over rounds of changes, is the canonical text of its entries, its rows the same however read (seed %i)',
    async (seed) => {
      const next = random(seed);
      const file = path.join(tempDir(), 'stories.json');
      let stories = new Map<number, StoryIndexEntry>();
      let nextId = 1;
      let previous: IndexLayout | undefined;
      for (let round = 0; round < 8; round++) {
        // A sync copies the map and replaces entries it changes: those it keeps are copied as bytes.
        stories = new Map(stories);
        for (const id of [...stories.keys()]) {
          const roll = next();
          if (roll < 0.1) stories.delete(id);
          else if (roll < 0.25) stories.set(id, entry(next, id));
        }
        for (let k = Math.floor(next() * 20); k > 0; k--) {
          nextId += 1 + Math.floor(next() * 1000);
          stories.set(nextId, entry(next, nextId));
        }
        // Ids out of order in the map, as a sync adds them.
        stories = new Map([...stories].sort(() => next() - 0.5));
        const { bytes, layout } = await writeIndex(stories, file, previous);
        expect(bytes.toString('utf8')).toBe(sortedIndex(stories));
        const parsed = JSON.parse(bytes.toString('utf8')) as StoryIndexEntry[];
        const expected = parsed.map((e) => indexRowOf(e as unknown as Record<string, unknown>));
        const fromLayout = indexRowsOfLayout(layout);
        expect(fromLayout.map(({ at: _a, size: _s, ...row }) => row)).toEqual(expected);
        expect(scanIndexRows(bytes.toString('latin1'), bytes)).toEqual(fromLayout);
        for (const row of fromLayout)
          expect(JSON.parse(bytes.toString('utf8', row.at, row.at! + row.size!))).toEqual(stories.get(row.id));
        const digest = sha256(bytes);
        expect(parseIndexRowsText(indexRowsText(layout, digest)!, { digest, bytes: bytes.length })).toEqual(fromLayout);
        previous = layout;
      }
    },
  );
});

describe('the text of a record', () => {
  function version(next: () => number, id: number): StoryVersion {
    const story = {
      id,
      uuid: `u-${id}`,
      name: words(next),
      slug: `s-${id}`,
      full_slug: `s-${id}`,
      content: {
        component: 'page',
        _uid: `c-${id}`,
        title: words(next),
        body: [{ component: 'text', text: words(next, 8) }],
        n: next(),
      },
    } as unknown as Story;
    const languages: StoryVersion['languages'] = {};
    for (const lang of ['de', 'fr', 'zh-CN']) {
      const roll = next();
      if (roll < 0.3) continue;
      languages[lang] = {
        full_slug: `${lang}/s-${id}`,
        name: words(next),
        content: { title: words(next), ...(next() < 0.5 ? { body: [{ text: words(next) }] } : {}) },
      };
      if (roll > 0.85) Object.assign(languages[lang], { $replace_content: true });
    }
    return Object.keys(languages).length ? { story, languages } : { story };
  }

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('slices parse to the story and to what each translation sets (seed %i)', (seed) => {
    const next = random(seed);
    const record: StoryRecord = { id: seed, uuid: `u-${seed}`, published: version(next, seed) };
    if (next() < 0.6) record.draft = version(next, seed);
    const text = canonicalJson(record);
    const parsed = JSON.parse(text) as StoryRecord;
    for (const key of ['published', 'draft'] as const) {
      const v = parsed[key];
      if (!v) {
        expect(versionStoryText(text, key)).toBeUndefined();
        continue;
      }
      expect(JSON.parse(versionStoryText(text, key)!)).toEqual(v.story);
      for (const [lang, overlay] of Object.entries(v.languages ?? {})) {
        const replace = Boolean((overlay as { $replace_content?: boolean }).$replace_content);
        const texts = overlayContentTexts(text, key, lang, overlay.content, replace)!;
        expect(texts.map((t) => JSON.parse(t) as unknown)).toEqual(
          replace ? [overlay.content] : Object.values(overlay.content!),
        );
      }
    }
  });
});

describe('the state of a snapshot', () => {
  it('read from disk is the manifest and the two indexes as written', async () => {
    const next = random(11);
    const dir = tempDir();
    const stories = new Map(Array.from({ length: 30 }, (_, k) => [k + 1, entry(next, k + 1)] as const));
    const datasources = new Map([[4, { id: 4, slug: 'colors', name: 'Colors', entries: 3, digest: 'abc' }]]);
    const manifest = {
      format: 1,
      api: 'v2',
      space: { id: 1, name: 'S', domain: 'https://example.com/', version: 5, language_codes: ['de'] },
      cv: 5,
      views: ['published'],
      languages: ['default', 'de'],
      counts: { stories: 30 },
      max_published_at: null,
      synced_at: '2026-01-01T00:00:00.000Z',
    };
    mkdirSync(path.join(dir, 'indexes'));
    await writeIndex(stories, path.join(dir, INDEX_FILES.stories));
    writeFileSync(path.join(dir, INDEX_FILES.datasources), sortedIndex(datasources));
    writeFileSync(path.join(dir, FILES.manifest), canonicalJson(manifest));
    const state = (await loadState(dir))!;
    expect(state.manifest).toEqual(manifest);
    expect(state.stories).toEqual(stories);
    expect(state.datasources).toEqual(datasources);
  });
});
