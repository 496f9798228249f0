import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, startTestServer, type TestServer } from '../../helpers/server.js';
import { PUBLISHED_IDS, ids, uuidOf } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const list = (params: Record<string, string>, token?: string) => server.api('/v2/cdn/stories', params, token);
const listV1 = (params: Record<string, string>, token?: string) => server.api('/v1/cdn/stories', params, token);

describe('contract "GET /v1/cdn/stories": story list', () => {
  it('contract "Story list": { stories } in space order with Total and Per-Page (v1 and v2, with or without trailing slash)', async () => {
    for (const path of ['/v1/cdn/stories', '/v1/cdn/stories/', '/v2/cdn/stories', '/v2/cdn/stories/']) {
      const r = await server.api(path);
      expect(r.status).toBe(200);
      expect(ids(r.body)).toEqual(PUBLISHED_IDS);
      expect(r.headers.get('total')).toBe('10');
      expect(r.headers.get('per-page')).toBe('25');
    }
  });

  it('contract "Story list": no match is 200 with an empty array, never 404', async () => {
    const r = await list({ starts_with: 'nothing-here/' });
    expect(r.status).toBe(200);
    expect(r.body.stories).toEqual([]);
    expect(r.headers.get('total')).toBe('0');
  });

  it('contract "starts_with": a full_slug prefix, the folder start page included', async () => {
    expect(ids((await list({ starts_with: 'blog/' })).body)).toEqual([11, 12, 13, 14]);
    expect(ids((await list({ starts_with: 'products' })).body)).toEqual([19, 20]);
    expect(ids((await listV1({ starts_with: 'authors/' })).body)).toEqual([16, 17]);
  });

  it('contract "by_uuids": comma-separated uuids, in space order', async () => {
    expect(ids((await list({ by_uuids: `${uuidOf(17)},${uuidOf(12)}` })).body)).toEqual([12, 17]);
  });

  it('contract "by_uuids_ordered": the result follows the given sequence', async () => {
    expect(ids((await list({ by_uuids_ordered: `${uuidOf(17)},${uuidOf(10)},${uuidOf(12)}` })).body)).toEqual([
      17, 10, 12,
    ]);
  });

  it('contract "by_slugs": exact full slugs and * wildcards; the trailing slash matters', async () => {
    expect(ids((await list({ by_slugs: 'authors/jane,products/shoes/trail' })).body)).toEqual([16, 20]);
    expect(ids((await list({ by_slugs: 'products/*' })).body)).toEqual([19, 20]);
    expect(ids((await list({ by_slugs: 'blog/' })).body)).toEqual([11]);
    expect(ids((await list({ by_slugs: 'blog' })).body)).toEqual([]);
  });

  it('contract "excluding_slugs": full slugs to leave out, * allowed', async () => {
    expect(ids((await list({ excluding_slugs: 'blog/*,home' })).body)).toEqual([16, 17, 18, 19, 20]);
  });

  it('contract "excluding_ids": numeric ids to leave out', async () => {
    expect(ids((await list({ excluding_ids: '10,12,20' })).body)).toEqual([11, 13, 14, 16, 17, 18, 19]);
  });

  it('contract "excluding_fields" / notes: top-level content fields are dropped, component and _uid stay', async () => {
    const r = await list({ by_slugs: 'blog/first-post', excluding_fields: 'title,seo,body' });
    const content = r.body.stories[0].content;
    expect(content).not.toHaveProperty('title');
    expect(content).not.toHaveProperty('seo');
    expect(content).not.toHaveProperty('body');
    expect(content.component).toBe('article');
    expect(content._uid).toBe('uid-12');
    expect(content.rating).toBe('5');
  });

  it('contract "is_startpage": 1 gives only start pages, 0 leaves them out', async () => {
    expect(ids((await list({ is_startpage: '1' })).body)).toEqual([11]);
    expect(ids((await list({ is_startpage: '0' })).body)).toEqual([10, 12, 13, 14, 16, 17, 18, 19, 20]);
  });

  it('contract "with_tag" / notes: several tags are an OR', async () => {
    expect(ids((await list({ with_tag: 'news' })).body)).toEqual([12, 13]);
    expect(ids((await list({ with_tag: 'news,shop' })).body)).toEqual([12, 13, 19, 20]);
  });

  it('contract "first_published_at_gt / _lt": after / before the first publishing date', async () => {
    expect(ids((await list({ first_published_at_gt: '2024-03-10 00:00' })).body)).toEqual([13, 14]);
    expect(ids((await list({ first_published_at_lt: '2024-03-10 00:00', starts_with: 'blog/' })).body)).toEqual([
      11, 12,
    ]);
  });

  it('contract "published_at_gt / _lt": after / before the latest publishing date', async () => {
    expect(ids((await list({ published_at_gt: '2024-03-15 00:00' })).body)).toEqual([13, 14]);
    expect(ids((await list({ published_at_lt: '2024-02-15 00:00' })).body)).toEqual([10, 11, 16, 17, 18, 19, 20]);
  });

  it('notes "Status codes": published_at_gte/lte and first_published_at_gte/lte are accepted and inclusive', async () => {
    expect(ids((await list({ published_at_gte: '2024-04-01 08:00' })).body)).toEqual([13, 14]);
    expect(ids((await list({ published_at_lte: '2024-03-01 08:00', starts_with: 'blog/' })).body)).toEqual([11, 12]);
    expect(ids((await list({ first_published_at_gte: '2024-03-15 08:00' })).body)).toEqual([13, 14]);
    expect(ids((await list({ first_published_at_lte: '2024-03-01 08:00', starts_with: 'blog/' })).body)).toEqual([
      11, 12,
    ]);
  });

  it('notes "Status codes": updated_at_gt / updated_at_lt are accepted', async () => {
    expect(ids((await list({ updated_at_gt: '2024-05-01 00:00' })).body)).toEqual(PUBLISHED_IDS);
    expect(ids((await list({ updated_at_lt: '2024-05-01 00:00' })).body)).toEqual([]);
  });

  it('contract "Version 2 additionally accepts content_type": stories of that content type', async () => {
    expect(ids((await list({ content_type: 'author' })).body)).toEqual([16, 17]);
  });

  it('contract "level" / notes: stories whose full_slug has that many segments, start pages excluded', async () => {
    expect(ids((await list({ level: '1' })).body)).toEqual([10]);
    expect(ids((await list({ level: '2' })).body)).toEqual([12, 13, 14, 16, 17, 18]);
    expect(ids((await list({ level: '3' })).body)).toEqual([19, 20]);
  });

  it('contract "by_ids": comma-separated numeric ids', async () => {
    expect(ids((await list({ by_ids: '20,12,16' })).body)).toEqual([12, 16, 20]);
  });

  it('contract "resolve_assets": resolve_assets=1 adds a top-level assets array; empty assets are left out', async () => {
    const r = await list({ starts_with: 'products/', resolve_assets: '1' });
    expect(r.status).toBe(200);
    expect(r.body.assets.map((a: { id: number }) => a.id)).toEqual([501]);
    const without = await list({ starts_with: 'products/' });
    expect(without.body).not.toHaveProperty('assets');
  });

  it('notes "Status codes": parameters real v2 clients send are accepted without 422', async () => {
    const r = await list({
      resolve_level: '2',
      resolve_links_level: '1',
      only_variants: 'false',
      excluding_story_fields: 'alternates',
      published_at_gte: '2000-01-01 00:00',
      published_at_lte: '2100-01-01 00:00',
      first_published_at_gte: '2000-01-01 00:00',
      first_published_at_lte: '2100-01-01 00:00',
      updated_at_gt: '2000-01-01 00:00',
      updated_at_lt: '2100-01-01 00:00',
    });
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(PUBLISHED_IDS);
    expect(r.body.stories[0]).not.toHaveProperty('alternates');
  });

  it('contract "from_release": stories in the version of a release', async () => {
    const r = await list({ by_slugs: 'blog/*', from_release: '7' });
    const second = r.body.stories.find((s: { id: number }) => s.id === 13);
    expect(second.content.title).toBe('Beta story (release)');
    const first = r.body.stories.find((s: { id: number }) => s.id === 12);
    expect(first.content.title).toBe('Alpha news');
  });

  it('contract "in_workflow_stages": stories in the given workflow stages', async () => {
    expect(ids((await list({ in_workflow_stages: '1' })).body)).toEqual([10, 12, 14, 16, 18, 20]);
    expect(ids((await list({ in_workflow_stages: '2' })).body)).toEqual([11, 13, 17, 19]);
    expect(ids((await list({ in_workflow_stages: '1,2' })).body)).toEqual(PUBLISHED_IDS);
  });

  it('contract "version": version=draft with the preview token shows the draft-only story and edited drafts', async () => {
    const r = await list({ starts_with: 'blog/', version: 'draft' }, PREVIEW);
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual([11, 12, 13, 14, 15]);
    expect(r.body.stories[1].content.title).toBe('Alpha news (edited)');
    expect(r.headers.get('total')).toBe('5');
    const v1 = await listV1({ starts_with: 'blog/', version: 'draft' }, PREVIEW);
    expect(ids(v1.body)).toEqual([11, 12, 13, 14, 15]);
  });

  it('contract "version": the default view is published, even for the preview token', async () => {
    const r = await list({ starts_with: 'blog/' }, PREVIEW);
    expect(ids(r.body)).toEqual([11, 12, 13, 14]);
    expect(r.body.stories[1].content.title).toBe('Alpha news');
  });

  it('contract "Response envelopes": v2 lists carry cv, rels and links; v1 only stories', async () => {
    const v2 = await list({ per_page: '1' });
    expect(Object.keys(v2.body).sort()).toEqual(['cv', 'links', 'rels', 'stories']);
    expect(v2.body.rels).toEqual([]);
    expect(v2.body.links).toEqual([]);
    const v1 = await listV1({ per_page: '1' });
    expect(Object.keys(v1.body)).toEqual(['stories']);
  });
});
