import { describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { resolveV1, resolveV2 } from '../../../src/server/resolve/index.js';
import { deepFreeze, sourceOf, story, storyLinkField, uuid } from './helpers.js';

const targets = deepFreeze(Array.from({ length: 130 }, (_, i) => story({ uuid: uuid(i + 1), slug: `t-${i + 1}` })));
const uuids = (n: number, from = 0) => targets.slice(from, from + n).map((t) => t.uuid);

function withRelations(refs: string[]): Story {
  return deepFreeze(story({ uuid: 'page', content: { component: 'page', _uid: 'p', related: refs } }));
}

function withLinks(refs: string[]): Story {
  const body = refs.map((ref, i) => ({ component: 'teaser', _uid: `t${i}`, link: storyLinkField(ref) }));
  return deepFreeze(story({ uuid: 'page', content: { component: 'page', _uid: 'p', body } }));
}

const source = sourceOf([...targets]);

describe('v2 relations: 50 per request', () => {
  it('60 related stories: the first 50 in rels, the other 10 uuids in rel_uuids', () => {
    const extras = resolveV2([withRelations(uuids(60))], { relations: ['page.related'] }, source);
    expect(extras.rels).toEqual(targets.slice(0, 50));
    expect(extras.rel_uuids).toEqual(uuids(10, 50));
  });

  it('exactly 50: no rel_uuids', () => {
    const extras = resolveV2([withRelations(uuids(50))], { relations: ['page.related'] }, source);
    expect(extras.rels).toHaveLength(50);
    expect(extras).not.toHaveProperty('rel_uuids');
  });

  it('the limit is per request, across the stories of a list, and duplicates count once', () => {
    const a = withRelations(uuids(30));
    const b = withRelations([...uuids(10, 20), ...uuids(30, 30)]);
    const extras = resolveV2([a, b], { relations: ['page.related'] }, source);
    expect(extras.rels.map((s) => s.uuid)).toEqual(uuids(50));
    expect(extras.rel_uuids).toEqual(uuids(10, 50));
  });

  it('missing targets take no place in rels and are not listed', () => {
    const refs = [...uuids(25), 'missing-1', ...uuids(30, 25), 'missing-2'];
    const extras = resolveV2([withRelations(refs)], { relations: ['page.related'] }, source);
    expect(extras.rels).toHaveLength(50);
    expect(extras.rel_uuids).toEqual(uuids(5, 50));
  });

  it('overflowUuids all: every uuid is listed, for clients that refetch them all', () => {
    const extras = resolveV2([withRelations(uuids(60))], { relations: ['page.related'], overflowUuids: 'all' }, source);
    expect(extras.rels).toHaveLength(50);
    expect(extras.rel_uuids).toEqual(uuids(60));
  });
});

describe('v2 links: 50 with story, 100 with url and link', () => {
  it('120 url links: 100 in links, 20 uuids in link_uuids', () => {
    const extras = resolveV2([withLinks(uuids(120))], { relations: [], links: 'url' }, source);
    expect(extras.links).toHaveLength(100);
    expect(extras.links[99]).toMatchObject({ uuid: uuid(100), url: 't-100' });
    expect(extras.link_uuids).toEqual(uuids(20, 100));
  });

  it('120 routing links: 100 + 20', () => {
    const extras = resolveV2([withLinks(uuids(120))], { relations: [], links: 'link' }, source);
    expect(extras.links).toHaveLength(100);
    expect(extras.link_uuids).toEqual(uuids(20, 100));
  });

  it('60 story links: 50 stories + 10 uuids', () => {
    const extras = resolveV2([withLinks(uuids(60))], { relations: [], links: 'story' }, source);
    expect(extras.links).toEqual(targets.slice(0, 50));
    expect(extras.link_uuids).toEqual(uuids(10, 50));
  });

  it('100 url links, some twice: no link_uuids', () => {
    const extras = resolveV2([withLinks([...uuids(100), ...uuids(100)])], { relations: [], links: 'url' }, source);
    expect(extras.links).toHaveLength(100);
    expect(extras).not.toHaveProperty('link_uuids');
  });
});

describe('v1 limits are per story', () => {
  it('relations: the first 100 distinct stories are nested, later uuids stay', () => {
    const page = withRelations([...uuids(120), uuid(1)]);
    const related = resolveV1(page, { relations: ['page.related'] }, source).content.related as unknown[];
    expect(related.slice(0, 100)).toEqual(targets.slice(0, 100));
    expect(related.slice(100, 120)).toEqual(uuids(20, 100));
    // A story already nested is nested again wherever it is referenced.
    expect(related[120]).toBe(targets[0]);
  });

  it('url links: 100 distinct targets, later multilinks stay as they are', () => {
    const page = withLinks(uuids(120));
    const body = resolveV1(page, { relations: [], links: 'url' }, source).content.body as Array<{
      link: Record<string, unknown>;
    }>;
    expect(body[99]!.link.story).toMatchObject({ uuid: uuid(100) });
    expect(body[99]!.link.cached_url).toBe('t-100');
    expect(body[100]).toBe((page.content.body as unknown[])[100]);
    expect(body[119]!.link).not.toHaveProperty('story');
  });

  it('story links: 50 distinct targets', () => {
    const page = withLinks(uuids(60));
    const body = resolveV1(page, { relations: [], links: 'story' }, source).content.body as Array<{
      link: Record<string, unknown>;
    }>;
    expect(body.filter((b) => 'story' in b.link)).toHaveLength(50);
    expect(body[49]!.link.story).toBe(targets[49]);
    expect(body[50]!.link.cached_url).toBe('old/path');
  });
});
