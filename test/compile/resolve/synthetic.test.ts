import { describe, expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import type { Folder } from '../../../src/snapshot/index.js';
import { backlinks, createResolver, missingReport, type StoryLookup } from '../../../src/compile/resolve/index.js';
import { changedKeys, originalOf, setOwn, shallowCopy } from '../../../src/resolve/index.js';
import { deepFreeze } from '../../helpers/freeze.js';
import { story, uuid } from './fixtures.js';

function lookupOf(stories: readonly Story[], folders: readonly Folder[] = []): StoryLookup & { calls: number } {
  const byUuid = new Map(stories.map((s) => [s.uuid, s]));
  const byId = new Map(stories.map((s) => [s.id, s]));
  const folderByUuid = new Map(folders.map((f) => [f.uuid, f]));
  const lookup = {
    calls: 0,
    byUuid(u: string) {
      lookup.calls++;
      return byUuid.get(u);
    },
    byId(id: number) {
      lookup.calls++;
      return byId.get(id);
    },
    folderByUuid(u: string) {
      return folderByUuid.get(u);
    },
  };
  return lookup;
}

const storyLink = (target: string, cached = 'old/path') => ({
  id: target,
  url: '',
  linktype: 'story',
  fieldtype: 'multilink',
  cached_url: cached,
});

describe('depth and cycles', () => {
  // An article names its author; the author lists the article: A <-> B. A page features both.
  const A = story(1, { component: 'article', author: uuid(2) }, { name: 'A' });
  const B = story(2, { component: 'author', articles: [uuid(1)] }, { name: 'B' });
  const C = story(3, { featured: [uuid(1), uuid(2)] }, { name: 'C' });
  const space = deepFreeze([A, B, C]);
  const relations = ['article.author', 'author.articles', 'page.featured'];
  const at = (depth: number) => createResolver({ relations, depth }, lookupOf(space));
  const c = (s: Story) => s.content as Record<string, any>;

  it('depth 1: targets are embedded as they are', () => {
    const r = at(1);
    expect(c(r.resolve(A).story).author).toBe(B);
    expect(c(r.resolve(B).story).articles[0]).toBe(A);
    expect(r.resolve(A).references).toEqual([uuid(2)]);
  });

  it('depth 2: targets are resolved once more, and the cycle ends at the snapshot objects', () => {
    const r = at(2);
    const a = r.resolve(A).story;
    expect(c(a).author).not.toBe(B);
    expect(c(a).author.name).toBe('B');
    expect(c(a).author.content.articles[0]).toBe(A);
    // B at remaining depth 1 is one object wherever it is embedded.
    expect(c(r.resolve(C).story).featured[1]).toBe(c(a).author);
    expect(r.resolve(A).references).toEqual([uuid(1), uuid(2)]);
    expect(r.resolve(C).references).toEqual([uuid(1), uuid(2)]);
  });

  it('depth 3: identities at every level', () => {
    const r = at(3);
    const a = r.resolve(A).story;
    const cc = r.resolve(C).story;
    const b2 = c(a).author; // B at remaining depth 2
    expect(c(cc).featured[1]).toBe(b2);
    const a1 = b2.content.articles[0]; // A at remaining depth 1
    expect(a1.content.author).toBe(B);
    const a2 = c(cc).featured[0]; // A at remaining depth 2
    expect(a2).not.toBe(a1);
    expect(a2.content.author.content.articles[0]).toBe(A);
    // B at depth 3 holds A at 2, which holds B at 1, which holds A as it is.
    expect(c(r.resolve(B).story).articles[0]).toBe(a2);
    expect(c(r.resolve(B).story).articles[0].content.author.content.articles[0]).toBe(A);
    expect(A.content.author).toBe(uuid(2));
  });

  it('a deep resolution of a cycle is finite and linear', () => {
    const depth = 2000;
    const a = createResolver({ relations, depth }, lookupOf(space)).resolve(A).story;
    let node: any = a;
    let levels = 0;
    while (typeof node === 'object') {
      node =
        node.component === 'article' || node.content?.component === 'article'
          ? node.content.author
          : node.content.articles[0];
      levels++;
    }
    // `depth` resolved levels, then the snapshot's A, whose author is a uuid.
    expect(levels).toBe(depth + 1);
    expect(node).toBe(uuid(2));
  });

  it('a missing target inside an embedded target is a reference, reported by that target only', () => {
    const leaf = deepFreeze(story(30, { component: 'author', articles: [uuid(404)] }, { name: 'Leaf' }));
    const top = deepFreeze(story(31, { component: 'article', author: uuid(30) }, { name: 'Top' }));
    const r = createResolver({ relations, depth: 2, keepUnresolved: true }, lookupOf([leaf, top]));
    const result = r.resolve(top);
    expect((result.story.content as any).author).toBe(leaf);
    expect(result.references).toEqual([uuid(30), uuid(404)]);
    expect(result.missing).toEqual([]);
    expect(r.resolve(leaf).missing).toEqual([{ field: 'author.articles[0]', uuid: uuid(404) }]);
  });

  it('a story that references itself', () => {
    const self = deepFreeze(story(9, { component: 'article', author: uuid(9) }));
    const s = createResolver({ relations, depth: 2 }, lookupOf([self])).resolve(self);
    expect((s.story.content as any).author.content.author).toBe(self);
    expect(s.references).toEqual([uuid(9)]);
  });

  it('resolving deeper than the graph goes gives the same objects', () => {
    // P features X, X features the leaf L; Q features P.
    const L = story(20, {});
    const X = story(21, { featured: [uuid(20)] });
    const P = story(22, { featured: [uuid(21)] });
    const Q = story(23, { featured: [uuid(22)] });
    const r = createResolver({ relations: ['page.featured'], depth: 3 }, lookupOf(deepFreeze([L, X, P, Q])));
    const xAt2 = (r.resolve(P).story.content as any).featured[0];
    const xAt1 = (r.resolve(Q).story.content as any).featured[0].content.featured[0];
    expect(xAt2.content.featured[0]).toBe(L);
    expect(xAt2).toBe(xAt1);
  });

  it('depth 0 resolves nothing; a depth that is no count is refused', () => {
    const r = createResolver({ relations, depth: 0 }, lookupOf(space)).resolve(A);
    expect(r.story).not.toBe(A);
    expect(r.story).toEqual(A);
    expect(r.references).toEqual([]);
    for (const depth of [-1, 1.5, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => createResolver({ relations, depth }, lookupOf(space))).toThrow(RangeError);
    }
    expect(() => createResolver({ links: 'full' as never }, lookupOf(space))).toThrow(RangeError);
  });
});

describe('sharing and no limits', () => {
  const T = story(1, { component: 'person' }, { name: 'T', full_slug: 'people/t', slug: 't' });

  it('1,000 references to one story give one object', () => {
    const body = Array.from({ length: 1000 }, (_, i) => ({
      _uid: `b${i}`,
      component: 'teaser',
      story: uuid(1),
      link: storyLink(uuid(1)),
    }));
    const page = deepFreeze(story(2, { body, many: Array.from({ length: 1000 }, () => uuid(1)) }));
    for (const links of ['story', 'url', 'link'] as const) {
      const { story: out, references } = createResolver(
        { relations: ['teaser.story', 'page.many'], links },
        lookupOf(deepFreeze([T, page])),
      ).resolve(page);
      const outBody = out.content.body as Array<Record<string, any>>;
      const linked = outBody[0]!.link.story;
      for (const blok of outBody) {
        expect(blok.story).toBe(T);
        expect(blok.link.story).toBe(linked);
        expect(blok.link.cached_url).toBe('people/t');
      }
      for (const item of out.content.many as unknown[]) expect(item).toBe(T);
      expect(references).toEqual([uuid(1)]);
    }
  });

  it('300 distinct relations and 300 distinct links are all resolved', () => {
    const targets = Array.from({ length: 300 }, (_, i) => story(100 + i, {}, { full_slug: `t/${i}` }));
    const page = story(1, {
      related: targets.map((t) => t.uuid),
      links: targets.map((t, i) => ({ _uid: `l${i}`, component: 'nav', link: storyLink(t.uuid) })),
    });
    const lookup = lookupOf(deepFreeze([...targets, page]));
    for (const links of ['story', 'url'] as const) {
      const {
        story: out,
        references,
        missing,
      } = createResolver({ relations: ['page.related'], links }, lookup).resolve(page);
      (out.content.related as Story[]).forEach((s, i) => {
        expect(s).toBe(targets[i]);
      });
      (out.content.links as Array<Record<string, any>>).forEach((n, i) => {
        expect(n.link.story.uuid).toBe(targets[i]!.uuid);
        expect(n.link.cached_url).toBe(`t/${i}`);
      });
      expect(references).toHaveLength(300);
      expect(missing).toEqual([]);
    }
  });

  it('scans each story once per resolver', () => {
    const page = story(2, { featured: [uuid(1)] });
    const lookup = lookupOf(deepFreeze([T, page]));
    const r = createResolver({ relations: ['page.featured'] }, lookup);
    r.resolve(page);
    const calls = lookup.calls;
    r.resolve(page);
    expect(lookup.calls).toBe(calls);
  });
});

describe('copies, inputs and odd content', () => {
  const T = story(1, { component: 'person' }, { name: 'T', full_slug: 'people/t', slug: 't' });

  it('copies only the path to a change and never writes to its inputs', () => {
    const untouched = { _uid: 'x', component: 'text', text: 'hello', nested: { deep: [1, 2, 3] } };
    const page = deepFreeze(
      story(2, { body: [untouched, { _uid: 'y', component: 'teaser', story: uuid(1) }], other: { a: 1 } }),
    );
    const space = deepFreeze([T, page]);
    const before = JSON.stringify(space);
    const { story: out } = createResolver(
      { relations: ['teaser.story'], links: 'story', depth: 3 },
      lookupOf(space),
    ).resolve(page);
    expect(JSON.stringify(space)).toBe(before);
    expect(out).not.toBe(page);
    expect(out.content).not.toBe(page.content);
    const body = out.content.body as unknown[];
    expect(body).not.toBe(page.content.body);
    expect(body[0]).toBe(untouched);
    expect(out.content.other).toBe(page.content.other);
    expect(out.alternates).toBe(page.alternates);
  });

  it('a story without references keeps its content object', () => {
    const page = deepFreeze(story(2, { body: [{ _uid: 'x', component: 'text', text: uuid(77) }] }));
    const out = createResolver({ detectRelations: true, links: 'url' }, lookupOf([T, page])).resolve(page);
    expect(out.story).not.toBe(page);
    expect(out.story.content).toBe(page.content);
  });

  it('numeric ids, as numbers and as strings; detection ignores numbers', () => {
    const page = deepFreeze(story(2, { one: 1, two: '1', many: [1, '1', uuid(1)] }));
    const lookup = lookupOf(deepFreeze([T, page]));
    const out = createResolver({ relations: ['page.one', 'page.two', 'page.many'] }, lookup).resolve(page).story;
    expect(out.content.one).toBe(T);
    expect(out.content.two).toBe(T);
    expect(out.content.many).toEqual([T, T, T]);
    const detected = createResolver({ detectRelations: true }, lookup).resolve(page).story;
    expect(detected.content.one).toBe(1);
    expect(detected.content.many).toBe(page.content.many);
  });

  it('detection: never _uid, component, a multilink id, asset fields, plugin fields or mixed arrays', () => {
    const t = uuid(1);
    const content = {
      _uid: t,
      component: 'page',
      image: { fieldtype: 'asset', id: 3, filename: 'https://a.example/x.jpg', alt: t, title: null },
      gallery: [{ id: 4, filename: 'https://a.example/y.jpg', alt: t }],
      link: storyLink(t),
      plugin: { _uid: 'p', plugin: 'picker', value: t },
      mixed: [t, 'not a uuid'],
      blok: [{ _uid: t, component: t, picked: t }],
      richtext: {
        type: 'doc',
        content: [{ type: 'blok', attrs: { id: t, body: [{ _uid: 'r', component: 'quote', author: t }] } }],
      },
    };
    const page = deepFreeze(story(2, content));
    const { story: out, references } = createResolver(
      { detectRelations: true },
      lookupOf(deepFreeze([T, page])),
    ).resolve(page);
    const c = out.content as Record<string, any>;
    for (const key of ['_uid', 'component', 'image', 'gallery', 'link', 'plugin', 'mixed'])
      expect(c[key]).toBe((content as any)[key]);
    expect(c.blok[0]).toEqual({ _uid: t, component: t, picked: T });
    expect(c.richtext.content[0].attrs.id).toBe(t);
    expect(c.richtext.content[0].attrs.body[0].author).toBe(T);
    expect(references).toEqual([t]);
  });

  it('detection: an array of uuids with one unknown is a relation with one missing target', () => {
    const page = deepFreeze(story(2, { people: [uuid(1), uuid(99)] }, { name: 'Team' }));
    const r = createResolver({ detectRelations: true }, lookupOf([T, page])).resolve(page);
    expect(r.story.content.people).toEqual([T]);
    expect(r.missing).toEqual([{ field: 'page.people[1]', uuid: uuid(99) }]);
    expect(r.references).toEqual([uuid(1), uuid(99)]);
    const kept = createResolver({ detectRelations: true, keepUnresolved: true }, lookupOf([T, page])).resolve(page);
    expect(kept.story.content.people).toEqual([T, uuid(99)]);
    expect(kept.missing).toEqual(r.missing);
  });

  it('an unresolved relation is left out: an array loses the item, a single value is null; keepUnresolved keeps the uuid', () => {
    const target = story(5, { component: 'author' }, { name: 'Five' });
    const page = deepFreeze(
      story(
        6,
        {
          component: 'article',
          author: uuid(404),
          related: [uuid(404), uuid(5), '77', uuid(405)],
          other: { _uid: 'o', component: 'teaser', title: 't' },
        },
        { name: 'Six' },
      ),
    );
    const config = { relations: ['article.author', 'article.related'] };
    const left = createResolver(config, lookupOf([target, page])).resolve(page);
    const content = left.story.content as Record<string, unknown>;
    expect(content.author).toBeNull();
    expect(content.related).toEqual([target]);
    expect(content.other).toBe(page.content.other);
    expect(left.missing.map((m) => m.field)).toEqual([
      'article.author',
      'article.related[0]',
      'article.related[2]',
      'article.related[3]',
    ]);
    const kept = createResolver({ ...config, keepUnresolved: true }, lookupOf([target, page])).resolve(page);
    expect(kept.story.content.author).toBe(uuid(404));
    expect(kept.story.content.related).toEqual([uuid(404), target, '77', uuid(405)]);
    // Nothing resolves and everything is kept: the content is the input's.
    const none = createResolver({ ...config, keepUnresolved: true }, lookupOf([page])).resolve(page);
    expect(none.story.content).toBe(page.content);
  });

  it('a container met twice in one story is resolved in both places', () => {
    const shared = { _uid: 's', component: 'teaser', story: uuid(1) };
    const page = deepFreeze(story(2, { body: [shared, shared], aside: shared }));
    const out = createResolver({ relations: ['teaser.story'] }, lookupOf([T, page])).resolve(page).story;
    const body = out.content.body as Array<Record<string, unknown>>;
    expect(body[0]!.story).toBe(T);
    expect(body[1]).toBe(body[0]);
    expect(out.content.aside).toBe(body[0]);
  });

  it('`__proto__` is a field like any other', () => {
    const content = JSON.parse(
      `{"_uid":"u","component":"page","__proto__":"${uuid(1)}","list":[{"__proto__":{"linktype":"story","id":"${uuid(1)}","fieldtype":"multilink"}}]}`,
    );
    const page = deepFreeze(story(2, {}, { content }));
    const out = createResolver({ relations: ['page.__proto__'], links: 'url' }, lookupOf([T, page])).resolve(
      page,
    ).story;
    expect(Object.getPrototypeOf(out.content)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out.content, '__proto__')?.value).toBe(T);
    const item = (out.content.list as any[])[0];
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(item, '__proto__')?.value.cached_url).toBe('people/t');
  });

  it('pathological nesting does not exhaust the stack', () => {
    const levels = 100_000;
    let inner: Record<string, unknown> = {
      _uid: 'leaf',
      component: 'teaser',
      story: uuid(1),
      link: storyLink(uuid(1)),
    };
    for (let i = 0; i < levels; i++) inner = { _uid: `n${i}`, component: 'box', child: [inner] };
    const page = deepFreeze(story(2, { body: [inner] }));
    const lookup = lookupOf([T, page]);
    const { story: out, references } = createResolver(
      { relations: ['teaser.story'], links: 'story', depth: 2 },
      lookup,
    ).resolve(page);
    let node: any = (out.content.body as unknown[])[0];
    for (let i = 0; i < levels; i++) node = node.child[0];
    expect(node.story).toBe(T);
    expect(node.link.story).toBe(T);
    expect(references).toEqual([uuid(1)]);
    expect(backlinks([T, page], { relations: ['teaser.story'] }).get(uuid(1))).toEqual([uuid(2)]);
  });
});

