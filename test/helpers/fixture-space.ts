/**
 * A small, hand-made space whose every value is known, for conformance tests.
 *
 *   home (start page of the root)                       id 10, page
 *   blog/ (folder 1) start page                         id 11, page
 *   blog/first-post, blog/second-post, blog/third-post  ids 12-14, article
 *   blog/draft-only (never published)                   id 15, article
 *   authors/ (folder 2) jane, john                      ids 16-17, author
 *   de/ (folder 3, named like a language code) about    id 18, page
 *   products/shoes/ (folders 4, 5) runner, trail        ids 19-20, product
 */
import type { Story } from '../../src/api/index.js';
import type { SpaceData, StoryRecord, StoryVersion } from '../../src/snapshot/index.js';

export const SPACE_VERSION = 1_700_000_000;

export const uuidOf = (id: number) => `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`;

interface Spec {
  id: number;
  name: string;
  slug: string;
  full_slug: string;
  parent_id: number;
  is_startpage?: boolean;
  position?: number;
  tags?: string[];
  content: Record<string, unknown> & { component: string };
  published_at?: string | null;
  first_published_at?: string | null;
  created_at?: string;
  de?: { full_slug: string; content?: Record<string, unknown>; path: string };
}

function story(spec: Spec): Story {
  const translated = spec.de ? [{ path: spec.de.path, name: spec.name, lang: 'de' }] : [];
  return {
    name: spec.name,
    created_at: spec.created_at ?? '2024-01-01T10:00:00.000Z',
    published_at: spec.published_at === undefined ? '2024-02-01T10:00:00.000Z' : spec.published_at,
    id: spec.id,
    uuid: uuidOf(spec.id),
    content: { _uid: `uid-${spec.id}`, ...spec.content },
    slug: spec.slug,
    full_slug: spec.full_slug,
    sort_by_date: null,
    position: spec.position ?? 0,
    tag_list: spec.tags ?? [],
    is_startpage: spec.is_startpage ?? false,
    parent_id: spec.parent_id,
    meta_data: null,
    group_id: `group-${spec.id}`,
    first_published_at: spec.first_published_at === undefined ? '2024-02-01T10:00:00.000Z' : spec.first_published_at,
    release_id: null,
    lang: 'default',
    path: null,
    alternates: [],
    default_full_slug: spec.full_slug,
    translated_slugs: translated,
  } as Story;
}

function version(spec: Spec): StoryVersion {
  const v: StoryVersion = { story: story(spec) };
  if (spec.de)
    v.languages = { de: { full_slug: spec.de.full_slug, ...(spec.de.content ? { content: spec.de.content } : {}) } };
  return v;
}

const multilink = (target: number, cached: string) => ({
  fieldtype: 'multilink',
  linktype: 'story',
  id: uuidOf(target),
  url: '',
  cached_url: cached,
});

