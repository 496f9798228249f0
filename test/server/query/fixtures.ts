import { StoriesEnvelopeV2, StoryListQuery, type Story, type StoryListQueryInput } from '../../../src/api/index.js';
import { parseFilterQuery, type Candidate, type FilterNode } from '../../../src/server/query/index.js';
import { realdata } from '../../helpers/realdata.js';

let nextId = 1;

type StoryField =
  | 'id'
  | 'uuid'
  | 'name'
  | 'slug'
  | 'full_slug'
  | 'created_at'
  | 'published_at'
  | 'first_published_at'
  | 'lang'
  | 'position'
  | 'is_startpage'
  | 'parent_id'
  | 'tag_list';
export type StoryFields = { [K in StoryField]?: Story[K] } & { content?: Record<string, unknown> };

/** A minimal valid story; `content` is merged over `{component: 'page', _uid}`. */
export function makeStory(fields: StoryFields = {}): Story {
  const id = fields.id ?? nextId++;
  const slug = fields.slug ?? `story-${id}`;
  const { content, ...rest } = fields;
  return {
    id,
    uuid: `uuid-${id}`,
    name: `Story ${id}`,
    slug,
    full_slug: slug,
    created_at: '2024-01-01T00:00:00.000Z',
    published_at: '2024-01-01T00:00:00.000Z',
    first_published_at: '2024-01-01T00:00:00.000Z',
    lang: 'default',
    position: 0,
    is_startpage: false,
    parent_id: null,
    group_id: `group-${id}`,
    alternates: [],
    tag_list: [],
    ...rest,
    content: { component: 'page', _uid: `uid-${id}`, ...content },
  };
}

export function candidate(story: Story, extra: Partial<Omit<Candidate, 'story'>> = {}): Candidate {
  return { story, matchSlug: story.full_slug, workflowStageId: null, updatedAt: null, ...extra };
}

/** A list query as the server receives it: wire strings through the zod schema. */
export function query(params: Omit<StoryListQueryInput, 'token'> = {}): StoryListQuery {
  return StoryListQuery.parse({ token: 'token', ...params });
}

/** Parses `filter_query[...]` pairs given as `key=value` lines of a query string. */
export function filter(search: string): FilterNode | null {
  const params = new URLSearchParams(search);
  return parseFilterQuery([...params.entries()]);
}

export function ids(candidates: readonly Candidate[]): number[] {
  return candidates.map((c) => c.story.id);
}

export function loadRealStories(): Story[] {
  return StoriesEnvelopeV2.parse(realdata('storyblok-php-client/v2-stories.json')).stories;
}
