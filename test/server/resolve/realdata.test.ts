import { expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { resolveV1, resolveV2 } from '../../../src/server/resolve/index.js';
import { deepFreeze, folder, realdata, sourceOf, story } from './helpers.js';
import { describeRealdata } from '../../helpers/realdata.js';

const byUuid = (a: { uuid: string }, b: { uuid: string }) => a.uuid.localeCompare(b.uuid);

describeRealdata('storyblok-php-client: a v2 story recorded with resolve_relations', () => {
  const recorded = deepFreeze(
    realdata<{ story: Story; rels: Story[]; links: unknown[] }>('storyblok-php-client/v2-stories-relations.json'),
  );
  const relations = ['popular-articles.articles'];
  const source = sourceOf(recorded.rels);

  it('reproduces the recorded rels from the same references', () => {
    const extras = resolveV2([recorded.story], { relations }, source);
    expect([...extras.rels].sort(byUuid)).toEqual([...recorded.rels].sort(byUuid));
    for (const rel of extras.rels) expect(recorded.rels).toContain(rel);
    expect(extras).not.toHaveProperty('rel_uuids');
    expect(extras.links).toEqual(recorded.links);
  });

  it('lists rels in the order the content first references them', () => {
    // The recording lists them by id; the order is not part of the contract and
    // clients look rels up by uuid.
    const extras = resolveV2([recorded.story], { relations }, source);
    const body = recorded.story.content.body as Array<Record<string, unknown>>;
    expect(extras.rels.map((s) => s.uuid)).toEqual(body[1]!.articles);
  });

  it('resolves nothing for a component.field that is not in the content', () => {
    expect(
      resolveV2([recorded.story], { relations: ['page.articles', 'popular-articles.headline'] }, source).rels,
    ).toEqual([]);
  });

  it('v1 nests the same stories inside the field, in field order', () => {
    const resolved = resolveV1(recorded.story, { relations }, source);
    const body = resolved.content.body as Array<Record<string, unknown>>;
    const articles = body[1]!.articles as Story[];
    expect(articles.map((a) => a.name)).toEqual(['Article 1', 'Article 4', 'Article 2']);
    // The hero blok was not on the path of a change: shared, not copied.
    expect(body[0]).toBe((recorded.story.content.body as unknown[])[0]);
  });
});

describeRealdata('laravel-storyblok: a closed set of three related stories', () => {
  // The recorded targets were copied from one template and share the relation
  // story's uuid and id; the space derived here gives each the uuid it was
  // recorded under (its file name) and an id of its own.
  const relation = realdata<{ story: Story }>('laravel-storyblok/relation.json').story;
  const targetA = {
    ...realdata<{ story: Story }>('laravel-storyblok/aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46.json').story,
    uuid: 'aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46',
    id: 14994142,
  };
  const targetB = {
    ...realdata<{ story: Story }>('laravel-storyblok/cb1bb01a-e414-49ed-85d0-03f63f35171f.json').story,
    uuid: 'cb1bb01a-e414-49ed-85d0-03f63f35171f',
    id: 14994143,
  };
  const space = deepFreeze([relation, targetA, targetB]);
  const source = sourceOf(space);
  const relations = ['relation.single_option_story', 'relation.multi_options_stories'];

  it('v2: single and multi relations give each target once, first seen first', () => {
    const extras = resolveV2([relation], { relations }, source);
    expect(extras.rels).toEqual([targetA, targetB]);
    expect(relation.content.single_option_story).toBe('aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46');
  });

  it('v1: a single relation becomes the story, a multi relation an array of stories', () => {
    const resolved = resolveV1(relation, { relations }, source);
    expect(resolved.content.single_option_story).toBe(targetA);
    expect(resolved.content.multi_options_stories).toEqual([targetA, targetB]);
    expect(resolved.content.multi_options_stories).not.toBe(relation.content.multi_options_stories);
    expect(relation.content.multi_options_stories).toEqual([
      'aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46',
      'cb1bb01a-e414-49ed-85d0-03f63f35171f',
    ]);
  });

  it('only the listed field is resolved', () => {
    const resolved = resolveV1(relation, { relations: ['relation.single_option_story'] }, source);
    expect(resolved.content.single_option_story).toBe(targetA);
    expect(resolved.content.multi_options_stories).toBe(relation.content.multi_options_stories);
  });

  it('component names match exactly', () => {
    expect(resolveV2([relation], { relations: ['Relation.single_option_story'] }, source).rels).toEqual([]);
  });
});

describeRealdata('laravel-storyblok ep16: a relation whose targets are missing', () => {
  const ep16 = deepFreeze(realdata<{ story: Story }>('laravel-storyblok/ep16.json').story);
  const relations = ['linked_links.links'];
  const features = ep16.content.features as Array<{ body: Array<Record<string, unknown>> }>;
  const linkedLinks = features[0]!.body[8]!;

  it('v2: no rels and no rel_uuids', () => {
    const extras = resolveV2([ep16], { relations }, sourceOf([ep16]));
    expect(extras.rels).toEqual([]);
    expect(extras).not.toHaveProperty('rel_uuids');
  });

  it('v1: the uuids stay and nothing is copied', () => {
    const resolved = resolveV1(ep16, { relations }, sourceOf([ep16]));
    expect(resolved).not.toBe(ep16);
    expect(resolved.content).toBe(ep16.content);
    expect(linkedLinks.links).toEqual(['15da551b-9937-440f-9ec6-185027fbff52', '85b23871-b146-4db5-8ae8-ff524d2e5747']);
  });

  it('v1: with one target present, only that uuid is replaced, and other `links` fields are untouched', () => {
    const present = story({ uuid: '85b23871-b146-4db5-8ae8-ff524d2e5747' });
    const resolved = resolveV1(ep16, { relations }, sourceOf([ep16, present]));
    const resolvedFeatures = resolved.content.features as Array<{ body: Array<Record<string, unknown>> }>;
    expect(resolvedFeatures[0]!.body[8]!.links).toEqual(['15da551b-9937-440f-9ec6-185027fbff52', present]);
    // The `link-set` blok's `links` (bloks) and the root's `links` field are other components' fields.
    expect(resolvedFeatures[1]).toBe(features[1]);
    expect(resolved.content.links).toBe(ep16.content.links);
  });
});

describeRealdata('laravel-storyblok all-fields: every multilink linktype and every asset shape', () => {
  const allFields = deepFreeze(realdata<{ story: Story }>('laravel-storyblok/all-fields.json').story);
  const target = story({
    uuid: '8a6eee6b-025e-484e-9219-8ad6596a74fa',
    name: 'Primary contact',
    slug: 'primary-contact',
    full_slug: 'people/primary-contact',
  });
  const source = sourceOf(deepFreeze([allFields, target]));
  const c = allFields.content as Record<string, any>;

  it('v2 url: only the story links count, once per target', () => {
    const extras = resolveV2([allFields], { relations: [], links: 'url' }, source);
    expect(extras.links).toEqual([
      {
        id: target.id,
        uuid: target.uuid,
        name: 'Primary contact',
        slug: 'primary-contact',
        full_slug: 'people/primary-contact',
        url: 'people/primary-contact',
      },
    ]);
    expect(extras).not.toHaveProperty('link_uuids');
    expect(extras).not.toHaveProperty('assets');
  });

  it('v1 story: story links get the target and a fresh cached_url; url, email and asset links are untouched', () => {
    const resolved = resolveV1(allFields, { relations: [], links: 'story' }, source);
    const r = resolved.content as Record<string, any>;
    for (const key of ['link_story', 'link_anchor']) {
      expect(r[key].story).toBe(target);
      expect(r[key].cached_url).toBe('people/primary-contact');
      expect(r[key].id).toBe(target.uuid);
    }
    expect(r.link_anchor.anchor).toBe('the-anchor');
    for (const key of ['link_url', 'link_email', 'link_asset', 'hero', 'blocks', 'table', 'richtext'])
      expect(r[key]).toBe(c[key]);
    expect(c.link_story.cached_url).toBe('key-people/primary-contact');
    expect(c.link_story).not.toHaveProperty('story');
  });

  it('v2 assets: unique by id, first seen first, metadata keys present in content only', () => {
    const extras = resolveV2([allFields], { relations: [], assets: true }, source);
    expect(extras.assets).toEqual([
      {
        id: 1223942,
        filename: 'https://a.storyblok.com/f/87028/960x1280/31a1d8dc75/bottle.jpg',
        alt: 'Alt',
        title: 'Title',
        copyright: 'Copyright',
        focus: null,
        name: 'Name',
        source: 'Source',
      },
      {
        // A multiasset item without `fieldtype`.
        id: 1232246,
        filename: 'https://a.storyblok.com/f/52681/1000x875/7ced1a10b2/blow-dry-mobile.jpg',
        alt: null,
        title: null,
        copyright: null,
        focus: null,
        name: '',
      },
    ]);
    expect(extras.rels).toEqual([]);
    expect(extras.links).toEqual([]);
  });

  it('v2 assets: empty assets (id null, empty filename) and the blok named `asset` are not assets', () => {
    const content = {
      component: 'page',
      _uid: 'u',
      empty: c.asset_image,
      blank: c.asset_empty,
      blocks: [c.blocks[1]],
      none: c.multi_assets_empty,
    };
    const extras = resolveV2([story({ uuid: 'x', content })], { relations: [], assets: true }, source);
    expect(extras.assets).toEqual([expect.objectContaining({ id: 1232246 })]);
  });
});

describeRealdata('johannes-lindgren: a rich-text document with link marks of all four linktypes', () => {
  const doc = realdata('johannes-lindgren-storyblok/richtext-one-of-each.json');
  const page = deepFreeze(story({ uuid: 'page', content: { component: 'page', _uid: 'p', text: doc } }));
  const target = story({
    uuid: '76e43a9d-8e08-43ff-8209-d718187c1369',
    slug: 'rich-text',
    full_slug: 'docs/rich-text',
    parent_id: 7,
    position: 3,
  });
  const source = sourceOf(deepFreeze([page, target]));
  const marks = (node: any): any[] =>
    Array.isArray(node.content)
      ? node.content.flatMap(marks)
      : (node.marks ?? []).filter((m: any) => m.type === 'link').map((m: any) => m.attrs);

  it('v2 link: the story mark gives a routing link; url, email and asset marks give nothing', () => {
    const extras = resolveV2([page], { relations: [], links: 'link' }, source);
    expect(extras.links).toEqual([
      {
        id: target.id,
        uuid: target.uuid,
        slug: 'docs/rich-text',
        full_slug: 'docs/rich-text',
        name: target.name,
        is_folder: false,
        parent_id: 7,
        published: true,
        position: 3,
        is_startpage: false,
        real_path: '/docs/rich-text',
      },
    ]);
  });

  it('v1 story: the story mark gets attrs.story and its cached href is refreshed', () => {
    const resolved = resolveV1(page, { relations: [], links: 'story' }, source);
    const paragraph = (resolved.content.text as any).content[7];
    expect(paragraph.content[0].marks[0].attrs).toEqual({
      href: '/docs/rich-text',
      uuid: target.uuid,
      anchor: null,
      target: '_self',
      linktype: 'story',
      story: target,
    });
    const before = marks(page.content.text);
    const after = marks(resolved.content.text);
    expect(before.map((a) => a.linktype)).toEqual(['url', 'story', 'email', 'asset']);
    expect(after.filter((a: any) => a.linktype !== 'story')).toEqual(before.filter((a: any) => a.linktype !== 'story'));
    // Only the story link's paragraph was copied.
    expect((resolved.content.text as any).content[6]).toBe((page.content.text as any).content[6]);
    expect((resolved.content.text as any).content[8]).toBe((page.content.text as any).content[8]);
    expect((page.content.text as any).content[7].content[0].marks[0].attrs.href).toBe('/rt');
  });

  it('v1 url: the story mark gets the compact link', () => {
    const resolved = resolveV1(page, { relations: [], links: 'url' }, source);
    const attrs = (resolved.content.text as any).content[7].content[0].marks[0].attrs;
    expect(attrs.story).toEqual({
      id: target.id,
      uuid: target.uuid,
      name: target.name,
      slug: 'rich-text',
      full_slug: 'docs/rich-text',
      url: 'docs/rich-text',
    });
  });

  it('a folder can be the target of a mark', () => {
    const docs = folder({ uuid: target.uuid, slug: 'docs', full_slug: 'docs' });
    const extras = resolveV2([page], { relations: [], links: 'url' }, sourceOf([page], [docs]));
    expect(extras.links).toEqual([
      { id: docs.id, uuid: docs.uuid, name: docs.name, slug: 'docs', full_slug: 'docs', url: 'docs' },
    ]);
  });
});
