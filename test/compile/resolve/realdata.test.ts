import { expect, it } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { backlinks, createResolver, missingReport, type StoryLookup } from '../../../src/compile/resolve/index.js';
import { deepFreeze } from '../../helpers/freeze.js';
import { describeRealdata, realdata } from '../../helpers/realdata.js';

function lookupOf(stories: readonly Story[], pathOf?: (s: { full_slug: string }) => string): StoryLookup {
  const byUuid = new Map(stories.map((s) => [s.uuid, s]));
  const byId = new Map(stories.map((s) => [s.id, s]));
  const lookup: StoryLookup = { byUuid: (uuid) => byUuid.get(uuid), byId: (id) => byId.get(id) };
  if (pathOf) lookup.pathOf = pathOf;
  return lookup;
}

/** Every node of a tree in document order, not entering the keys skipped. */
function nodes(root: unknown, skip: readonly string[] = []): any[] {
  const out: any[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    out.push(node);
    const entries = Object.entries(node).filter(([key]) => !skip.includes(key));
    for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1]);
  }
  return out;
}

const byName = (stories: readonly Story[], name: string): Story => stories.find((s) => s.name === name)!;

describeRealdata('laravel-storyblok: the closed set relation, aa2cd950, cb1bb01a', () => {
  // The recorded targets were copied from one template and share the relation
  // story's uuid and id: each gets the uuid of its file name and an id of its own.
  const A = 'aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46';
  const B = 'cb1bb01a-e414-49ed-85d0-03f63f35171f';
  const relation = realdata<{ story: Story }>('laravel-storyblok/relation.json').story;
  const targetA: Story = { ...realdata<{ story: Story }>(`laravel-storyblok/${A}.json`).story, uuid: A, id: 14994142 };
  const targetB: Story = { ...realdata<{ story: Story }>(`laravel-storyblok/${B}.json`).story, uuid: B, id: 14994143 };
  const space = deepFreeze([relation, targetA, targetB]);
  const relations = ['relation.single_option_story', 'relation.multi_options_stories'];

  it('single and multi relations become the target stories', () => {
    const { story, references, missing } = createResolver({ relations }, lookupOf(space)).resolve(relation);
    expect(story.content.single_option_story).toBe(targetA);
    const multi = story.content.multi_options_stories as Story[];
    expect(multi).toHaveLength(2);
    expect(multi[0]).toBe(targetA);
    expect(multi[1]).toBe(targetB);
    expect(references).toEqual([A, B]);
    expect(missing).toEqual([]);
    expect(story).not.toBe(relation);
    expect(relation.content.multi_options_stories).toEqual([A, B]);
  });

  it('detection finds both fields without a relations list', () => {
    const { story } = createResolver({ detectRelations: true }, lookupOf(space)).resolve(relation);
    expect(story.content.single_option_story).toBe(targetA);
    expect(story.content.multi_options_stories).toEqual([targetA, targetB]);
  });

  it('at depth 2 the targets, which reference nothing, are the same objects', () => {
    const { story } = createResolver({ relations, depth: 2 }, lookupOf(space)).resolve(relation);
    expect(story.content.single_option_story).toBe(targetA);
    expect((story.content.multi_options_stories as Story[])[1]).toBe(targetB);
  });

  it('only the listed fields, with exact component names', () => {
    const single = createResolver({ relations: ['relation.single_option_story'] }, lookupOf(space)).resolve(
      relation,
    ).story;
    expect(single.content.single_option_story).toBe(targetA);
    expect(single.content.multi_options_stories).toBe(relation.content.multi_options_stories);
    const none = createResolver({ relations: ['Relation.single_option_story'] }, lookupOf(space)).resolve(
      relation,
    ).story;
    expect(none.content).toBe(relation.content);
  });

  it('the capitalised component `Person` matches as written, and `_uid`s are never relations', () => {
    const blocks = targetA.content.blocks as Array<{ columns: Array<Record<string, unknown>> }>;
    const person = blocks[0]!.columns[0]!;
    expect(person.component).toBe('Person');
    // A Person blok (as recorded) that also names a friend; a story whose uuid is a `_uid` in the content.
    const friendly = { ...person, Friend: B };
    const page: Story = {
      ...targetA,
      uuid: 'a0000000-0000-4000-8000-000000000001',
      id: 1,
      content: { ...targetA.content, blocks: [{ ...blocks[0]!, columns: [friendly] }] },
    };
    const uidStory: Story = { ...targetB, uuid: person._uid as string, id: 2 };
    const lookup = lookupOf(deepFreeze([...space, page, uidStory]));
    const resolvedColumns = (s: Story) =>
      (s.content.blocks as Array<{ columns: Array<Record<string, unknown>> }>)[0]!.columns[0]!;

    expect(resolvedColumns(createResolver({ relations: ['Person.Friend'] }, lookup).resolve(page).story).Friend).toBe(
      targetB,
    );
    expect(createResolver({ relations: ['person.Friend'] }, lookup).resolve(page).story.content).toBe(page.content);
    const detected = createResolver({ detectRelations: true }, lookup).resolve(page);
    expect(resolvedColumns(detected.story).Friend).toBe(targetB);
    expect(resolvedColumns(detected.story)._uid).toBe(person._uid);
    expect(detected.references).toEqual([B]);
  });
});

