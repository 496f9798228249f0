import { describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { LinkObject, LinkUrl } from '../../../src/api/index.js';
import { resolveV2 } from '../../../src/server/resolve/index.js';
import { deepFreeze, folder, sourceOf, story, storyLinkField } from './helpers.js';

const c = story({ uuid: 'c', id: 3, slug: 'c', full_slug: 'c' });
const b = story({
  uuid: 'b',
  id: 2,
  slug: 'b',
  full_slug: 'blog/b',
  parent_id: 10,
  position: -5,
  content: { component: 'post', _uid: 'b', related: 'c', cta: storyLinkField('c') },
});
const home = story({
  uuid: 'home',
  id: 1,
  slug: 'home',
  full_slug: 'home',
  is_startpage: true,
  path: '/',
  translated_slugs: [{ path: 'accueil', name: 'Accueil', lang: 'fr' }],
});
const blog = folder({
  uuid: 'blog',
  id: 10,
  slug: 'blog',
  full_slug: 'blog',
  translated_slugs: [{ lang: 'fr', path: 'journal', name: 'Journal' }],
});
const space = deepFreeze([b, c, home]);
const source = sourceOf(space, deepFreeze([blog]));

function page(uuid: string, content: Record<string, unknown>): Story {
  return deepFreeze(story({ uuid, content: { component: 'post', _uid: uuid, ...content } }));
}

describe('v2 relations', () => {
  it('rels hold the stories as stored; relations inside them are not resolved', () => {
    const a = page('a', { related: 'b' });
    const extras = resolveV2([a], { relations: ['post.related'] }, source);
    expect(extras.rels).toHaveLength(1);
    expect(extras.rels[0]).toBe(b);
    expect(a.content.related).toBe('b');
  });

  it('a list shares one rels array, unique by uuid, also when referenced by id', () => {
    const a1 = page('a1', { related: ['c', 'b'] });
    const a2 = page('a2', { related: 2, other: { component: 'post', _uid: 'x', related: '3' } });
    const extras = resolveV2([a1, a2], { relations: ['post.related'] }, source);
    expect(extras.rels.map((s) => s.uuid)).toEqual(['c', 'b']);
  });

  it('rels follow document order, including relations in nested bloks and rich text', () => {
    const a = page('a', {
      body: [{ component: 'post', _uid: 'n', related: 'c' }],
      text: {
        type: 'doc',
        content: [{ type: 'blok', attrs: { body: [{ component: 'post', _uid: 'r', related: 'home' }] } }],
      },
      related: 'b',
    });
    const extras = resolveV2([a], { relations: ['post.related'] }, source);
    expect(extras.rels.map((s) => s.uuid)).toEqual(['c', 'home', 'b']);
  });

  it('a story relating to itself and to a story that relates back ends', () => {
    const a = story({ uuid: 'a', content: { component: 'node', _uid: 'a', next: ['z', 'a'] } });
    const z = story({ uuid: 'z', content: { component: 'node', _uid: 'z', next: ['a'] } });
    const extras = resolveV2([a, z], { relations: ['node.next'] }, sourceOf(deepFreeze([a, z])));
    expect(extras.rels).toEqual([z, a]);
  });

  it('without relations asked, rels is empty', () => {
    expect(resolveV2([page('a', { related: 'b' })], { relations: [] }, source)).toEqual({ rels: [], links: [] });
  });
});

describe('v2 links', () => {
  const a = page('a', {
    cta: storyLinkField('b'),
    nav: [storyLinkField('blog'), storyLinkField('home'), storyLinkField('missing'), storyLinkField('b')],
    text: {
      type: 'doc',
      content: [
        { type: 'text', text: 'c', marks: [{ type: 'link', attrs: { href: '/c', uuid: 'c', linktype: 'story' } }] },
      ],
    },
  });

  it('story: the target stories as stored, folders marked is_folder', () => {
    const extras = resolveV2([a], { relations: [], links: 'story' }, source);
    expect(extras.links).toEqual([b, { ...blog, is_folder: true }, home, c]);
    expect(extras.links[0]).toBe(b);
    expect(extras).not.toHaveProperty('link_uuids');
  });

  it('url: compact objects; a story with a real path gives it as url', () => {
    const extras = resolveV2([a], { relations: [], links: 'url' }, source);
    expect(extras.links).toEqual([
      { id: 2, uuid: 'b', name: b.name, slug: 'b', full_slug: 'blog/b', url: 'blog/b' },
      { id: 10, uuid: 'blog', name: blog.name, slug: 'blog', full_slug: 'blog', url: 'blog' },
      { id: 1, uuid: 'home', name: home.name, slug: 'home', full_slug: 'home', url: '/' },
      { id: 3, uuid: 'c', name: c.name, slug: 'c', full_slug: 'c', url: 'c' },
    ]);
    for (const link of extras.links) LinkUrl.parse(link);
  });

  it('link: routing properties, with translated slugs when the target has them', () => {
    const extras = resolveV2([a], { relations: [], links: 'link' }, source);
    expect(extras.links).toEqual([
      {
        id: 2,
        uuid: 'b',
        slug: 'blog/b',
        full_slug: 'blog/b',
        name: b.name,
        is_folder: false,
        parent_id: 10,
        published: true,
        position: -5,
        is_startpage: false,
        real_path: '/blog/b',
      },
      {
        id: 10,
        uuid: 'blog',
        slug: 'blog',
        full_slug: 'blog',
        name: blog.name,
        is_folder: true,
        parent_id: 0,
        published: false,
        position: 0,
        is_startpage: false,
        real_path: '/blog',
        translated_slugs: blog.translated_slugs,
      },
      {
        id: 1,
        uuid: 'home',
        slug: 'home',
        full_slug: 'home',
        name: home.name,
        is_folder: false,
        parent_id: 0,
        published: true,
        position: 0,
        is_startpage: true,
        real_path: '/',
        translated_slugs: home.translated_slugs,
      },
      {
        id: 3,
        uuid: 'c',
        slug: 'c',
        full_slug: 'c',
        name: c.name,
        is_folder: false,
        parent_id: 0,
        published: true,
        position: 0,
        is_startpage: false,
        real_path: '/c',
      },
    ]);
    for (const link of extras.links) LinkObject.parse(link);
  });

  it('content keeps its uuids and cached urls', () => {
    const before = JSON.stringify(a);
    resolveV2([a], { relations: ['post.related'], links: 'story', assets: true }, source);
    expect(JSON.stringify(a)).toBe(before);
  });

  it('links inside linked stories are not followed', () => {
    const extras = resolveV2([page('a', { cta: storyLinkField('b') })], { relations: [], links: 'url' }, source);
    expect(extras.links.map((l) => l.uuid)).toEqual(['b']);
  });

  it('without links asked, links is empty even when content has some', () => {
    expect(resolveV2([a], { relations: [] }, source).links).toEqual([]);
  });
});

describe('v2 assets', () => {
  const asset = (id: unknown, filename: unknown, extra: Record<string, unknown> = {}) => ({
    fieldtype: 'asset',
    id,
    filename,
    alt: '',
    ...extra,
  });

  it('unique by id across a list, first seen first, only known keys', () => {
    const a = page('a', {
      image: asset(5, 'a.jpg', { meta_data: { size: 1 }, is_external_url: false, _uid: 'ignored' }),
      gallery: [{ id: 6, filename: 'g.jpg' }],
    });
    const z = page('z', {
      image: asset(5, 'other.jpg'),
      body: [{ component: 'img', _uid: 'i', img: asset(7, 'b.png') }],
    });
    const extras = resolveV2([a, z], { relations: [], assets: true }, source);
    expect(extras.assets).toEqual([
      { id: 5, filename: 'a.jpg', alt: '', is_external_url: false, meta_data: { size: 1 } },
      { id: 6, filename: 'g.jpg' },
      { id: 7, filename: 'b.png', alt: '' },
    ]);
  });

  it('not assets: empty ones, non-numeric ids, bloks and links that look alike, lone objects outside arrays', () => {
    const a = page('a', {
      empty: asset(null, ''),
      noFile: asset(1, ''),
      stringId: asset('2', 'x.jpg'),
      loose: { id: 3, filename: 'loose.jpg' },
      items: [
        { component: 'img', _uid: 'i', id: 4, filename: 'blok.jpg' },
        { linktype: 'asset', id: 5, filename: 'l.jpg' },
        '',
      ],
      image: { type: 'image', attrs: { id: 6, src: 'x.jpg' } },
    });
    expect(resolveV2([a], { relations: [], assets: true }, source).assets).toEqual([]);
  });

  it('absent unless asked', () => {
    const a = page('a', { image: asset(5, 'a.jpg') });
    expect(resolveV2([a], { relations: [] }, source)).not.toHaveProperty('assets');
  });
});