export function fixtureSpace(): SpaceData {
  const specs: Spec[] = [
    {
      id: 10,
      name: 'Home',
      slug: 'home',
      full_slug: 'home',
      parent_id: 0,
      position: -10,
      tags: ['featured'],
      content: {
        component: 'page',
        title: 'Welcome',
        featured: [uuidOf(12), uuidOf(13)],
        cta: multilink(12, 'blog/old-first-post'),
      },
      de: { full_slug: 'de/home', path: 'home', content: { title: 'Willkommen' } },
    },
    {
      id: 11,
      name: 'Blog',
      slug: '',
      full_slug: 'blog/',
      parent_id: 1,
      is_startpage: true,
      content: { component: 'page', title: 'The blog' },
    },
    {
      id: 12,
      name: 'First post',
      slug: 'first-post',
      full_slug: 'blog/first-post',
      parent_id: 1,
      position: 2,
      tags: ['news', 'tech'],
      published_at: '2024-03-01T08:00:00.000Z',
      first_published_at: '2024-03-01T08:00:00.000Z',
      content: {
        component: 'article',
        title: 'Alpha news',
        rating: '5',
        price: '19.99',
        date: '2024-03-01 08:00',
        author: uuidOf(16),
        categories: ['a', 'b'],
        published: true,
        seo: { title: 'SEO alpha' },
        body: {
          type: 'doc',
          content: [
            {
              type: 'paragraph',
              content: [
                {
                  type: 'text',
                  text: 'Hello',
                  marks: [{ type: 'link', attrs: { linktype: 'story', uuid: uuidOf(13), href: '/blog/second-post' } }],
                },
              ],
            },
          ],
        },
      },
      de: { full_slug: 'de/blog/erster-beitrag', path: 'blog/erster-beitrag', content: { title: 'Alpha Nachrichten' } },
    },
    {
      id: 13,
      name: 'Second post',
      slug: 'second-post',
      full_slug: 'blog/second-post',
      parent_id: 1,
      position: 1,
      tags: ['news'],
      published_at: '2024-04-01T08:00:00.000Z',
      first_published_at: '2024-03-15T08:00:00.000Z',
      content: {
        component: 'article',
        title: 'Beta story',
        rating: '12',
        price: '5.5',
        date: '2024-04-01 08:00',
        author: uuidOf(17),
        categories: ['b'],
        published: false,
        seo: { title: '' },
      },
    },
    {
      id: 14,
      name: 'Third post',
      slug: 'third-post',
      full_slug: 'blog/third-post',
      parent_id: 1,
      position: 3,
      tags: ['tech'],
      published_at: '2024-05-01T08:00:00.000Z',
      first_published_at: '2024-05-01T08:00:00.000Z',
      content: {
        component: 'article',
        title: 'Gamma john',
        rating: 'n/a',
        date: '2024-05-01 08:00',
        author: uuidOf(16),
        categories: [],
      },
    },
    {
      id: 15,
      name: 'Draft only',
      slug: 'draft-only',
      full_slug: 'blog/draft-only',
      parent_id: 1,
      tags: ['secret'],
      published_at: null,
      first_published_at: null,
      content: { component: 'article', title: 'Not yet' },
    },
    {
      id: 16,
      name: 'Jane',
      slug: 'jane',
      full_slug: 'authors/jane',
      parent_id: 2,
      tags: ['people'],
      content: { component: 'author', name: 'Jane Doe', articles: [uuidOf(12), uuidOf(14)] },
    },
    {
      id: 17,
      name: 'John',
      slug: 'john',
      full_slug: 'authors/john',
      parent_id: 2,
      tags: ['people'],
      content: { component: 'author', name: 'John Roe', articles: [uuidOf(13)] },
    },
    {
      id: 18,
      name: 'About',
      slug: 'about',
      full_slug: 'de/about',
      parent_id: 3,
      content: { component: 'page', title: 'About the de folder' },
    },
    {
      id: 19,
      name: 'Runner',
      slug: 'runner',
      full_slug: 'products/shoes/runner',
      parent_id: 5,
      tags: ['shop'],
      content: {
        component: 'product',
        title: 'Runner',
        price: '89.00',
        image: {
          fieldtype: 'asset',
          id: 501,
          filename: 'https://assets.example.com/runner.jpg',
          alt: 'Runner',
          title: '',
          copyright: '',
          focus: '',
          name: '',
          source: '',
          is_external_url: false,
          meta_data: {},
        },
      },
    },
    {
      id: 20,
      name: 'Trail',
      slug: 'trail',
      full_slug: 'products/shoes/trail',
      parent_id: 5,
      tags: ['shop'],
      content: {
        component: 'product',
        title: 'Trail',
        price: '120',
        image: { fieldtype: 'asset', id: null, filename: '' },
      },
    },
  ];
  const records: StoryRecord[] = specs.map((spec) => {
    const unpublished = spec.published_at === null;
    const record: StoryRecord = {
      id: spec.id,
      uuid: uuidOf(spec.id),
      updated_at: '2024-06-01T00:00:00.000Z',
      workflow_stage_id: spec.id % 2 === 0 ? 1 : 2,
    };
    if (unpublished) {
      record.published = null;
      record.draft = version(spec);
    } else {
      record.published = version(spec);
    }
    return record;
  });
  // Story 12's draft differs from its published version; story 13 has a release version.
  const r12 = records.find((r) => r.id === 12)!;
  r12.draft = structuredClone(r12.published!);
  r12.draft.story.content = { ...r12.draft.story.content, title: 'Alpha news (edited)' };
  const r13 = records.find((r) => r.id === 13)!;
  r13.releases = { '7': structuredClone(r13.published!) };
  r13.releases['7']!.story.content = { ...r13.releases['7']!.story.content, title: 'Beta story (release)' };
  r13.releases['7']!.story.release_id = 7;

  return {
    space: {
      id: 4242,
      name: 'Fixture space',
      domain: 'https://fixture.example.com/',
      version: SPACE_VERSION,
      language_codes: ['de'],
    },
    stories: records,
    folders: [
      { id: 1, uuid: uuidOf(1), name: 'Blog', slug: 'blog', full_slug: 'blog', parent_id: 0, position: 0 },
      { id: 2, uuid: uuidOf(2), name: 'Authors', slug: 'authors', full_slug: 'authors', parent_id: 0, position: 1 },
      { id: 3, uuid: uuidOf(3), name: 'De', slug: 'de', full_slug: 'de', parent_id: 0, position: 2 },
      { id: 4, uuid: uuidOf(4), name: 'Products', slug: 'products', full_slug: 'products', parent_id: 0, position: 3 },
      { id: 5, uuid: uuidOf(5), name: 'Shoes', slug: 'shoes', full_slug: 'products/shoes', parent_id: 4, position: 0 },
    ],
    datasources: [
      {
        datasource: {
          id: 100,
          name: 'Colors',
          slug: 'colors',
          dimensions: [{ id: 1001, entry_value: 'de', name: 'German' }],
        },
        entries: [
          { id: 1101, name: 'red', value: 'Red', dimension_values: { de: 'Rot' } },
          { id: 1102, name: 'blue', value: 'Blue', dimension_values: { de: 'Blau' } },
          { id: 1103, name: 'green', value: 'Green' },
        ],
      },
      {
        datasource: { id: 200, name: 'Countries', slug: 'countries', dimensions: [] },
        entries: Array.from({ length: 30 }, (_, i) => ({
          id: 2001 + i,
          name: `c${String(i).padStart(2, '0')}`,
          value: `Country ${i}`,
        })),
      },
    ],
    releases: [{ id: 7, name: 'Summer' }],
    workflowStages: [
      { id: 1, name: 'Drafting' },
      { id: 2, name: 'Review' },
    ],
  };
}