describeRealdata('laravel-storyblok ep16: a dangling relation', () => {
  const ep16 = deepFreeze(realdata<{ story: Story }>('laravel-storyblok/ep16.json').story);
  const lookup = lookupOf([ep16]);
  const dangling = ['15da551b-9937-440f-9ec6-185027fbff52', '85b23871-b146-4db5-8ae8-ff524d2e5747'];

  it('with keepUnresolved, keeps the uuids, reports them by field, and copies nothing', () => {
    const result = createResolver({ relations: ['linked_links.links'], keepUnresolved: true }, lookup).resolve(ep16);
    expect(result.missing).toEqual([
      { field: 'episode.features[0].body[8].links[0]', uuid: dangling[0] },
      { field: 'episode.features[0].body[8].links[1]', uuid: dangling[1] },
    ]);
    expect(result.story.content).toBe(ep16.content);
    expect(result.references).toEqual(dangling);
    // The root's `links` field and the `link-set` bloks' `links` belong to other components.
    expect(result.story.content.links).toBe(ep16.content.links);
  });

  it('by default, leaves them out of the resolved array and reports them the same', () => {
    const result = createResolver({ relations: ['linked_links.links'] }, lookup).resolve(ep16);
    const features = result.story.content.features as Array<{ body: Array<Record<string, unknown>> }>;
    expect(features[0]!.body[8]!.links).toEqual([]);
    expect(result.missing.map((m) => m.uuid)).toEqual(dangling);
    expect(result.story.content.links).toBe(ep16.content.links);
  });

  it('names the story in the one warning', () => {
    const result = createResolver({ relations: ['linked_links.links'] }, lookup).resolve(ep16);
    expect(missingReport([result])).toBe(
      '2 references point at stories not in the snapshot (missing, or not in this view): ' +
        `Guernsey Pollinator Project and the science of fear (episode.features[0].body[8].links[0] -> ${dangling[0]}), ` +
        `Guernsey Pollinator Project and the science of fear (episode.features[0].body[8].links[1] -> ${dangling[1]}); ` +
        'relations leave them out (an array loses the item, a single value is null; keepUnresolved keeps their uuids)',
    );
  });

  it('detection cannot know uuids that name nothing: no relation, no warning', () => {
    const result = createResolver({ detectRelations: true, links: 'story' }, lookup).resolve(ep16);
    expect(result.missing).toEqual([]);
    expect(result.story.content).toBe(ep16.content);
    expect(missingReport([result])).toBeUndefined();
  });
});

