import { expect, it } from 'vitest';
import { excludeFields, selectStories } from '../../../src/server/query/index.js';
import { candidate, filter, loadRealStories, query } from './fixtures.js';
import { describeRealdata } from '../../helpers/realdata.js';

/** 13 stories recorded from a public demo space (v2, published). */
describeRealdata('recorded stories', () => {
  const stories = loadRealStories();
  const candidates = stories.map((s) => candidate(s));
  const slugs = (params: Parameters<typeof query>[0], search = ''): string[] =>
    selectStories(candidates, query(params), filter(search)).map((c) => c.story.full_slug);

  it('loads the recording', () => {
    expect(stories).toHaveLength(13);
  });
  it('starts_with a folder includes its start page', () => {
    expect(slugs({ starts_with: 'article/' })).toEqual([
      'article/',
      'article/article-2',
      'article/article-3',
      'article/article-1',
    ]);
  });
  it('content_type and filter_query[component]', () => {
    expect(slugs({ content_type: 'author' })).toEqual(['authors/mister-master', 'authors/john-doe']);
    expect(slugs({}, 'filter_query[component][in]=author,global')).toEqual([
      'authors/mister-master',
      'authors/john-doe',
      'global',
    ]);
  });
  it('level 1 and 2 (start pages excluded)', () => {
    expect(slugs({ level: '1' })).toEqual(['home', 'global']);
    expect(slugs({ level: '2' })).toHaveLength(10);
    expect(slugs({ level: '2' })).not.toContain('article/');
  });
  it('is_startpage', () => {
    expect(slugs({ is_startpage: '1' })).toEqual(['article/']);
    expect(slugs({ is_startpage: '0' })).toHaveLength(12);
  });
  it('by_slugs with wildcard and excluding_slugs', () => {
    expect(slugs({ by_slugs: 'authors/*,home' })).toEqual(['authors/mister-master', 'authors/john-doe', 'home']);
    expect(slugs({ starts_with: 'blocks/', excluding_slugs: '*/headers,*footers' })).toEqual(['blocks/call-to-action']);
  });
  it('by_uuids_ordered returns the given order', () => {
    const [a, b, c] = [stories[7]!, stories[0]!, stories[12]!];
    expect(
      selectStories(candidates, query({ by_uuids_ordered: `${a.uuid},${b.uuid},${c.uuid}` }), null).map(
        (x) => x.story.id,
      ),
    ).toEqual([a.id, b.id, c.id]);
  });
  it('filter_query on a dotted path into a multilink', () => {
    const author = stories.find((s) => s.full_slug === 'authors/john-doe')!;
    expect(slugs({}, `filter_query[author.id][in]=${author.uuid}`)).toEqual([
      'article/article-2',
      'article/article-3',
      'article/article-1',
    ]);
    expect(slugs({}, 'filter_query[author.cached_url][like]=authors/*')).toHaveLength(3);
    expect(slugs({}, `filter_query[author.id][not_in]=${author.uuid}&filter_query[component][in]=article`)).toEqual([]);
    expect(slugs({}, `filter_query[author][in]=${author.uuid}`)).toEqual([]);
  });
  it('filter_query on multi-option arrays of uuids', () => {
    expect(slugs({}, 'filter_query[categories][is]=not_empty_array')).toEqual([
      'article/article-2',
      'article/article-3',
      'article/article-1',
    ]);
    expect(slugs({ content_type: 'article' }, 'filter_query[categories][is]=empty_array')).toEqual([]);
    expect(slugs({}, 'filter_query[categories][is]=empty_array')).toHaveLength(10);
    const webDesign = stories.find((s) => s.full_slug === 'categories/web-design')!;
    const illustration = stories.find((s) => s.full_slug === 'categories/illustration')!;
    expect(slugs({}, `filter_query[categories][in_array]=${webDesign.uuid}`)).toEqual([
      'article/article-2',
      'article/article-3',
    ]);
    expect(slugs({}, `filter_query[categories][any_in_array]=${webDesign.uuid},${illustration.uuid}`)).toHaveLength(3);
    expect(slugs({}, `filter_query[categories][all_in_array]=${webDesign.uuid},${illustration.uuid}`)).toEqual([]);
    expect(
      slugs(
        {},
        `filter_query[__or][][categories][in_array]=${illustration.uuid}&filter_query[__or][][component][in]=author`,
      ),
    ).toEqual(['authors/mister-master', 'authors/john-doe', 'article/article-1']);
  });
  it('sort_by position and first_published_at', () => {
    const positions = selectStories(candidates, query({ sort_by: 'position:asc' }), null).map((c) => c.story.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(slugs({ sort_by: 'first_published_at:desc' })[0]).toBe('home');
    expect(slugs({ sort_by: 'published_at:desc' }).slice(0, 2)).toEqual(['home', 'blocks/call-to-action']);
  });
  it('published_at and first_published_at ranges', () => {
    expect(slugs({ published_at_gt: '2020-01-01 00:00' })).toEqual(['home', 'blocks/call-to-action']);
    expect(slugs({ first_published_at_gt: '2020-01-01 00:00' })).toEqual([]);
    expect(slugs({ first_published_at_gte: '2018-05-23 12:24', first_published_at_lt: '2018-07-01 00:00' })).toEqual([
      'article/article-1',
    ]);
  });
  it('search_term finds text deep inside content', () => {
    expect(slugs({ search_term: 'JOHN' })).toContain('authors/john-doe');
    expect(slugs({ search_term: 'zzzz-not-there' })).toEqual([]);
  });
  it('excluding_fields on a recorded article', () => {
    const article = stories.find((s) => s.content.component === 'article')!;
    const out = excludeFields(article, ['long_text', 'intro']);
    expect(Object.keys(out.content).sort()).toEqual([
      '_uid',
      'author',
      'categories',
      'component',
      'teaser_image',
      'title',
    ]);
  });
});
