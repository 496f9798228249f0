/**
 * The control plane (`--admin`), under `/__admin/`: JSON in, JSON out. It
 * changes content the way an editor would, so tests and demos can drive
 * cache versions and webhooks.
 */
import { z } from 'zod';
import { asSent } from '../api/index.js';
import { MAX_CONTENT_NESTING, nestingDepth } from '../snapshot/index.js';
import { errorReply, reply, type Reply } from './respond.js';
import { StoreError, structureOf, type ChangeEvent, type SpaceStore } from './store.js';

/**
 * A slug an editor's CMS makes: one path segment that a URL carries as it is, or none (a folder's
 * start page, whose full slug is its folder's: the store refuses it for anything else). `.`, `..`,
 * a backslash (a separator to browsers) or `%` would make paths that lead elsewhere or nowhere.
 */
const isSlug = (s: string): boolean => s === '' || (s !== '.' && s !== '..' && /^[^/\\?#%\s\p{Cc}]+$/u.test(s));
const SLUG_RULE = 'must not be . or .., nor contain /, \\, ?, #, %, spaces or control characters';

/** A translated path: slugs joined by `/`, ending in one for a start page (`artikel/`), none empty but that last. */
const isSlugPath = (p: string): boolean => {
  const segments = p.split('/');
  const last = segments.pop()!;
  return segments.every((s) => s !== '' && isSlug(s)) && isSlug(last);
};

/**
 * An object of any keys, checked as `z.record` checks it and given back as sent (see asSent): a key
 * named `__proto__` (a content field or dimension, data like any other name) stays an own property,
 * and its value, which `z.record` skips, is checked as the others are.
 */
function ownRecord<T extends z.ZodType>(values: T) {
  return asSent(z.record(z.string(), values)).superRefine((value, ctx) => {
    const proto = Object.getOwnPropertyDescriptor(value, '__proto__');
    const own = proto && values.safeParse(proto.value);
    for (const issue of own?.error?.issues ?? [])
      ctx.addIssue({ ...issue, code: 'custom', path: ['__proto__', ...issue.path] });
  });
}

const TranslatedSlugInput = z.object({
  path: z.string().refine(isSlugPath, `path must be slugs joined by /: each ${SLUG_RULE}`),
  name: z.string().nullable().default(null),
  lang: z.string(),
});

/** The keys of a story's content that the delivery API gives as strings, whatever the content type. */
const CONTENT_STRINGS = ['component', '_uid'] as const;

const StoryInput = z.strictObject({
  name: z.string().min(1).optional(),
  slug: z.string().refine(isSlug, `slug ${SLUG_RULE}`).optional(),
  parent_id: z.number().int().nonnegative().nullable().optional(),
  is_folder: z.boolean().optional(),
  is_startpage: z.boolean().optional(),
  position: z.number().int().optional(),
  content: ownRecord(z.unknown())
    .refine((c) => nestingDepth(c) <= MAX_CONTENT_NESTING, {
      error: (issue) =>
        `nested ${nestingDepth(issue.input)} levels deep, more than the ${MAX_CONTENT_NESTING} the service accepts`,
    })
    // The delivery contract's (StoryContent): delivered, any other kind fails every sync of the space.
    .refine((c) => CONTENT_STRINGS.every((k) => !Object.hasOwn(c, k) || typeof c[k] === 'string'), {
      error: 'component and _uid are strings, as the delivery API gives them',
    })
    .optional(),
  tag_list: z.array(z.string()).optional(),
  lang: z.string().optional(),
  translated_slugs: z.array(TranslatedSlugInput).nullable().optional(),
  uuid: z.string().min(1).optional(),
});

const DatasourceInput = z.strictObject({
  name: z.string().optional(),
  dimensions: z.array(z.object({ name: z.string(), entry_value: z.string().min(1) })).optional(),
  entries: z.array(
    z.object({
      name: z.string().min(1),
      value: z.string(),
      dimension_values: ownRecord(z.string()).optional(),
    }),
  ),
});

export interface RequestStats {
  since: string;
  total: number;
  cached: number;
  by_route: Record<string, number>;
  by_status: Record<string, number>;
}

export class Stats {
  #data: RequestStats = Stats.#empty();

  static #empty(): RequestStats {
    return { since: new Date().toISOString(), total: 0, cached: 0, by_route: {}, by_status: {} };
  }

  count(route: string, status: number, cached: boolean): void {
    const d = this.#data;
    d.total++;
    if (cached) d.cached++;
    d.by_route[route] = (d.by_route[route] ?? 0) + 1;
    d.by_status[String(status)] = (d.by_status[String(status)] ?? 0) + 1;
  }

  snapshot(): RequestStats {
    return structuredClone(this.#data);
  }

  reset(): void {
    this.#data = Stats.#empty();
  }
}

function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new StoreError(422, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return result.data;
}

/** Every story (folders included), by id: what an editor picks from before changing one. */
function storyList(
  store: SpaceStore,
): Array<{ id: number; name: string; full_slug: string; is_folder: boolean; published: boolean }> {
  const list = [];
  for (const record of store.records()) {
    const story = structureOf(record)?.story;
    if (!story) continue;
    list.push({
      id: record.id,
      name: story.name,
      full_slug: story.full_slug,
      is_folder: Boolean(story.is_folder),
      published: Boolean(record.published),
    });
  }
  // A folder has no published state of its own: false, as the links endpoint gives folders.
  for (const f of store.folders())
    list.push({ id: f.id, name: f.name, full_slug: f.full_slug, is_folder: true, published: false });
  return list.sort((a, b) => a.id - b.id);
}

/** Who hears of what the control plane changed. */
export interface AdminListeners {
  /** A change of published content or structure (what the real service posts a webhook for). */
  changed: (event: ChangeEvent) => void;
  /** A change of a story's draft alone (created, saved, translated, moved unpublished): no webhook. */
  draftChanged: (storyId: number) => void;
}

/** Routes one control-plane request; `on` hears what it changed. */
export function handleAdmin(
  store: SpaceStore,
  stats: Stats,
  method: string,
  pathname: string,
  body: unknown,
  on: AdminListeners,
): Reply {
  const path = pathname.replace(/^\/__admin/, '').replace(/\/$/, '') || '/';
  const done = (status: number, payload: unknown, event?: ChangeEvent): Reply => {
    if (event) on.changed(event);
    return reply(status, payload);
  };
  /** A story's draft changed and nothing else: told apart from a change with its event. */
  const drafted = (status: number, id: number, payload: unknown): Reply => {
    on.draftChanged(id);
    return reply(status, payload);
  };
  try {
    if (path === '/stats' && method === 'GET') return reply(200, stats.snapshot());
    if (path === '/stats/reset' && method === 'POST') {
      stats.reset();
      return reply(200, stats.snapshot());
    }
    if (path === '/space' && method === 'GET') return reply(200, { space: store.space });
    if (path === '/stories' && method === 'GET') return reply(200, { stories: storyList(store) });
    if (path === '/stories' && method === 'POST') {
      const input = parseBody(StoryInput, body);
      const created = store.createStory(input);
      return created.story.is_folder ? done(201, created) : drafted(201, created.story.id, created);
    }
    const storyMatch = /^\/stories\/(\d{1,15})(\/publish|\/unpublish)?$/.exec(path);
    if (storyMatch) {
      const id = Number(storyMatch[1]);
      const action = storyMatch[2];
      if (!action && method === 'GET') {
        const folder = store.folder(id);
        return reply(200, folder ? { folder } : { record: store.record(id) });
      }
      if (!action && method === 'PUT') {
        const input = parseBody(StoryInput.omit({ uuid: true, is_folder: true }), body);
        const { story, event } = store.updateStory(id, input);
        return event || story.is_folder ? done(200, { story }, event) : drafted(200, id, { story });
      }
      if (!action && method === 'DELETE') {
        const { event } = store.deleteStory(id);
        return done(200, { deleted: id }, event);
      }
      if (action === '/publish' && method === 'POST') {
        const { story, event } = store.publish(id);
        return done(200, { story }, event);
      }
      if (action === '/unpublish' && method === 'POST') {
        const { story, event } = store.unpublish(id);
        return done(200, { story }, event);
      }
    }
    const dsMatch = /^\/datasources\/([^/]+)\/entries$/.exec(path);
    if (dsMatch && method === 'PUT') {
      let slug: string;
      try {
        slug = decodeURIComponent(dsMatch[1]!);
      } catch {
        return errorReply(400, 'the datasource slug is not valid percent-encoding');
      }
      const input = parseBody(DatasourceInput, body);
      const { datasource, event } = store.replaceDatasourceEntries(slug, input);
      return done(200, { datasource }, event);
    }
    return errorReply(404, `no control-plane route ${method} /__admin${path === '/' ? '' : path}`);
  } catch (err) {
    if (err instanceof StoreError) return errorReply(err.status, err.message);
    throw err;
  }
}
