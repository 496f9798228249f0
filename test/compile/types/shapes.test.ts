import { describe, expect, it } from 'vitest';
import { TypeInferrer, printType, renamedTypes } from '../../../src/compile/types/index.js';
import type { InferOptions, TypeModel } from '../../../src/compile/types/index.js';
import type { Story } from '../../../src/api/index.js';
import { readReal, story, storiesOf } from './helpers.js';
import { describeRealdata, itRealdata } from '../../helpers/realdata.js';

function infer(stories: Story[], options?: InferOptions): TypeModel {
  const t = new TypeInferrer(options);
  for (const s of stories) t.add(s);
  return t.model();
}

function field(model: TypeModel, component: string, key: string): string {
  const c = model.components.find((x) => x.name === component);
  if (!c) throw new Error(`no component ${component}`);
  const f = c.fields.find((x) => x.key === key);
  if (!f) throw new Error(`no field ${component}.${key}`);
  return `${f.optional ? '?' : ''}${printType(f.type)}`;
}

function typeName(model: TypeModel, component: string): string {
  return model.components.find((x) => x.name === component)!.typeName;
}

const allFields = (): Story[] => storiesOf(readReal('laravel-storyblok/all-fields.json'));

describeRealdata('field shapes from laravel-storyblok/all-fields.json', () => {
  const m = infer(allFields());
  it('types scalars, numbers as strings and dates', () => {
    expect(field(m, 'all-fields', 'text')).toBe('string');
    expect(field(m, 'all-fields', 'number')).toBe('NumericString');
    expect(field(m, 'all-fields', 'datetime')).toBe('DateString');
    expect(field(m, 'all-fields', 'boolean')).toBe('boolean');
    expect(field(m, 'all-fields', 'filled_default')).toBe('""');
  });
  it('types assets, the empty asset and multiassets (items without fieldtype, empty as "")', () => {
    expect(field(m, 'all-fields', 'hero')).toBe('Asset');
    expect(field(m, 'all-fields', 'asset_empty')).toBe('EmptyAsset');
    expect(field(m, 'all-fields', 'multi_assets')).toBe('Multiasset');
    expect(field(m, 'all-fields', 'multi_assets_empty')).toBe('""');
    const fieldtype = m.multiassetItem.find((f) => f.key === 'fieldtype')!;
    expect(fieldtype.optional).toBe(true);
    expect(m.asset.find((f) => f.key === 'fieldtype')!.optional).toBe(false);
    expect(printType(m.asset.find((f) => f.key === 'id')!.type)).toBe('number | null');
  });
  it('types multilinks as the linktype union and tables with their cells', () => {
    for (const k of ['link_story', 'link_anchor', 'link_url', 'link_email', 'link_asset'])
      expect(field(m, 'all-fields', k)).toBe('Multilink');
    expect(m.links.map((l) => l.typeName)).toEqual(['AssetLink', 'EmailLink', 'StoryLink', 'UrlLink']);
    const email = m.links.find((l) => l.name === 'email')!;
    expect(printType(email.fields.find((f) => f.key === 'linktype')!.type)).toBe('"email"');
    expect(email.fields.find((f) => f.key === 'email')!.optional).toBe(false);
    expect(field(m, 'all-fields', 'table')).toBe('Table');
  });
  it('types bloks as the union of observed components, a blok named asset, capitalised Person, [] explicitly', () => {
    expect(field(m, 'all-fields', 'blocks')).toBe('(PersonBlok | AssetBlok | BlocksBlok)[]');
    expect(field(m, 'blocks', 'blocks')).toBe('(PersonBlok | TeaserBlok)[]');
    expect(typeName(m, 'asset')).toBe('AssetBlok');
    expect(typeName(m, 'Person')).toBe('PersonBlok');
    expect(field(m, 'all-fields', 'blocks_empty')).toBe('[]');
    expect(field(m, 'all-fields', 'richtext')).toBe('RichText');
  });
  it('keeps option values that repeat as literals, single ones as string', () => {
    expect(field(m, 'all-fields', 'multi_options')).toBe('string[]');
    const twice = infer([
      story({ component: 'p', o: ['a', 'b'] }),
      story({ component: 'p', o: ['b', 'a'] }),
      story({ component: 'p', o: [] }),
    ]);
    expect(field(twice, 'p', 'o')).toBe('("a" | "b")[]');
    const single = infer([
      story({ component: 'p', s: 'x' }),
      story({ component: 'p', s: 'x' }),
      story({ component: 'p', s: '' }),
    ]);
    expect(field(single, 'p', 's')).toBe('"" | "x"');
    const off = infer([story({ component: 'p', s: 'x' }), story({ component: 'p', s: 'x' })], { maxLiterals: 0 });
    expect(field(off, 'p', 's')).toBe('string');
  });
});

