import { describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { resolveV1 } from '../../../src/server/resolve/index.js';
import { deepFreeze, folder, sourceOf, story, storyLinkField } from './helpers.js';

const author = story({
  uuid: 'author',
  id: 7,
  slug: 'jane',
  full_slug: 'people/jane',
  content: { component: 'person', _uid: 'a', articles: ['article'] },
});
const editor = story({ uuid: 'editor', id: 8, slug: 'joe', full_slug: 'people/joe' });
const people = folder({ uuid: 'people-folder', slug: 'people', full_slug: 'people', id: 70 });
const source = sourceOf(deepFreeze([author, editor]), deepFreeze([people]));

function page(content: Record<string, unknown>): Story {
  return deepFreeze(story({ uuid: 'article', content: { component: 'article', _uid: 'root', ...content } }));
}

describe('v1 relations', () => {
  it('resolve anywhere in the content: root, nested bloks in arrays and objects, bloks inside rich text', () => {
    const input = page({
      author: 'author',
      body: [{ component: 'section', _uid: 's', columns: [{ component: 'quote', _uid: 'q', by: 'editor' }] }],
      sidebar: { component: 'quote', _uid: 'q2', by: ['author', 'editor'] },
      text: {
        type: 'doc',
        content: [{ type: 'blok', attrs: { id: 'b', body: [{ component: 'quote', _uid: 'q3', by: 'author' }] } }],
      },
    });
    const out = resolveV1(input, { relations: ['article.author', 'quote.by'] }, source).content as any;
    expect(out.author).toBe(author);
    expect(out.body[0].columns[0].by).toBe(editor);
    expect(out.sidebar.by).toEqual([author, editor]);
    expect(out.text.content[0].attrs.body[0].by).toBe(author);
  });

  it('numeric ids and numeric strings are looked up by id', () => {
    const input = page({ author: 7, co: ['8', 7, 'author'] });
    const out = resolveV1(input, { relations: ['article.author', 'article.co'] }, source).content as any;
    expect(out.author).toBe(author);
    expect(out.co).toEqual([editor, author, author]);
  });

  it('values that name nothing stay as they are, item by item', () => {
    const odd = { component: 'x', _uid: 'x' };
    const input = page({ co: ['missing', 'author', '', null, 99, odd, 1.5, '12345678901234567890'] });
    const out = resolveV1(input, { relations: ['article.co'] }, source).content as any;
    expect(out.co).toEqual(['missing', author, '', null, 99, odd, 1.5, '12345678901234567890']);
    expect(out.co[5]).toBe(odd);
  });

  it('nests the related story as stored: its own relations are not resolved', () => {
    const out = resolveV1(page({ author: 'author' }), { relations: ['article.author', 'person.articles'] }, source);
    expect(out.content.author).toBe(author);
    expect((out.content.author as Story).content.articles).toEqual(['article']);
  });

  it('cycles end: A relates to B relates to A, and a story relating to itself', () => {
    const a = story({ uuid: 'a', content: { component: 'node', _uid: 'a', next: 'b', self: 'a' } });
    const b = story({ uuid: 'b', content: { component: 'node', _uid: 'b', next: 'a' } });
    const cyclic = sourceOf(deepFreeze([a, b]));
    const out = resolveV1(a, { relations: ['node.next', 'node.self'] }, cyclic);
    expect(out.content.next).toBe(b);
    expect(out.content.self).toBe(a);
    expect(b.content.next).toBe('a');
    expect(() => JSON.stringify(out)).not.toThrow();
  });

  it('copies only the path to a change; untouched subtrees stay shared', () => {
    const input = page({
      hero: { component: 'hero', _uid: 'h', image: { id: 1, filename: 'x.jpg', fieldtype: 'asset' } },
      body: [
        { component: 'text', _uid: 't1', text: 'a' },
        { component: 'quote', _uid: 'q', by: 'editor', more: { component: 'text', _uid: 't2' } },
      ],
    });
    const out = resolveV1(input, { relations: ['quote.by'] }, source);
    const c = input.content as any;
    const o = out.content as any;
    expect(out).not.toBe(input);
    expect(o).not.toBe(c);
    expect(o.hero).toBe(c.hero);
    expect(o.body).not.toBe(c.body);
    expect(o.body[0]).toBe(c.body[0]);
    expect(o.body[1]).not.toBe(c.body[1]);
    expect(o.body[1].more).toBe(c.body[1].more);
    expect(Object.keys(o.body[1])).toEqual(Object.keys(c.body[1]));
  });

  it('without anything to resolve, returns a copy that shares the content', () => {
    const input = page({ author: 'author' });
    const out = resolveV1(input, { relations: [] }, source);
    expect(out).not.toBe(input);
    expect(out).toEqual(input);
    expect(out.content).toBe(input.content);
  });
});

describe('v1 links', () => {
  it('story: a multilink gets the target as stored and its current full slug in cached_url', () => {
    const input = page({ cta: storyLinkField('author', 'old/jane') });
    const out = resolveV1(input, { relations: [], links: 'story' }, source).content as any;
    expect(out.cta).toEqual({ ...storyLinkField('author', 'people/jane'), story: author });
    expect(out.cta.story).toBe(author);
  });

  it('url: the compact object', () => {
    const out = resolveV1(page({ cta: storyLinkField('author') }), { relations: [], links: 'url' }, source)
      .content as any;
    expect(out.cta.story).toEqual({
      name: author.name,
      id: 7,
      uuid: 'author',
      slug: 'jane',
      full_slug: 'people/jane',
      url: 'people/jane',
    });
  });

  it('an item without fieldtype but with linktype story is a link too; other linktypes are not', () => {
    const legacy = { id: 'author', linktype: 'story', cached_url: 'x' };
    const url = {
      id: 'author',
      linktype: 'url',
      fieldtype: 'multilink',
      url: 'https://example.com',
      cached_url: 'https://example.com',
    };
    const out = resolveV1(page({ items: [legacy, url] }), { relations: [], links: 'url' }, source).content as any;
    expect(out.items[0]).toMatchObject({ cached_url: 'people/jane', story: { uuid: 'author' } });
    expect(out.items[1]).toBe(url as unknown as object);
  });

  it('a folder can be the target', () => {
    const input = page({ cta: storyLinkField('people-folder', 'staff') });
    const asUrl = resolveV1(input, { relations: [], links: 'url' }, source).content as any;
    expect(asUrl.cta.story).toEqual({
      name: people.name,
      id: 70,
      uuid: 'people-folder',
      slug: 'people',
      full_slug: 'people',
      url: 'people',
    });
    expect(asUrl.cta.cached_url).toBe('people');
    const asStory = resolveV1(input, { relations: [], links: 'story' }, source).content as any;
    expect(asStory.cta.story).toEqual({ ...people, is_folder: true });
  });

  it('links to missing targets stay as they are', () => {
    const input = page({ cta: storyLinkField('gone') });
    const out = resolveV1(input, { relations: [], links: 'story' }, source);
    expect(out.content).toBe(input.content);
  });

  it('rich-text marks: attrs.story is added; a cached site path in href is refreshed, other hrefs are kept', () => {
    const mark = (href: unknown) => ({
      type: 'link',
      attrs: { href, uuid: 'author', anchor: null, target: '_self', linktype: 'story' },
    });
    const text = (href: unknown) => ({ type: 'text', text: 'x', marks: [{ type: 'bold' }, mark(href)] });
    const input = page({
      text: {
        type: 'doc',
        content: [
          {
            type: 'paragraph',
            content: [text('/old/jane'), text('https://example.com/jane'), text(''), text(null), text('//cdn/x')],
          },
        ],
      },
    });
    const out = resolveV1(input, { relations: [], links: 'story' }, source).content as any;
    const hrefs = out.text.content[0].content.map((t: any) => t.marks[1].attrs.href);
    expect(hrefs).toEqual(['/people/jane', 'https://example.com/jane', '', null, '//cdn/x']);
    for (const t of out.text.content[0].content) expect(t.marks[1].attrs.story).toBe(author);
    expect(out.text.content[0].content[0].marks[0]).toBe((input.content as any).text.content[0].content[0].marks[0]);
  });

  it('link mode does not exist in v1 and resolves nothing', () => {
    const input = page({ cta: storyLinkField('author') });
    expect(resolveV1(input, { relations: [], links: 'link' }, source).content).toBe(input.content);
  });

  it('relations and links in one blok', () => {
    const input = page({ body: [{ component: 'card', _uid: 'c', person: 'editor', link: storyLinkField('author') }] });
    const out = resolveV1(input, { relations: ['card.person'], links: 'url' }, source).content as any;
    expect(out.body[0].person).toBe(editor);
    expect(out.body[0].link.story.uuid).toBe('author');
  });
});
