/**
 * Reading id, uuid, digest, content type, publication and where each entry
 * sits off the lines of a stories index as sync writes it (what a compile
 * needs), refusing anything laid out otherwise; and what sync writes in an
 * entry for links.
 */
import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/api/index.js';
import {
  canonicalJson,
  indexEntry,
  indexRowsText,
  parseIndexRowsText,
  scanIndexRows,
  sha256,
  sortedIndexPieces,
  type StoryIndexEntry,
  type StoryRecord,
  type StoryVersion,
} from '../../src/snapshot/index.js';
import { story } from '../compile/resolve/fixtures.js';

const entry = (id: number, extra: Record<string, unknown> = {}) => ({
  component: 'article',
  digest: `d${id}`.padEnd(16, '0'),
  full_slug: `blog/post-${id}`,
  id,
  is_startpage: false,
  name: `Post ${id}`,
  parent_id: 7,
  published: true,
  published_at: null,
  slugs: { de: `de/blog/post-${id}`, default: `blog/post-${id}`, id: `id/blog/post-${id}` },
  tag_list: ['a', 'b'],
  uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  ...extra,
});
const rows = (entries: Array<ReturnType<typeof entry>>) =>
  entries.map((e) => ({ id: e.id, uuid: e.uuid, digest: e.digest, component: e.component, published: e.published }));

describe('scanIndexRows', () => {
  it('reads every entry of a canonical index, as parsing it would', () => {
    const entries = [
      entry(3),
      entry(1000000001, { published: false, component: 'quote"d \\ type' }),
      entry(42, { name: 'Tricky\n    "id": 5,\n    "uuid": "x"', slugs: {} }),
    ];
    expect(scanIndexRows(canonicalJson(entries))).toEqual(rows(entries));
    expect(scanIndexRows(canonicalJson([]))).toEqual([]);
  });

  it('reads the bytes of the index as latin1, content types in any script included', () => {
    const entries = [
      entry(1, { component: 'Über-Seite "ü" \\ 記事' }),
      entry(2),
      entry(3, { name: 'Ärger', slugs: { default: 'ä/ö' } }),
    ];
    const bytes = Buffer.from(canonicalJson(entries));
    const read = scanIndexRows(bytes.toString('latin1'), bytes)!;
    expect(read.map(({ at: _at, size: _size, ...row }) => row)).toEqual(rows(entries));
    // Each row says where its entry's bytes are, multi-byte characters before it or not.
    expect(read.map((r) => JSON.parse(bytes.toString('utf8', r.at, r.at! + r.size!)) as unknown)).toEqual(entries);
    // Read as text, positions would be characters, not bytes: none are given.
    expect(scanIndexRows(bytes.toString('utf8'))!.some((r) => r.at !== undefined || r.size !== undefined)).toBe(false);
  });

  it('refuses text laid out otherwise, so that it is parsed instead', () => {
    const entries = [entry(1), entry(2)];
    expect(scanIndexRows(JSON.stringify(entries))).toBeUndefined();
    expect(scanIndexRows(JSON.stringify(entries, null, 4))).toBeUndefined();
    expect(scanIndexRows('{}')).toBeUndefined();
    expect(scanIndexRows('')).toBeUndefined();
  });

  it('refuses an index whose entries lack a key', () => {
    const { digest: _digest, ...noDigest } = entry(2);
    expect(scanIndexRows(canonicalJson([entry(1), noDigest, entry(3)]))).toBeUndefined();
    const { id: _id, ...noId } = entry(2);
    expect(scanIndexRows(canonicalJson([entry(1), noId]))).toBeUndefined();
    expect(scanIndexRows(canonicalJson([entry(1), { ...entry(2), id: 'two' }]))).toBeUndefined();
    const { component: _component, ...noComponent } = entry(2);
    expect(scanIndexRows(canonicalJson([entry(1), noComponent, entry(3)]))).toBeUndefined();
    expect(scanIndexRows(canonicalJson([entry(1), { ...entry(2), published: 'yes' }]))).toBeUndefined();
    // Nor can an entry borrow the next one's key.
    const { uuid: _uuid, ...noUuid } = entry(2);
    expect(scanIndexRows(canonicalJson([entry(1), noUuid, entry(3)]))).toBeUndefined();
  });

  it('refuses anything after the array, and entries not laid out one after the other', () => {
    const text = canonicalJson([entry(1), entry(2)]);
    expect(scanIndexRows(text)).toHaveLength(2);
    expect(scanIndexRows(`${text}\n`)).toHaveLength(2);
    expect(scanIndexRows(`${text.trimEnd()} x`)).toBeUndefined();
    expect(scanIndexRows(text.replace('\n  },\n  {\n', '\n  }\n  {\n'))).toBeUndefined();
    expect(scanIndexRows(text.replace('\n  },\n  {\n', '\n  },\n\n  {\n'))).toBeUndefined();
  });
});