describeRealdata('storyblok-astro playground: a whole space of 12 draft stories', () => {
  const stories = deepFreeze(
    realdata<{ stories: Story[] }>('storyblok-astro/playground-content-layer.stories.decoded.json').stories,
  );
  const lookup = lookupOf(stories);
  const relations = [
    'featured-articles.posts',
    'featured-authors.authors',
    'Article.author',
    'author.article',
    'blok_with_relation.article',
  ];
  const names = (value: unknown) => (value as Story[]).map((s) => s.name);
  const uuidOf = (name: string) => byName(stories, name).uuid;

  it('has the shape this test relies on', () => {
    expect(stories).toHaveLength(12);
    expect(new Set(stories.map((s) => s.content.component))).toEqual(new Set(['page', 'Article', 'author']));
  });

  it('resolves every listed relation inside the set, with hyphenated and capitalised components', () => {
    const resolver = createResolver({ relations }, lookup);
    const home = resolver.resolve(byName(stories, 'Home')).story;
    const body = home.content.body as Array<Record<string, unknown>>;
    expect(names(body[0]!.posts)).toEqual(['Go vs Rust', 'Hello World', 'Astro Live Editing']);
    expect(names(body[3]!.authors)).toEqual(['Dipankar Maikap', 'Arisa Fukuzaki']);
    const goVsRust = resolver.resolve(byName(stories, 'Go vs Rust')).story;
    expect(goVsRust.content.author).toBe(byName(stories, 'Arisa Fukuzaki'));
    const dipankar = resolver.resolve(byName(stories, 'Dipankar Maikap')).story;
    expect(names(dipankar.content.article)).toEqual(['Go vs Rust', 'Hello World']);
    for (const story of stories) expect(resolver.resolve(story).missing).toEqual([]);
  });

  it('one target is one object in every story of one resolver', () => {
    const resolver = createResolver({ relations }, lookup);
    const hello = byName(stories, 'Hello World');
    const embeddings = stories.flatMap((s) =>
      nodes(resolver.resolve(s).story.content).filter((n) => n.uuid === hello.uuid),
    );
    // Five stories, Home twice.
    expect(embeddings.length).toBe(6);
    for (const e of embeddings) expect(e).toBe(hello);
  });

  it('detection finds the same relations without a list', () => {
    const listed = createResolver({ relations }, lookup);
    const detected = createResolver({ detectRelations: true }, lookup);
    for (const story of stories) {
      const a = listed.resolve(story);
      const b = detected.resolve(story);
      expect(b.story).toEqual(a.story);
      expect(b.references).toEqual(a.references);
    }
    // A rich-text blok node's `attrs.id` is a uuid but no blok field, and names no story.
    const richtext = byName(stories, 'Richtext Component');
    expect(detected.resolve(richtext).story.content).toBe(richtext.content);
  });

  it('depth 2: the embedded authors have their articles, shared across stories', () => {
    const resolver = createResolver({ detectRelations: true, depth: 2 }, lookup);
    const home = resolver.resolve(byName(stories, 'Home'));
    const arisa = (home.story.content.body as Array<Record<string, any>>)[3]!.authors[1];
    expect(arisa.name).toBe('Arisa Fukuzaki');
    expect(arisa.content.article[0]).toBe(byName(stories, 'Astro Live Editing'));
    const goVsRust = resolver.resolve(byName(stories, 'Go vs Rust')).story;
    expect(goVsRust.content.author).toBe(arisa);
    // Arisa's article, resolved at depth 1, points further: Home's output depends on it.
    expect(home.references).toContain(uuidOf('Astro Live Editing'));
    expect(home.references).toEqual([...new Set(home.references)].sort());
  });

  it('back references, with and without links', () => {
    const map = backlinks(stories, { detectRelations: true });
    expect([...map.keys()]).toEqual(stories.map((s) => s.uuid).sort());
    const referrers = (name: string) => map.get(uuidOf(name))!;
    const sorted = (...ns: string[]) => ns.map(uuidOf).sort();
    expect(referrers('Arisa Fukuzaki')).toEqual(sorted('Go vs Rust', 'Hello World', 'Home'));
    expect(referrers('Dipankar Maikap')).toEqual(sorted('Home'));
    expect(referrers('Astro Live Editing')).toEqual(
      sorted('Astro Live Preview', 'About', 'Arisa Fukuzaki', 'Test', 'Home'),
    );
    expect(referrers('Hello World')).toEqual(sorted('Astro Live Preview', 'About', 'Test', 'Dipankar Maikap', 'Home'));
    expect(referrers('Porsche Test Page')).toEqual(sorted('Porsche Test Page'));
    // Home links to itself from rich text.
    expect(referrers('Home')).toEqual(sorted('Home'));
    expect(referrers('About')).toEqual([]);
    expect(backlinks(stories, { detectRelations: true }, { links: false }).get(uuidOf('Home'))).toEqual([]);
    // The listed relations give the same graph; the same input gives the same map.
    expect(backlinks([...stories].reverse(), { relations })).toEqual(map);
  });

  it('the rich-text story link of Home gets its target and a current href, anchor kept', () => {
    const home = byName(stories, 'Home');
    const markOf = (s: Story) => (s.content.body as any[])[1].text.content[0].content[1].marks[0];
    const url = createResolver({ links: 'url' }, lookup).resolve(home);
    expect(markOf(url.story).attrs).toEqual({
      href: '/home',
      uuid: home.uuid,
      anchor: 'Test-Demo',
      target: '_self',
      linktype: 'story',
      // Home defines a real path for navigation: `url` gives it, as the API does.
      story: { id: home.id, uuid: home.uuid, name: 'Home', slug: 'home', full_slug: 'home', url: '/' },
    });
    expect(markOf(home).attrs.href).toBe('/');
    expect(url.references).toEqual([home.uuid]);
    const story = createResolver(
      { links: 'story' },
      lookupOf(stories, (s) => (s.full_slug === 'home' ? '/' : `/${s.full_slug}`)),
    ).resolve(home);
    expect(markOf(story.story).attrs.story).toBe(home);
    expect(markOf(story.story).attrs.href).toBe('/');
  });
});