describe('realdata quirks', () => {
  itRealdata(
    'laravel folder.json: "" in one story and an asset in another, real JSON integer, dates with seconds, missing fields',
    () => {
      const m = infer(storiesOf(readReal('laravel-storyblok/folder.json')));
      expect(field(m, 'news', 'image')).toBe('"" | Asset');
      expect(field(m, 'news', 'legacy_id')).toBe('number');
      expect(field(m, 'news', 'date')).toBe('DateString');
      expect(field(m, 'news', 'tags')).toBe('?[]');
      expect(printType(m.asset.find((f) => f.key === 'id')!.type)).toBe('NumericString | number | null');
    },
  );
  itRealdata('multi-option-self.json: numeric-looking option values stay strings', () => {
    const m = infer(storiesOf(readReal('laravel-storyblok/multi-option-self.json')));
    expect(field(m, 'test-component', 'test_field')).toBe('string[]');
    expect(typeName(m, 'test-component')).toBe('TestComponentBlok');
  });
  itRealdata(
    'astro playground: hyphenated and capitalised components, relations inside the set, a field missing in one story',
    () => {
      const m = infer(storiesOf(readReal('storyblok-astro/playground-content-layer.stories.decoded.json')));
      expect(typeName(m, 'Article')).toBe('ArticleContent');
      expect(m.components.find((c) => c.name === 'Article')!.storyName).toBe('ArticleStory');
      expect(typeName(m, 'featured-articles')).toBe('FeaturedArticlesBlok');
      expect(typeName(m, 'blok-with-hyphen')).toBe('BlokWithHyphenBlok');
      expect(field(m, 'Article', 'author')).toBe('?Relation<AuthorStory>');
      expect(field(m, 'featured-articles', 'posts')).toBe('Relation<ArticleStory>[]');
      expect(field(m, 'author', 'article')).toBe('Relation<ArticleStory>[]');
      expect(field(m, 'teaser', 'text')).toBe('?RichText<FeatureBlok | GridBlok>');
    },
  );
  itRealdata('laravel relation set: single and multi relations by uuid, capitalised Person inside', () => {
    const stories = [
      'relation.json',
      'aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46.json',
      'cb1bb01a-e414-49ed-85d0-03f63f35171f.json',
    ].flatMap((f) => storiesOf(readReal(`laravel-storyblok/${f}`)));
    const alone = infer(stories.slice(0, 1));
    expect(field(alone, 'relation', 'single_option_story')).toBe('string');
    // The fixtures are addressed by file name; the stories inside carry other uuids, so the targets' types are unknown.
    const m = infer(stories, {
      storyUuids: new Set(['aa2cd950-da3a-4d7e-9c51-5eaaf5e0af46', 'cb1bb01a-e414-49ed-85d0-03f63f35171f']),
    });
    expect(field(m, 'relation', 'single_option_story')).toBe('Relation<AnyStory>');
    expect(field(m, 'relation', 'multi_options_stories')).toBe('Relation<AnyStory>[]');
    expect(typeName(m, 'Person')).toBe('PersonBlok');
  });
  it('relations from options: configured pairs and storyUuids', () => {
    const target = story({ component: 'author', name: 'A' });
    const s = story({ component: 'article', author: target.uuid, missing: '11111111-2222-4333-8444-555555555555' });
    const configured = infer([s], { relations: ['article.missing'] });
    expect(field(configured, 'article', 'missing')).toBe('Relation<AnyStory>');
    const byUuids = infer([s, target], { storyUuids: new Set([target.uuid, '11111111-2222-4333-8444-555555555555']) });
    expect(field(byUuids, 'article', 'author')).toBe('Relation<AuthorStory>');
    expect(field(byUuids, 'article', 'missing')).toBe('Relation<AnyStory>');
  });
  itRealdata('richtext.json: blok nodes type their bloks, which become component types', () => {
    const m = infer(storiesOf(readReal('laravel-storyblok/richtext.json')));
    expect(field(m, 'test', 'body')).toBe('RichText<ButtonBlok | PersonBlok>');
    expect(field(m, 'button', 'theme')).toBe('ThemeBlok[]');
    expect(field(m, 'button', 'link')).toBe('Multilink');
  });
  itRealdata('php-client v2: plugin fields typed per plugin', () => {
    const m = infer(storiesOf(readReal('storyblok-php-client/v2-stories.json')));
    const plugin = m.plugins.find((p) => p.name === 'example_plugin')!;
    expect(plugin.typeName).toBe('PluginExamplePlugin');
    expect(printType(plugin.fields.find((f) => f.key === 'plugin')!.type)).toBe('"example_plugin"');
    const using = m.components.flatMap((c) => c.fields.filter((f) => printType(f.type) === 'PluginExamplePlugin'));
    expect(using.length).toBeGreaterThan(0);
  });
  it('datasource values become the datasource name union', () => {
    const stories = [
      story({ component: 'p', color: 'red' }),
      story({ component: 'p', color: 'blue' }),
      story({ component: 'p', color: '' }),
    ];
    const m = infer(stories, {
      datasources: [
        { slug: 'colors', names: ['red', 'blue', 'green'] },
        { slug: 'sizes', names: ['s', 'm'] },
      ],
    });
    expect(field(m, 'p', 'color')).toBe('"" | "blue" | "green" | "red"');
    const none = infer([...stories, story({ component: 'p', color: 'pink' })], {
      datasources: [{ slug: 'colors', names: ['red', 'blue', 'green'] }],
    });
    expect(field(none, 'p', 'color')).toBe('string');
  });
  it('nullability is separate from optionality', () => {
    const m = infer([story({ component: 'p', a: null, b: 'x' }), story({ component: 'p', a: 'y' })]);
    expect(field(m, 'p', 'a')).toBe('string | null');
    expect(field(m, 'p', 'b')).toBe('?string');
  });
  it('unknown rich-text nodes and marks are typed rather than rejected', () => {
    const doc = {
      type: 'doc',
      content: [{ type: 'details', content: [{ type: 'text', text: 'x', marks: [{ type: 'glow' }] }] }],
    };
    const t = new TypeInferrer();
    t.add(story({ component: 'p', body: doc }));
    expect(t.model().richText).toEqual({ nodes: ['details'], marks: ['glow'] });
    expect(t.emit()).toContain('type: "details";');
  });
});