describe('links', () => {
  const T = story(
    1,
    { component: 'article', author: uuid(3) },
    {
      name: 'T',
      slug: 't',
      full_slug: 'blog/t',
      parent_id: 7,
      position: 4,
      translated_slugs: [{ lang: 'de', path: 'blog/t-de', name: null }],
    },
  );
  const W = story(3, { component: 'author' }, { name: 'W' });
  const docs: Folder = {
    id: 50,
    uuid: uuid(50),
    name: 'Docs',
    slug: 'docs',
    full_slug: 'docs/',
    parent_id: 0,
    position: 1,
  };
  const mark = (target: string, href = '/old') => ({
    type: 'text',
    text: 'see',
    marks: [
      { type: 'bold' },
      { type: 'link', attrs: { href, uuid: target, anchor: 'part', target: '_self', linktype: 'story' } },
    ],
  });
  const page = deepFreeze(
    story(2, {
      link: storyLink(uuid(1), 'blog/old-t'),
      folder: storyLink(uuid(50)),
      outside: {
        id: '',
        url: 'https://example.com',
        linktype: 'url',
        fieldtype: 'multilink',
        cached_url: 'https://example.com',
      },
      text: { type: 'doc', content: [{ type: 'paragraph', content: [mark(uuid(1)), mark(uuid(99))] }] },
      gone: storyLink(uuid(98)),
    }),
  );
  const lookup = lookupOf(deepFreeze([T, W, page]), [docs]);

  it('story: multilinks and marks get the target at the remaining depth', () => {
    const {
      story: out,
      missing,
      references,
    } = createResolver({ links: 'story', relations: ['article.author'], depth: 2 }, lookup).resolve(page);
    const c = out.content as Record<string, any>;
    expect(c.link.story.content.author).toBe(W);
    expect(c.link.cached_url).toBe('blog/t');
    expect(c.link.story).toBe(c.text.content[0].content[0].marks[1].attrs.story);
    expect(c.folder.story).toEqual({ ...docs, is_folder: true });
    expect(c.folder.cached_url).toBe('docs/');
    expect(c.outside).toBe(page.content.outside);
    const attrs = c.text.content[0].content[0].marks[1].attrs;
    expect(attrs.href).toBe('/blog/t');
    expect(attrs.anchor).toBe('part');
    expect(c.text.content[0].content[0].marks[0]).toBe((page.content.text as any).content[0].content[0].marks[0]);
    expect(c.text.content[0].content[1]).toBe((page.content.text as any).content[0].content[1]);
    expect(missing).toEqual([
      { field: 'page.text.content[0].content[1].marks[1]', uuid: uuid(99) },
      { field: 'page.gone', uuid: uuid(98) },
    ]);
    expect(references).toEqual([uuid(1), uuid(3), uuid(50), uuid(98), uuid(99)]);
  });

  it('link: the routing properties; pathOf decides paths', () => {
    const withPaths: StoryLookup = { ...lookup, pathOf: (t) => `/${t.full_slug.replace(/\/$/, '')}` };
    const c = createResolver({ links: 'link' }, withPaths).resolve(page).story.content as Record<string, any>;
    expect(c.link.story).toEqual({
      id: 1,
      uuid: uuid(1),
      slug: 'blog/t',
      full_slug: 'blog/t',
      name: 'T',
      is_folder: false,
      parent_id: 7,
      published: true,
      position: 4,
      is_startpage: false,
      real_path: '/blog/t',
      translated_slugs: [{ lang: 'de', path: 'blog/t-de', name: null }],
    });
    expect(c.folder.story).toMatchObject({ uuid: uuid(50), is_folder: true, real_path: '/docs' });
    expect(c.text.content[0].content[0].marks[1].attrs.href).toBe('/blog/t');
  });

  it('without a links mode, links are content like any other', () => {
    const r = createResolver({}, lookup).resolve(page);
    expect(r.story.content).toBe(page.content);
    expect(r.missing).toEqual([]);
    expect(r.references).toEqual([]);
  });
});