describe('the rows file beside the index', () => {
  /** The index of these entries as sync writes it, its layout, and the rows file describing it. */
  async function written(entries: Array<ReturnType<typeof entry>>) {
    let layout: Parameters<typeof indexRowsText>[0] | undefined;
    const pieces: Uint8Array[] = [];
    const map = new Map(entries.map((e) => [e.id, e as unknown as StoryIndexEntry]));
    for await (const piece of sortedIndexPieces(map, undefined, (l) => (layout = l))) pieces.push(piece);
    const bytes = Buffer.concat(pieces);
    const digest = sha256(bytes);
    return { bytes, digest, rows: indexRowsText(layout!, digest) };
  }

  it('gives back the rows a scan of the index gives, and only for that index', async () => {
    const entries = [
      entry(3),
      entry(1000000001, { published: false, component: 'quote"d \\ type' }),
      entry(42, { component: 'Über-Seite 記事' }),
    ];
    const { bytes, digest, rows } = await written(entries);
    expect(bytes.toString('utf8')).toBe(canonicalJson([...entries].sort((a, b) => a.id - b.id)));
    const read = parseIndexRowsText(rows!, { digest, bytes: bytes.length });
    expect(read).toEqual(scanIndexRows(bytes.toString('latin1'), bytes));
    expect(parseIndexRowsText(rows!, { digest: sha256('other'), bytes: bytes.length })).toBeUndefined();
    expect(parseIndexRowsText(rows!, { digest, bytes: bytes.length - 1 })).toBeUndefined();
    const empty = await written([]);
    expect(parseIndexRowsText(empty.rows!, { digest: empty.digest, bytes: empty.bytes.length })).toEqual([]);
  });

  it('refuses a damaged rows file, and is not written for a uuid it cannot hold', async () => {
    const { bytes, digest, rows } = await written([entry(1), entry(2), entry(3)]);
    const index = { digest, bytes: bytes.length };
    const damaged = (change: (f: Record<string, unknown>) => void) => {
      const f = JSON.parse(rows!) as Record<string, unknown>;
      change(f);
      return parseIndexRowsText(JSON.stringify(f), index);
    };
    expect(damaged(() => undefined)).toHaveLength(3);
    expect(damaged((f) => (f.published = '10'))).toBeUndefined();
    expect(damaged((f) => (f.published = '1x1'))).toBeUndefined();
    expect(damaged((f) => (f.ids = '1 1 0'))).toBeUndefined();
    expect(
      damaged((f) => (f.sizes = (f.sizes as string).replace(/^\d+/, (n) => String(Number(n) + 1)))),
    ).toBeUndefined();
    expect(damaged((f) => (f.component = '0 0 7'))).toBeUndefined();
    expect(damaged((f) => delete f.uuids)).toBeUndefined();
    expect(parseIndexRowsText('not json', index)).toBeUndefined();
    expect((await written([entry(1, { uuid: 'has a space' })])).rows).toBeUndefined();
  });
});

describe('indexEntry: what a link shows, in every language', () => {
  const base = {
    ...story(5, { component: 'article' }, { name: 'Post', slug: 'post', full_slug: 'blog/post' }),
    path: 'custom/post',
  } as Story;
  const languages = ['default', 'de', 'fr', 'it'];
  const version = (languagesOf: Record<string, Record<string, unknown>>) =>
    ({ story: base, languages: languagesOf }) as StoryVersion;

  it('the default slug and path, and only the languages that show other ones', () => {
    const record: StoryRecord = {
      id: 5,
      uuid: base.uuid,
      published: version({
        de: { full_slug: 'de/blog/beitrag', lang: 'de', name: 'Beitrag' },
        fr: { full_slug: 'fr/blog/billet', lang: 'fr', slug: 'billet', path: null },
      }),
    };
    const e = indexEntry(record, canonicalJson(record), languages);
    expect(e).toMatchObject({
      slug: 'post',
      path: 'custom/post',
      slugs: { default: 'blog/post', de: 'de/blog/beitrag', fr: 'fr/blog/billet', it: 'it/blog/post' },
    });
    // Italian has no variant: it shows the default's.
    expect(e.link_fields).toEqual({ de: { name: 'Beitrag' }, fr: { slug: 'billet', path: null } });
  });

  it('no link_fields when every language shows the default name, slug and path; a path that is no string is none', () => {
    const record: StoryRecord = {
      id: 5,
      uuid: base.uuid,
      published: { story: { ...base, path: 42 } as unknown as Story },
    };
    const e = indexEntry(record, canonicalJson(record), languages);
    expect(e.path).toBeNull();
    expect('link_fields' in e).toBe(false);
  });
});
