/**
 * Reading id, uuid, digest, content type and publication off the lines of a
 * stories index as sync writes it (what a compile needs), and refusing
 * anything laid out otherwise.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/snapshot/index.js';
import { scanIndexRows } from '../../src/sync/state.js';

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
    const entries = [entry(1, { component: 'Über-Seite "ü" \\ 記事' }), entry(2), entry(3, { name: 'Ärger', slugs: { default: 'ä/ö' } })];
    const bytes = Buffer.from(canonicalJson(entries));
    expect(scanIndexRows(bytes.toString('latin1'), true)).toEqual(rows(entries));
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
  });
});