describe('missingReport', () => {
  it('one warning for every missing target, in order', () => {
    const a = deepFreeze(
      story(
        1,
        {
          body: [
            { _uid: 'b', component: 'hero' },
            { _uid: 'c', component: 'list' },
            { _uid: 'd', component: 'teaser', featured: uuid(90) },
          ],
        },
        { name: 'ep16' },
      ),
    );
    const b = deepFreeze(
      story(2, { component: 'article', author: 42, related: [uuid(1), uuid(91)] }, { name: 'News' }),
    );
    const r = createResolver({ relations: ['teaser.featured', 'article.author', 'article.related'] }, lookupOf([a, b]));
    const results = [a, b].map((s) => ({ story: s, missing: r.resolve(s).missing }));
    expect(missingReport(results)).toBe(
      `3 references point at stories not in the snapshot (missing, or not in this view): ep16 (page.body[2].featured -> ${uuid(90)}), ` +
        `News (article.author -> 42), News (article.related[1] -> ${uuid(91)}); ` +
        'relations leave them out (an array loses the item, a single value is null; keepUnresolved keeps their uuids)',
    );
    expect(missingReport([results[0]!, results[0]!], true)).toBe(
      `1 reference points at a story not in the snapshot (missing, or not in this view): ep16 (page.body[2].featured -> ${uuid(90)}); ` +
        'relations keep their uuids (keepUnresolved)',
    );
    expect(missingReport([{ story: a, missing: [] }])).toBeUndefined();
    // Document order across links and relations.
    const c = deepFreeze(
      story(3, { a: [{ _uid: 'n', component: 'nav', link: storyLink(uuid(92)) }], b: uuid(93) }, { name: 'Nav' }),
    );
    const ordered = createResolver({ relations: ['page.b'], links: 'url' }, lookupOf([c])).resolve(c);
    expect(ordered.missing).toEqual([
      { field: 'page.a[0].link', uuid: uuid(92) },
      { field: 'page.b', uuid: uuid(93) },
    ]);
    expect(missingReport([])).toBeUndefined();
  });
});

