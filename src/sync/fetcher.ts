/**
 * What a sync asks the API for, in the fewest, cheapest requests: story
 * listings at 25 per page (the fastest tier), each page's stories fetched in
 * the other languages by uuid right away (so a page's records are complete
 * and can go to disk), datasources and entries at 1,000 per page in every
 * dimension, and tags.
 */
import { z } from 'zod';
import {
  DatasourceEntriesEnvelope,
  DatasourcesEnvelope,
  StoriesEnvelopeV1,
  StoriesEnvelopeV2,
  TagsEnvelope,
  type Datasource,
  type Space,
  type Story,
  type Tag,
} from '../api/index.js';
import { UntrustedCount, type ContentClient, type Params } from '../client/index.js';
import type { DatasourceRecord, DatasourceRecordEntry } from '../snapshot/index.js';
import type { View } from '../api/index.js';
import { InconsistentListing } from './inconsistent-listing.js';
import { MismatchedAnswer } from './mismatched-answer.js';

export const STORIES_PER_PAGE = 25;
export const ENTRIES_PER_PAGE = 1000;
/** Ids or uuids per by_ids / by_uuids request: one page of the fastest tier. */
export const BATCH = 25;

/** A story in the default language and in each other language. */
export interface StoryGroup {
  base: Story;
  variants: Map<string, Story>;
}

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export class SpaceFetcher {
  readonly languages: string[];

  constructor(
    readonly client: ContentClient,
    readonly space: Space,
  ) {
    // A code listed twice (a space directory edited by hand) is read once: twice, each story would come back twice.
    this.languages = [...new Set(space.language_codes)];
  }

  get #storiesSchema(): z.ZodType<{ stories: Story[] }> {
    return (this.client.api === 'v2' ? StoriesEnvelopeV2 : StoriesEnvelopeV1) as unknown as z.ZodType<{
      stories: Story[];
    }>;
  }

  #viewParams(view: View): { params: Params; withCv: boolean } {
    // The published view pins the cache version; drafts are never cached.
    return view === 'draft'
      ? { params: { version: 'draft' }, withCv: false }
      : { params: { version: 'published' }, withCv: true };
  }

  /** One listing request (a page of at most 25), in a language. */
  async #list(view: View, lang: string | undefined, params: Params, priority = 0): Promise<Story[]> {
    const v = this.#viewParams(view);
    const p: Params = { ...v.params, ...params };
    if (lang) {
      if (this.client.api === 'v2') p.language = lang;
      else p.starts_with = `${lang}/*`;
    }
    const { items } = await this.client.listPage({
      path: 'stories',
      params: p,
      schema: this.#storiesSchema,
      withCv: v.withCv,
      priority,
      key: 'stories',
      perPage: STORIES_PER_PAGE,
    });
    return items as Story[];
  }

  /**
   * The other-language variants of some stories, by uuid. Every story is in every language of the
   * space (untranslated, a language shows the default's fields): an answer that leaves one out,
   * or names one not asked for, is not the answer to the request.
   */
  async #variants(view: View, stories: readonly Story[]): Promise<StoryGroup[]> {
    const groups = stories.map((base) => ({ base, variants: new Map<string, Story>() }));
    const byUuid = new Map<string, StoryGroup>();
    for (const g of groups) {
      const other = byUuid.get(g.base.uuid);
      if (other)
        throw new MismatchedAnswer(
          `a listing of ${view} stories`,
          `holds uuid ${g.base.uuid} twice (stories ${other.base.id} and ${g.base.id})`,
        );
      byUuid.set(g.base.uuid, g);
    }
    await Promise.all(
      this.languages.map(async (lang) => {
        for (const part of chunks(groups, BATCH)) {
          // Ahead of further pages: a page's records stay in memory until its variants arrive.
          const uuids = part.map((g) => g.base.uuid);
          takeVariants(part, lang, await this.#list(view, lang, { by_uuids: uuids.join(',') }, 1));
        }
      }),
    );
    return groups;
  }

  /**
   * Every story of a view, page by page; each page arrives with its stories
   * in every language. `params` narrows the listing (e.g. published_at_gt).
   */
  async eachPage(view: View, onGroups: (groups: StoryGroup[]) => Promise<void>, params: Params = {}): Promise<number> {
    return this.#pages(view, params, async (stories) => onGroups(await this.#variants(view, stories)));
  }

  /** Pages through the default-language stories of a view's listing; the total it reports. */
  async #pages(view: View, params: Params, onPage: (stories: Story[]) => Promise<void> | void): Promise<number> {
    const v = this.#viewParams(view);
    const { total } = await this.client.paginate(
      {
        path: 'stories',
        params: { ...v.params, ...params },
        schema: this.#storiesSchema,
        kind: 'list',
        withCv: v.withCv,
        key: 'stories',
        perPage: STORIES_PER_PAGE,
      },
      (items) => onPage(items as Story[]),
    );
    return total;
  }

  /** Stories by numeric id, in every language (v2: by_ids; v1: one single-story request each). */
  async byIds(view: View, ids: readonly number[]): Promise<StoryGroup[]> {
    if (!ids.length) return [];
    let bases: Story[] = [];
    if (this.client.api === 'v2') {
      const parts = await Promise.all(
        chunks(ids, BATCH).map(async (part) => {
          const found = await this.#list(view, undefined, { by_ids: part.join(',') });
          // A story asked for and not returned is taken as gone: one returned in its place would drop it.
          const asked = new Set(part);
          for (const s of found) {
            if (!asked.delete(s.id))
              throw new MismatchedAnswer(
                `${view} stories by id (${part.length})`,
                `names story ${s.id}, which was not asked for or is named twice`,
              );
          }
          return found;
        }),
      );
      bases = parts.flat();
    } else {
      const found = await Promise.all(ids.map((id) => this.#single(view, id)));
      bases = found.filter((s): s is Story => s !== undefined);
    }
    return this.#variants(view, bases);
  }

  async #single(view: View, id: number): Promise<Story | undefined> {
    const v = this.#viewParams(view);
    try {
      const { body } = await this.client.request({
        path: `stories/${id}`,
        params: v.params,
        schema: z.looseObject({
          story: (this.#storiesSchema as unknown as z.ZodObject<{ stories: z.ZodArray<z.ZodType<Story>> }>).shape
            .stories.element,
        }),
        withCv: v.withCv,
      });
      const story = body.story as Story;
      if (story.id !== id) throw new MismatchedAnswer(`${view} story ${id}`, `is story ${story.id}`);
      return story;
    } catch (err) {
      if ((err as { status?: number }).status === 404) return undefined;
      throw err;
    }
  }

  /** Every default-language story of a listing (no variants), e.g. `starts_with` a moved folder's path. */
  async bases(view: View, params: Params): Promise<Story[]> {
    const out: Story[] = [];
    const total = await this.#pages(view, params, (stories) => void out.push(...stories));
    const distinct = new Set(out.map((s) => s.id)).size;
    if (distinct !== total) throw new InconsistentListing(`${view} stories (${describe(params)})`, distinct, total);
    return out;
  }

  /**
   * How many of the given stories still exist where they were (v2 census: by_ids AND by_slugs).
   * A count the answer itself contradicts, or more than were asked about, is refused.
   */
  async stillInPlace(
    view: View,
    entries: ReadonlyArray<{ id: number; uuid: string; full_slug: string }>,
  ): Promise<number> {
    const v = this.#viewParams(view);
    const { count } = await this.client.listPage({
      path: 'stories',
      params: {
        ...v.params,
        ...this.byIdentity(entries),
        by_slugs: entries.map((e) => e.full_slug).join(','),
      },
      schema: this.#storiesSchema,
      kind: 'list',
      withCv: v.withCv,
      key: 'stories',
      perPage: 1,
    });
    const inPlace = count.total;
    if (inPlace > entries.length) {
      throw new UntrustedCount(
        `the census of /${this.client.api}/cdn/stories counts ${inPlace} of ${entries.length} stories in place: its count cannot be trusted`,
        200,
        'stories',
        false,
      );
    }
    return inPlace;
  }

  /**
   * The filter that names these stories, whatever their path: by_ids in v2. v1 has no by_ids
   * (version 2 added it, and version 1 ignores what it does not know: a census by id and slug
   * counted by slug only, so a story deleted and another published at its path stayed) but has
   * by_uuids, and a uuid names one story as its id does.
   */
  byIdentity(entries: ReadonlyArray<{ id: number; uuid: string }>): Params {
    return this.client.api === 'v2'
      ? { by_ids: entries.map((e) => e.id).join(',') }
      : { by_uuids: entries.map((e) => e.uuid).join(',') };
  }

  async datasources(): Promise<Datasource[]> {
    const out: Datasource[] = [];
    const { total } = await this.client.paginate(
      {
        path: 'datasources',
        schema: DatasourcesEnvelope,
        // The contract puts datasources and their entries in the single-item tier at any page size.
        kind: 'single',
        withCv: true,
        key: 'datasources',
        perPage: ENTRIES_PER_PAGE,
      },
      (items) => {
        out.push(...(items as Datasource[]));
      },
    );
    // A datasource not listed is taken as gone: one listed twice hides another.
    const distinct = new Set(out.map((d) => d.id)).size;
    if (distinct !== total) throw new InconsistentListing('datasources', distinct, total);
    return out.sort((a, b) => a.id - b.id);
  }

  /** One datasource with its entries in the default and every other dimension. */
  async datasource(ds: Datasource): Promise<DatasourceRecord> {
    const entries = new Map<number, DatasourceRecordEntry>();
    /** Entries of one read by id, to tell whether its pages add up (a repeated entry hides another). */
    const read = async (dimension: string | undefined) => {
      const listed = new Set<number>();
      const { total } = await this.client.paginate(
        {
          path: 'datasource_entries',
          params: { datasource: ds.slug, ...(dimension ? { dimension } : {}) },
          schema: DatasourceEntriesEnvelope,
          kind: 'single',
          withCv: true,
          key: 'datasource_entries',
          perPage: ENTRIES_PER_PAGE,
        },
        (items) => {
          for (const e of items as Array<{ id: number; name: string; value: string; dimension_value: string | null }>) {
            listed.add(e.id);
            if (!dimension) {
              const known = entries.get(e.id);
              entries.set(e.id, {
                id: e.id,
                name: e.name,
                value: e.value,
                ...(known?.dimension_values ? { dimension_values: known.dimension_values } : {}),
              });
            } else if (e.dimension_value !== null) {
              const known = entries.get(e.id) ?? { id: e.id, name: e.name, value: e.value };
              known.dimension_values = { ...known.dimension_values, [dimension]: e.dimension_value };
              entries.set(e.id, known);
            }
          }
        },
      );
      if (listed.size !== total)
        throw new InconsistentListing(
          `the entries of datasource ${ds.slug}${dimension ? ` in dimension ${dimension}` : ''}`,
          listed.size,
          total,
        );
    };
    await read(undefined);
    await Promise.all(ds.dimensions.map((d) => read(d.entry_value)));
    // Dimension names are data: objects are built with own properties (fromEntries), never by
    // assignment, which a dimension named `__proto__` would turn into a prototype change.
    const sorted = [...entries.values()]
      .sort((a, b) => a.id - b.id)
      .map((e) => {
        if (!e.dimension_values) return e;
        const pairs = Object.entries(e.dimension_values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return { ...e, dimension_values: Object.fromEntries(pairs) };
      });
    return { datasource: ds, entries: sorted };
  }

  async tags(view: View): Promise<Tag[]> {
    const { body } = await this.client.request({ path: 'tags', params: { version: view }, schema: TagsEnvelope });
    return body.tags;
  }
}

/** A listing's filter, as a message names it. */
const describe = (params: Params): string =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ') || 'all';

/** Takes the answer in `lang` to a request for the stories of `part` by uuid: each of them once, no other. */
function takeVariants(part: readonly StoryGroup[], lang: string, found: readonly Story[]): void {
  const request = `${part.length} stories by uuid in ${lang}`;
  const asked = new Map(part.map((g) => [g.base.uuid, g]));
  for (const s of found) {
    const group = asked.get(s.uuid);
    if (!group || group.variants.has(lang))
      throw new MismatchedAnswer(
        request,
        `names story ${s.id} (${s.uuid}) ${group ? 'twice' : 'which was not asked for'}`,
      );
    group.variants.set(lang, s);
  }
  const left = part.find((g) => !g.variants.has(lang));
  if (left)
    throw new MismatchedAnswer(
      request,
      `leaves out story ${left.base.id} (${left.base.uuid}), which every language has`,
    );
}