describeRealdata('storyblok-php-client v2-stories: multilinks', () => {
  const stories = deepFreeze(realdata<{ stories: Story[] }>('storyblok-php-client/v2-stories.json').stories);
  const johnDoe = byName(stories, 'John Doe');
  // John Doe moved since the content was saved: every cached_url to him is stale.
  const moved = deepFreeze({ ...johnDoe, slug: 'john', full_slug: 'people/john' });
  const space = stories.map((s) => (s === johnDoe ? moved : s));
  const lookup = lookupOf(space);
  const articles = ['Article 1', 'Article 2', 'Article 3'].map((n) => byName(stories, n));

  it('story mode: the target, and cached_url corrected to its current full slug', () => {
    const resolver = createResolver({ links: 'story' }, lookup);
    for (const article of articles) {
      const { story, references, missing } = resolver.resolve(article);
      const author = story.content.author as Record<string, unknown>;
      expect(author).toEqual({ ...(article.content.author as object), cached_url: 'people/john', story: moved });
      expect(author.story).toBe(moved);
      expect((article.content.author as Record<string, unknown>).cached_url).toBe('authors/john-doe');
      expect(references).toEqual([johnDoe.uuid]);
      expect(missing).toEqual([]);
      // Only the path to the link was copied.
      expect(story.content.categories).toBe(article.content.categories);
    }
  });

  it('url and link modes give one shared object per target', () => {
    const url = createResolver({ links: 'url' }, lookup);
    const a = url.resolve(articles[0]!).story.content.author as Record<string, unknown>;
    const b = url.resolve(articles[1]!).story.content.author as Record<string, unknown>;
    expect(a.story).toEqual({
      id: johnDoe.id,
      uuid: johnDoe.uuid,
      name: 'John Doe',
      slug: 'john',
      full_slug: 'people/john',
      url: 'people/john',
    });
    expect(a.story).toBe(b.story);

    const link = createResolver({ links: 'link' }, lookup);
    const layout = link.resolve(byName(stories, 'Layout')).story;
    const navLinks = (layout.content.header as any[])[0].nav_links.map((n: any) => n.link);
    expect(navLinks.map((l: any) => l.cached_url)).toEqual(['home', 'article/']);
    expect(navLinks[1].story).toEqual({
      id: 123616137,
      uuid: 'd637be7f-8187-4e8b-9434-93390541f42b',
      slug: 'article/',
      full_slug: 'article/',
      name: 'Overview',
      is_folder: false,
      parent_id: 123616128,
      published: true,
      position: expect.any(Number),
      is_startpage: true,
      real_path: '/article/',
    });
  });

  it('empty story links, url links and everything else stay as they are', () => {
    const resolver = createResolver({ links: 'story' }, lookup);
    // Multilinks of the story's own content (not those of embedded targets).
    const multilinks = (s: Story) => nodes(s.content, ['story']).filter((n) => n.fieldtype === 'multilink');
    let storyLinks = 0;
    for (const original of space) {
      const { story, missing } = resolver.resolve(original);
      expect(missing).toEqual([]);
      const before = multilinks(original);
      const after = multilinks(story);
      expect(after).toHaveLength(before.length);
      after.forEach((link, i) => {
        if (link.linktype === 'story' && link.id !== '') {
          storyLinks++;
          expect(link.story.uuid).toBe(link.id);
        } else {
          expect(link).toBe(before[i]);
        }
      });
      if (!before.some((l) => l.linktype === 'story' && l.id !== '')) expect(story.content).toBe(original.content);
    }
    expect(storyLinks).toBe(5);
    expect(space.flatMap((s) => multilinks(s)).length).toBeGreaterThan(170);
  });

  it('detection resolves the categories but never a multilink id', () => {
    const { story } = createResolver({ detectRelations: true }, lookup).resolve(articles[0]!);
    expect(story.content.categories).toEqual([byName(stories, 'Illustration')]);
    expect(story.content.author).toBe(articles[0]!.content.author);
  });

  it('link marks of rich text, next to multilinks', () => {
    const doc = realdata('johannes-lindgren-storyblok/richtext-one-of-each.json');
    const target = deepFreeze({
      ...byName(stories, 'Home'),
      uuid: '76e43a9d-8e08-43ff-8209-d718187c1369',
      id: 1,
      full_slug: 'docs/rich-text',
    });
    const page = deepFreeze({ ...articles[0]!, content: { ...articles[0]!.content, body: doc } });
    const { story, references } = createResolver({ links: 'url' }, lookupOf([...space, target, page])).resolve(page);
    const marks = nodes(story.content.body).filter((n) => n.type === 'link');
    const story_ = marks.filter((m) => m.attrs.linktype === 'story');
    expect(story_).toHaveLength(1);
    expect(story_[0].attrs.href).toBe('/docs/rich-text');
    expect(story_[0].attrs.story.url).toBe('docs/rich-text');
    const originals = nodes(page.content.body).filter((n) => n.type === 'link' && n.attrs.linktype !== 'story');
    for (const mark of marks.filter((m) => m.attrs.linktype !== 'story')) expect(originals).toContain(mark);
    expect((story.content.author as any).cached_url).toBe('people/john');
    expect(references).toEqual([johnDoe.uuid, target.uuid].sort());
  });
});