describe('backlinks', () => {
  it('relations and links, direct only, sorted, whatever the input order', () => {
    const stories = deepFreeze([
      story(1, { component: 'author' }),
      story(2, { component: 'article', author: uuid(1), next: storyLink(uuid(3)) }),
      story(3, { component: 'article', author: 1, other: uuid(4) }),
      story(4, { body: [{ _uid: 'x', component: 'teaser', items: [uuid(2), uuid(3), uuid(404)] }] }),
    ]);
    const config = { relations: ['article.author', 'teaser.items'] };
    const map = backlinks(stories, config);
    expect([...map.entries()]).toEqual([
      [uuid(1), [uuid(2), uuid(3)]],
      [uuid(2), [uuid(4)]],
      [uuid(3), [uuid(2), uuid(4)]],
      [uuid(4), []],
    ]);
    expect(backlinks([...stories].reverse(), config)).toEqual(map);
    expect(backlinks(stories, config, { links: false }).get(uuid(3))).toEqual([uuid(4)]);
    expect(backlinks(stories, { ...config, detectRelations: true }).get(uuid(4))).toEqual([uuid(3)]);
  });
});

describe('what a story only embeds whole', () => {
  const T = story(20, { component: 'author' });
  const L = story(21, { component: 'author' });
  const page = story(22, { authors: [uuid(20), uuid(21)], cta: storyLink(uuid(21)), gone: uuid(99) });
  const lookup = lookupOf(deepFreeze([T, L, page]));

  it('at depth 1, the relation targets no link points at, in every links mode', () => {
    for (const links of [undefined, 'url', 'story', 'link'] as const) {
      const r = createResolver(
        { relations: ['page.authors', 'page.gone'], ...(links ? { links } : {}) },
        lookup,
      ).resolve(page);
      expect(r.references).toEqual([uuid(20), uuid(21), uuid(99)].sort());
      // L is also the target of a link, which shows its path (even in story mode); the missing one embeds nothing.
      expect(r.embedded, String(links)).toEqual(links ? [uuid(20)] : [uuid(20), uuid(21)]);
    }
  });

  it('at depth 2 and beyond, nothing: targets are resolved into the story', () => {
    expect(createResolver({ relations: ['page.authors'], depth: 2 }, lookup).resolve(page).embedded).toEqual([]);
    expect(createResolver({ relations: ['page.authors'], depth: 0 }, lookup).resolve(page).embedded).toEqual([]);
  });
});