describe('names', () => {
  it('are collision free after normalisation and avoid runtime names', () => {
    const m = infer([
      story({ component: 'Person' }),
      story({ component: 'person' }),
      story({
        component: 'page',
        body: [
          { _uid: 'a', component: 'person' },
          { _uid: 'b', component: 'Person' },
          { _uid: 'c', component: '1-col' },
          { _uid: 'd', component: 'popular-articles' },
          { _uid: 'e', component: 'popular_articles' },
          { _uid: 'f', component: 'table' },
        ],
      }),
      story({ component: 'any' }),
      story({ component: 'Story' }),
    ]);
    const names = m.components.map((c) => [c.name, c.typeName, c.storyName ?? '']);
    expect(names).toEqual([
      ['1-col', 'C1ColBlok', ''],
      ['Person', 'Person2Content', 'Person2Story'],
      ['Story', 'StoryContent', 'StoryStory'],
      ['any', 'Any2Content', 'Any2Story'],
      ['page', 'PageContent', 'PageStory'],
      ['person', 'PersonContent', 'PersonStory'],
      ['popular-articles', 'PopularArticles2Blok', ''],
      ['popular_articles', 'PopularArticlesBlok', ''],
      ['table', 'TableBlok', ''],
    ]);
    // Each renamed one is said, with what holds its name.
    expect(renamedTypes(m.components)).toEqual([
      'component "Person" is typed Person2Content and Person2Story: PersonContent is taken by component "person"',
      'component "any" is typed Any2Content and Any2Story: AnyContent is taken by the runtime',
      'component "popular-articles" is typed PopularArticles2Blok: PopularArticlesBlok is taken by component "popular_articles"',
    ]);
  });

  it('a component added in another spelling does not take the type name of the conventional one', () => {
    const articles = [
      story({ component: 'article' }),
      story({ component: 'page', body: [{ _uid: 'h', component: 'hero_block' }] }),
    ];
    const before = infer(articles).components.map((c) => [c.name, c.typeName]);
    const after = infer([
      ...articles,
      story({ component: 'Article' }),
      story({
        component: 'page',
        body: [
          { _uid: 'i', component: 'HeroBlock' },
          { _uid: 'j', component: 'hero-block' },
        ],
      }),
    ]).components.map((c) => [c.name, c.typeName]);
    for (const kept of before) expect(after).toContainEqual(kept);
    expect(after).toContainEqual(['Article', 'Article2Content']);
  });
});

describe('content keys named like Object.prototype members', () => {
  it('types a nested object key `__proto__` by its values (a plain object inherits one)', () => {
    const m = infer([
      story({ component: 'page', meta: JSON.parse('{"__proto__": "x", "constructor": 1, "title": "t"}') }),
      story({ component: 'page', meta: JSON.parse('{"__proto__": "y", "constructor": 2, "title": "u"}') }),
    ]);
    expect(field(m, 'page', 'meta').replace(/\s+/g, ' ')).toBe(
      '{ "__proto__": string; constructor: number; title: string; }',
    );
  });
});
