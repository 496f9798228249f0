/**
 * Small stories for the resolution and module tests: story n has id n, a
 * uuid made from n, and the content given (a `page` unless it says otherwise).
 */
import type { Story } from '../../../src/api/index.js';

export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function story(n: number, content: Record<string, unknown>, fields: Partial<Story> = {}): Story {
  return {
    id: n,
    uuid: uuid(n),
    name: `Story ${n}`,
    slug: `story-${n}`,
    full_slug: `stories/story-${n}`,
    created_at: '2024-01-01T00:00:00.000Z',
    published_at: '2024-01-01T00:00:00.000Z',
    first_published_at: '2024-01-01T00:00:00.000Z',
    lang: 'default',
    content: { _uid: `uid-${n}`, component: 'page', ...content },
    position: 0,
    is_startpage: false,
    parent_id: 0,
    group_id: `group-${n}`,
    alternates: [],
    tag_list: [],
    ...fields,
  };
}