describe('language variants sharing a scan memo', () => {
  const T = story(1, { component: 'author' }, { name: 'T', full_slug: 'people/t', slug: 't' });
  const L = story(3, { component: 'page' }, { name: 'L', full_slug: 'docs/l', slug: 'l' });
  const mark = (target: string) => ({
    type: 'text',
    text: 'see',
    marks: [{ type: 'link', attrs: { href: '/old', uuid: target, anchor: null, linktype: 'story' } }],
  });
  const doc = (target: string) => ({ type: 'doc', content: [{ type: 'paragraph', content: [mark(target)] }] });

  /** A container that counts how often it is read. */
  function counted<V extends object>(value: V): { value: V; reads: () => number } {
    let reads = 0;
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
      ownKeys(target) {
        reads++;
        return Reflect.ownKeys(target);
      },
    });
    return { value: proxy, reads: () => reads };
  }

  const config = { relations: ['article.author'], links: 'url' as const };

  /** Each variant resolved with one memo shared in order, and each alone. */
  function both(variants: readonly Story[]) {
    const lookup = lookupOf(deepFreeze([T, L]));
    const memo = { clean: new Set<object>() };
    const shared = variants.map((v) => createResolver(config, lookup, memo).resolve(v));
    const alone = variants.map((v) => createResolver(config, lookupOf([T, L])).resolve(v));
    return { shared, alone, memo };
  }

  it('a field one variant found clean is not walked again by the next, and the results are the same', () => {
    const gallery = counted([
      { filename: 'a.jpg', id: 1, alt: 'x' },
      { filename: 'b.jpg', id: 2, alt: 'y' },
    ]);
    const body = doc(uuid(3));
    const base = story(2, {
      component: 'article',
      author: uuid(1),
      gallery: gallery.value,
      body,
      dangling: { x: [uuid(99)] },
    });
    const de = { ...base, lang: 'de', content: { ...base.content, title: 'Titel', intro: doc(uuid(3)) } };
    const fr = { ...base, lang: 'fr', content: { ...base.content, title: 'Titre' } };
    const lookup = lookupOf(deepFreeze([T, L]));
    const memo = { clean: new Set<object>() };
    const first = createResolver(config, lookup, memo).resolve(base);
    expect(gallery.reads()).toBeGreaterThan(0);
    // Clean: the gallery; not clean: the body (a link) and the root itself.
    expect(memo.clean.has(gallery.value)).toBe(true);
    expect(memo.clean.has(body)).toBe(false);
    const before = gallery.reads();
    const rest = [de, fr].map((v) => createResolver(config, lookup, memo).resolve(v));
    expect(gallery.reads()).toBe(before);
    const alone = [base, de, fr].map((v) => createResolver(config, lookupOf([T, L])).resolve(v));
    expect([first, ...rest]).toEqual(alone);
    expect(rest[0]!.story.content.intro).not.toBe(de.content.intro);
  });

  it('a field holding a missing target is walked again, so each variant reports it', () => {
    const dangling = { _uid: 'd', component: 'teaser', link: storyLink(uuid(98)) };
    const base = story(2, { component: 'article', teaser: dangling });
    const de = { ...base, lang: 'de', content: { ...base.content, title: 'Titel' } };
    const { shared, alone, memo } = both([base, de]);
    expect(memo.clean.has(dangling)).toBe(false);
    expect(shared[1]!.missing).toEqual([{ field: 'article.teaser.link', uuid: uuid(98) }]);
    expect(shared).toEqual(alone);
  });

  it('the attrs of a root are walked again: whether they are a link depends on the root', () => {
    // The same attrs object under a link mark (the mark's attributes) and under a plain node (a multilink).
    const attrs = { id: uuid(3), uuid: uuid(3), linktype: 'story', fieldtype: 'multilink', cached_url: 'x', url: '' };
    const asMark = story(2, { component: 'article', type: 'link' }, {});
    (asMark.content as Record<string, unknown>).attrs = attrs;
    const asNode = { ...asMark, lang: 'de', content: { ...asMark.content, type: 'paragraph' } };
    const { shared, alone } = both([asMark, asNode]);
    expect(shared).toEqual(alone);
    expect((shared[1]!.story.content.attrs as Record<string, unknown>).story).toMatchObject({ uuid: uuid(3) });
  });
});

describe('what a copy remembers', () => {
  it('its original and the keys set on it, out of sight of the content', () => {
    const node = { a: 1, b: { c: 2 } };
    const copy = shallowCopy(node);
    setOwn(copy, 'b', { c: 3 });
    expect(originalOf(copy)).toBe(node);
    expect(changedKeys(copy)).toEqual(['b']);
    expect(Object.keys(copy)).toEqual(['a', 'b']);
    expect(JSON.stringify(copy)).toBe('{"a":1,"b":{"c":3}}');
    // A spread of a copy, or a copy of a copy, is not the copy.
    expect(originalOf({ ...copy })).toBeUndefined();
    expect(originalOf(shallowCopy(copy))).toBe(copy);
    expect(originalOf(node)).toBeUndefined();
    expect(changedKeys(node)).toBeUndefined();
  });
});
