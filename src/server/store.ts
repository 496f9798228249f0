/**
 * The space in memory: the records of a space directory, the views and
 * language variants the service delivers, and the changes the control plane
 * makes. Everything derived (variants, listings, slug indexes, tags) is
 * memoized and dropped whenever content changes.
 */
import { randomUUID } from 'node:crypto';
import type { Datasource, DatasourceEntry, Space, Story, Tag, View } from '../api/index.js';
import {
  DEFAULT_LANG,
  materialize,
  overlayIn,
  setOverlay,
  type DatasourceRecord,
  type Folder,
  type SpaceData,
  type StoryRecord,
  type StoryVersion,
} from '../snapshot/index.js';

/** Which variant of the space a request reads. */
export interface Selection {
  view: View;
  lang: string;
  fallbackLang?: string | undefined;
  release?: number | undefined;
}

export interface Entry {
  record: StoryRecord;
  story: Story;
}

export class StoreError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Refuses the slugs the control plane's rule lets through only for a start page: an empty slug
 * (a start page's full slug is its folder's) and a translated path that is empty or ends in `/`.
 * Anywhere else they would make an empty segment (`outer//child`) or put a story at the site's
 * root.
 */
function assertStartPageSlugs(
  slug: string,
  isStartpage: boolean,
  translated: ReadonlyArray<{ lang: string; path: string }> | null | undefined,
): void {
  if (slug === '' && !isStartpage)
    throw new StoreError(422, 'slug: only a start page (is_startpage: true, not a folder) may have an empty slug');
  if (isStartpage) return;
  for (const t of translated ?? [])
    if (t.path === '' || t.path.endsWith('/'))
      throw new StoreError(
        422,
        `translated_slugs (${t.lang}): only a start page's path may be empty or end in /, not ${JSON.stringify(t.path)}`,
      );
}

/** What a change did to the published content, for cache versions and webhooks. */
export interface ChangeEvent {
  action: 'published' | 'unpublished' | 'deleted' | 'moved' | 'entries_updated';
  story_id?: number;
  full_slug?: string;
  datasource_slug?: string;
  name?: string;
  /** Whether published content changed (the cache version advances). */
  publishedChanged: boolean;
}

function versionOf(record: StoryRecord, sel: Selection): StoryVersion | undefined {
  if (sel.release !== undefined) {
    const staged = record.releases?.[String(sel.release)];
    if (staged) return staged;
  }
  if (sel.view === 'published') return record.published ?? undefined;
  return record.draft ?? record.published ?? undefined;
}

/**
 * The version whose structure (slug, folder) every version of a record shares: the draft, else the
 * published one, else a release's (a story created in a release exists only there until it is merged).
 */
export function structureOf(record: StoryRecord): StoryVersion | undefined {
  return record.draft ?? record.published ?? Object.values(record.releases ?? {})[0] ?? undefined;
}

/** Every version of a record: published, draft and those staged in releases. */
function versionsOf(record: StoryRecord): StoryVersion[] {
  return [record.published, record.draft, ...Object.values(record.releases ?? {})].filter((v) => v != null);
}

function selectionKey(sel: Selection): string {
  return `${sel.view}|${sel.lang}|${sel.fallbackLang ?? ''}|${sel.release ?? ''}`;
}

const clone = <T>(value: T): T => structuredClone(value);

export class SpaceStore {
  space: Space;
  readonly #records = new Map<number, StoryRecord>();
  readonly #byUuid = new Map<string, number>();
  readonly #folders = new Map<number, Folder>();
  readonly #datasources = new Map<number, DatasourceRecord>();
  readonly releases: ReadonlyArray<{ id: number; name: string }>;
  readonly workflowStages: ReadonlyArray<{ id: number; name: string }>;
  /** The views the space holds: a snapshot synced with one view lacks the other. */
  readonly views: readonly View[];
  /** The file holding each asset's bytes, by asset path: a snapshot synced with its assets. */
  readonly assetFiles: Readonly<Record<string, string>>;
  #nextId: number;
  /**
   * The stories (in any version) and folders holding each full slug, and the slugs each holds: a
   * slug is checked free by a lookup (a search of every story made each creation or move cost as
   * much as the space is large, and seeding a space through the control plane quadratic).
   */
  readonly #slugHolders = new Map<string, Set<number>>();
  readonly #heldSlugs = new Map<number, readonly string[]>();
  #derived = new Map<string, unknown>();
  #generation = 0;
  readonly #clock: () => Date;

  constructor(data: SpaceData, options: { clock?: () => Date } = {}) {
    this.space = clone(data.space);
    this.#clock = options.clock ?? (() => new Date());
    for (const r of data.stories) {
      // Its own record: the control plane changes the versions a record holds (never a version in
      // place), and the data given may be another store's too (a reader's RecordFileCache keeps it).
      this.#records.set(r.id, r.releases ? { ...r, releases: { ...r.releases } } : { ...r });
      this.#byUuid.set(r.uuid, r.id);
    }
    for (const f of data.folders) {
      this.#folders.set(f.id, f);
      this.#byUuid.set(f.uuid, f.id);
    }
    for (const d of data.datasources) this.#datasources.set(d.datasource.id, d);
    this.#deriveMissingFolders();
    for (const id of [...this.#records.keys(), ...this.#folders.keys()]) this.#hold(id);
    this.releases = data.releases;
    this.workflowStages = data.workflowStages;
    this.views = data.views ?? ['published', 'draft'];
    this.assetFiles = data.assetFiles ?? {};
    let max = 0;
    for (const id of [...this.#records.keys(), ...this.#folders.keys(), ...this.#datasources.keys()])
      max = Math.max(max, id);
    for (const d of data.datasources) for (const e of d.entries) max = Math.max(max, e.id);
    this.#nextId = max + 1;
  }

  /**
   * A synced snapshot knows folders only through their children: a story's
   * parent_id and full_slug name the folder's path. Folders that the data does
   * not list are derived from that, so the control plane can place stories in them.
   */
  #deriveMissingFolders(): void {
    for (const record of this.#records.values()) {
      const story = structureOf(record)?.story;
      if (!story?.parent_id || this.#folders.has(story.parent_id)) continue;
      const path = story.is_startpage
        ? story.full_slug.replace(/\/$/, '')
        : story.full_slug.split('/').slice(0, -1).join('/');
      if (!path) continue;
      const slug = path.split('/').pop()!;
      const uuid = `00000000-0000-4000-8000-${String(story.parent_id).padStart(12, '0').slice(-12)}`;
      this.#folders.set(story.parent_id, {
        id: story.parent_id,
        uuid,
        name: slug,
        slug,
        full_slug: path,
        parent_id: null,
        position: 0,
      });
    }
    // By path, looked up: a search of every folder for each one's parent took seconds at 20,000 folders.
    const byPath = new Map<string, number>();
    for (const f of this.#folders.values()) if (!byPath.has(f.full_slug)) byPath.set(f.full_slug, f.id);
    for (const f of this.#folders.values()) {
      if (f.parent_id !== null) continue;
      const parentPath = f.full_slug.split('/').slice(0, -1).join('/');
      const parent = parentPath ? byPath.get(parentPath) : undefined;
      this.#folders.set(f.id, { ...f, parent_id: parent ?? 0 });
    }
  }

  /** The whole space as plain data, e.g. to write it back to disk. */
  toData(): SpaceData {
    return {
      space: this.space,
      stories: [...this.#records.values()].sort((a, b) => a.id - b.id),
      folders: [...this.#folders.values()].sort((a, b) => a.id - b.id),
      datasources: [...this.#datasources.values()].sort((a, b) => a.datasource.id - b.datasource.id),
      releases: [...this.releases],
      workflowStages: [...this.workflowStages],
      views: [...this.views],
      assetFiles: { ...this.assetFiles },
    };
  }

  get languages(): string[] {
    return [DEFAULT_LANG, ...this.space.language_codes];
  }

  isLanguage(code: string): boolean {
    return code !== DEFAULT_LANG && this.space.language_codes.includes(code);
  }

  get storyCount(): number {
    return this.#records.size;
  }

  #memo<T>(key: string, build: () => T): T {
    if (this.#derived.has(key)) return this.#derived.get(key) as T;
    const value = build();
    this.#derived.set(key, value);
    return value;
  }

  #invalidate(): void {
    this.#derived = new Map();
    this.#generation++;
  }

  /** Advances on every change to stories, folders or datasources: a key for what others derive from them. */
  get generation(): number {
    return this.#generation;
  }

  /** Every story record as held (read only), in no particular order. */
  records(): IterableIterator<StoryRecord> {
    return this.#records.values();
  }

  /** Every datasource with its entries as held (read only), in no particular order. */
  datasourceRecords(): IterableIterator<DatasourceRecord> {
    return this.#datasources.values();
  }

  folder(id: number): Folder | undefined {
    return this.#folders.get(id);
  }

  /** Every folder as held (read only), in no particular order. */
  folders(): IterableIterator<Folder> {
    return this.#folders.values();
  }

  // ---- reading ----------------------------------------------------------

  /**
   * The selection as it reads: a fallback language that is not one of the space's (or is the
   * language itself) and a release no story is staged in change nothing, so they are dropped. The
   * listings below are memoized by selection until content changes: without this, every distinct
   * `fallback_lang` or `from_release` a client sends would keep another copy of the space.
   */
  #canonical(sel: Selection): Selection {
    const fallbackLang =
      sel.fallbackLang !== undefined && sel.fallbackLang !== sel.lang && this.isLanguage(sel.fallbackLang)
        ? sel.fallbackLang
        : undefined;
    const release = sel.release !== undefined && this.#releaseIds().has(sel.release) ? sel.release : undefined;
    return { view: sel.view, lang: sel.lang, fallbackLang, release };
  }

  /** Ids of the releases some story has a version in. */
  #releaseIds(): ReadonlySet<number> {
    return this.#memo('release-ids', () => {
      const ids = new Set<number>();
      for (const r of this.#records.values()) for (const id of Object.keys(r.releases ?? {})) ids.add(Number(id));
      return ids;
    });
  }

  /** Every story visible in a selection, in space order (ascending id). */
  entries(selection: Selection): readonly Entry[] {
    const sel = this.#canonical(selection);
    return this.#memo(`entries|${selectionKey(sel)}`, () => {
      const out: Entry[] = [];
      const ids = [...this.#records.keys()].sort((a, b) => a - b);
      for (const id of ids) {
        const record = this.#records.get(id)!;
        const version = versionOf(record, sel);
        if (!version) continue;
        out.push({ record, story: materialize(version, sel.lang, sel.fallbackLang) });
      }
      return out;
    });
  }

  #index(selection: Selection): {
    byId: Map<number, Entry>;
    byUuid: Map<string, Entry>;
    bySlug: Map<string, Entry>;
    byDefaultSlug: Map<string, Entry>;
  } {
    const sel = this.#canonical(selection);
    return this.#memo(`index|${selectionKey(sel)}`, () => {
      const byId = new Map<number, Entry>();
      const byUuid = new Map<string, Entry>();
      const bySlug = new Map<string, Entry>();
      const byDefaultSlug = new Map<string, Entry>();
      for (const e of this.entries(sel)) {
        byId.set(e.story.id, e);
        byUuid.set(e.story.uuid, e);
        bySlug.set(e.story.full_slug, e);
        const base = versionOf(e.record, sel)!.story.full_slug;
        byDefaultSlug.set(base, e);
      }
      return { byId, byUuid, bySlug, byDefaultSlug };
    });
  }

  byId(sel: Selection, id: number): Entry | undefined {
    return this.#index(sel).byId.get(id);
  }

  byUuid(sel: Selection, uuid: string): Entry | undefined {
    return this.#index(sel).byUuid.get(uuid);
  }

  /** By the delivered full slug (with a language prefix for variants), then by
   * the default-language full slug. A start page answers with or without its
   * trailing slash. */
  bySlug(sel: Selection, slug: string): Entry | undefined {
    const idx = this.#index(sel);
    return (
      idx.bySlug.get(slug) ??
      idx.byDefaultSlug.get(slug) ??
      (slug.endsWith('/') ? undefined : (idx.bySlug.get(`${slug}/`) ?? idx.byDefaultSlug.get(`${slug}/`)))
    );
  }

  /** The default-language full slug of an entry in a selection. */
  defaultSlugOf(entry: Entry, sel: Selection): string {
    return versionOf(entry.record, sel)?.story.full_slug ?? entry.story.full_slug;
  }

  folderByUuid(uuid: string): Folder | undefined {
    const id = this.#byUuid.get(uuid);
    return id === undefined ? undefined : this.#folders.get(id);
  }

  /** Tags of the stories visible in a view, with their counts, by name. */
  tags(view: View, startsWith?: string): Tag[] {
    const counts = new Map<string, number>();
    for (const e of this.entries({ view, lang: DEFAULT_LANG })) {
      if (startsWith && !e.story.full_slug.startsWith(startsWith)) continue;
      for (const t of e.story.tag_list) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, taggings_count]) => ({ name, taggings_count }));
  }

  datasources(): Datasource[] {
    return [...this.#datasources.values()].sort((a, b) => a.datasource.id - b.datasource.id).map((d) => d.datasource);
  }

  /**
   * Entries of one datasource (by slug or id) or of all; `dimension` fills dimension_value. Made once
   * per datasource and dimension until content changes: a client pages through them, and building
   * every entry for each page made reading a 64,000-entry datasource quadratic.
   */
  datasourceEntries(datasource: string | undefined, dimension: string | undefined): readonly DatasourceEntry[] {
    let sources = [...this.#datasources.values()].sort((a, b) => a.datasource.id - b.datasource.id);
    if (datasource !== undefined && datasource !== '') {
      // One datasource: a slug that is a number (`100`) names that datasource, not also the one of id 100.
      const bySlug = sources.filter((d) => d.datasource.slug === datasource);
      sources = bySlug.length ? bySlug : sources.filter((d) => String(d.datasource.id) === datasource);
    }
    // A value in a dimension the datasource lacks (a space directory edited by hand) is not served:
    // clients, sync among them, read a datasource's values in its own dimensions only.
    const owns = sources.map((d) =>
      dimension && d.datasource.dimensions.some((x) => x.entry_value === dimension) ? dimension : '',
    );
    // Keyed by what the answer depends on (the datasources and a dimension they have): a client's
    // unknown names add no key.
    const key = `datasource-entries|${sources.map((d) => d.datasource.id).join(',')}|${owns.find((o) => o) ?? ''}`;
    return this.#memo(key, () => sources.flatMap((d, i) => entriesIn(d, owns[i]!)));
  }

  // ---- changing (control plane) ----------------------------------------

  #now(): string {
    return this.#clock().toISOString();
  }

  /** Advances the cache version: it only grows, and follows the clock. */
  #advanceVersion(): void {
    const seconds = Math.floor(this.#clock().getTime() / 1000);
    this.space = { ...this.space, version: Math.max(this.space.version + 1, seconds) };
  }

  #commit(event: ChangeEvent): ChangeEvent {
    this.#invalidate();
    if (event.publishedChanged) this.#advanceVersion();
    return event;
  }

  record(id: number): StoryRecord {
    const record = this.#records.get(id);
    // A folder is listed with the stories: "does not exist" would send its editor looking elsewhere.
    if (!record && this.#folders.has(id))
      throw new StoreError(
        422,
        `${id} is a folder: it has no draft or published version (PUT changes it, DELETE removes it)`,
      );
    if (!record) throw new StoreError(404, `story ${id} does not exist`);
    return record;
  }

  folderPath(parentId: number | null | undefined): string {
    if (!parentId) return '';
    const folder = this.#folders.get(parentId);
    if (folder) return folder.full_slug;
    throw new StoreError(422, `parent_id ${parentId} is not a folder of this space`);
  }

  #fullSlug(parentId: number | null | undefined, slug: string, isStartpage: boolean): string {
    const parent = this.folderPath(parentId);
    if (isStartpage) return parent ? `${parent}/` : '';
    return parent ? `${parent}/${slug}` : slug;
  }

  /** Re-derives full slugs (default and per language) of a version from its structure. */
  #restructure(version: StoryVersion): void {
    const s = version.story;
    s.full_slug = this.#fullSlug(s.parent_id, s.slug, s.is_startpage);
    if (s.default_full_slug !== undefined && s.default_full_slug !== null) s.default_full_slug = s.full_slug;
    for (const lang of Object.keys(version.languages ?? {})) {
      const overlay = version.languages![lang]!;
      const translated = s.translated_slugs?.find((t) => t.lang === lang)?.path;
      overlay.full_slug = `${lang}/${translated ?? s.full_slug}`;
    }
  }

  createStory(input: StoryInput): { story: Story; folder?: Folder } {
    const id = this.#nextId++;
    const uuid = input.uuid ?? randomUUID();
    if (this.#byUuid.has(uuid)) throw new StoreError(422, `uuid ${uuid} is already used`);
    // Made from the name when none is given; a name with no latin letter or digit makes none.
    const slug =
      input.slug ??
      ((input.name ?? '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') ||
        `story-${id}`);
    if (input.is_folder) {
      assertStartPageSlugs(slug, false, input.translated_slugs);
      const folder: Folder = {
        id,
        uuid,
        name: input.name ?? slug,
        slug,
        full_slug: this.#fullSlug(input.parent_id, slug, false),
        parent_id: input.parent_id ?? 0,
        position: input.position ?? 0,
        translated_slugs: input.translated_slugs ?? null,
      };
      this.#assertFreeSlug(folder.full_slug, id);
      this.#folders.set(id, folder);
      this.#byUuid.set(uuid, id);
      this.#hold(id);
      this.#invalidate();
      return { story: folderAsStory(folder, this.#now()), folder };
    }
    const now = this.#now();
    const story: Story = {
      name: input.name ?? slug,
      created_at: now,
      published_at: null,
      id,
      uuid,
      content: { component: 'page', _uid: randomUUID(), ...(input.content ?? {}) } as Story['content'],
      slug,
      full_slug: '',
      sort_by_date: null,
      position: input.position ?? 0,
      tag_list: input.tag_list ?? [],
      is_startpage: input.is_startpage ?? false,
      parent_id: input.parent_id ?? 0,
      meta_data: null,
      group_id: randomUUID(),
      first_published_at: null,
      release_id: null,
      lang: DEFAULT_LANG,
      path: null,
      alternates: [],
      default_full_slug: null,
      translated_slugs: input.translated_slugs ?? null,
    };
    assertStartPageSlugs(story.slug, story.is_startpage, story.translated_slugs);
    const version: StoryVersion = { story };
    this.#restructure(version);
    this.#assertFreeSlug(story.full_slug, id);
    const record: StoryRecord = { id, uuid, published: null, draft: version, updated_at: now };
    if (input.lang && input.lang !== DEFAULT_LANG) this.#applyTranslation(version, input);
    this.#records.set(id, record);
    this.#byUuid.set(uuid, id);
    this.#hold(id);
    this.#invalidate();
    return { story: materialize(version, input.lang && this.isLanguage(input.lang) ? input.lang : DEFAULT_LANG) };
  }

  #applyTranslation(version: StoryVersion, input: StoryInput): void {
    const lang = input.lang!;
    if (!this.isLanguage(lang))
      throw new StoreError(
        422,
        `lang ${lang} is not a language of this space (${this.space.language_codes.join(', ') || 'none'})`,
      );
    const languages = (version.languages ??= {});
    let overlay = overlayIn(version, lang);
    if (!overlay) setOverlay(languages, lang, (overlay = { full_slug: `${lang}/${version.story.full_slug}` }));
    if (input.content) overlay.content = { ...(overlay.content ?? {}), ...input.content };
    if (input.name !== undefined) overlay.name = input.name;
    this.#restructure(version);
  }

  /** Changes the draft; a new slug or parent moves the story (published version too). */
  updateStory(id: number, input: StoryInput): { story: Story; event?: ChangeEvent } {
    const folder = this.#folders.get(id);
    if (folder) return this.#updateFolder(folder, input);
    const record = this.#editable(id);
    const draft = clone(record.draft ?? record.published!);
    const before = draft.story.full_slug;
    if (input.lang && input.lang !== DEFAULT_LANG) {
      this.#applyTranslation(draft, input);
    } else {
      const s = draft.story;
      if (input.name !== undefined) s.name = input.name;
      if (input.content !== undefined) s.content = { ...s.content, ...input.content } as Story['content'];
      if (input.tag_list !== undefined) s.tag_list = input.tag_list;
      if (input.position !== undefined) s.position = input.position;
      if (input.is_startpage !== undefined) s.is_startpage = input.is_startpage;
      if (input.slug !== undefined) s.slug = input.slug;
      if (input.parent_id !== undefined) s.parent_id = input.parent_id;
      if (input.translated_slugs !== undefined) s.translated_slugs = input.translated_slugs;
      // Checked when the change touches them: a story loaded from a space directory is taken as it is.
      if (input.slug !== undefined || input.is_startpage !== undefined || input.translated_slugs !== undefined)
        assertStartPageSlugs(s.slug, s.is_startpage, s.translated_slugs);
      this.#restructure(draft);
    }
    if (draft.story.full_slug !== before) this.#assertFreeSlug(draft.story.full_slug, id);
    record.draft = draft;
    record.updated_at = this.#now();
    const moved = draft.story.full_slug !== before;
    // Structure is shared by all versions: moving a story moves its release versions (as moving
    // its folder does), else from_release would deliver it at its old path.
    if (moved && record.releases)
      for (const [rid, v] of Object.entries(record.releases)) record.releases[rid] = this.#movedLike(v, draft);
    if (moved && record.published) record.published = this.#movedLike(record.published, draft);
    this.#hold(id);
    if (moved && record.published) {
      // ... and its published version, moved above.
      const event = this.#commit({
        action: 'moved',
        story_id: id,
        full_slug: draft.story.full_slug,
        name: draft.story.name,
        publishedChanged: true,
      });
      return { story: draft.story, event };
    }
    this.#invalidate();
    return { story: draft.story };
  }

  /** A copy of `version` with the structure (slug, folder, start page, translated paths) of `like`. */
  #movedLike(version: StoryVersion, like: StoryVersion): StoryVersion {
    const copy = clone(version);
    for (const key of ['slug', 'parent_id', 'is_startpage', 'translated_slugs'] as const) {
      (copy.story as Record<string, unknown>)[key] = like.story[key];
    }
    this.#restructure(copy);
    return copy;
  }

  #updateFolder(folder: Folder, input: StoryInput): { story: Story; event?: ChangeEvent } {
    const before = folder.full_slug;
    const next: Folder = { ...folder };
    if (input.name !== undefined) next.name = input.name;
    if (input.slug !== undefined) next.slug = input.slug;
    if (input.parent_id !== undefined) {
      if (input.parent_id !== null && this.#isInside(input.parent_id, folder.id))
        throw new StoreError(422, 'a folder cannot move into itself');
      next.parent_id = input.parent_id;
    }
    if (input.position !== undefined) next.position = input.position;
    if (input.translated_slugs !== undefined) next.translated_slugs = input.translated_slugs;
    if (input.slug !== undefined || input.translated_slugs !== undefined)
      assertStartPageSlugs(next.slug, false, next.translated_slugs);
    next.full_slug = this.#fullSlug(next.parent_id, next.slug, false);
    if (next.full_slug !== before) this.#assertFreeSlug(next.full_slug, folder.id);
    this.#folders.set(folder.id, next);
    this.#hold(folder.id);
    if (next.full_slug === before) {
      // A folder has no draft: a link to it shows its name and position in the published view too.
      this.#invalidate();
      if (JSON.stringify(next) !== JSON.stringify(folder)) this.#advanceVersion();
      return { story: folderAsStory(next, this.#now()) };
    }
    // Every descendant folder and story moves with it.
    const folders = [...this.#folders.values()].sort((a, b) => a.full_slug.length - b.full_slug.length);
    for (const f of folders) {
      if (f.id !== folder.id && this.#isInside(f.id, folder.id)) {
        this.#folders.set(f.id, { ...f, full_slug: this.#fullSlug(f.parent_id, f.slug, false) });
        this.#hold(f.id);
      }
    }
    for (const record of this.#records.values()) {
      const parent = structureOf(record)?.story.parent_id;
      if (!parent || !this.#isInside(parent, folder.id)) continue;
      for (const key of ['draft', 'published'] as const) {
        const v = record[key];
        if (!v) continue;
        const copy = clone(v);
        this.#restructure(copy);
        record[key] = copy;
      }
      if (record.releases)
        for (const [rid, v] of Object.entries(record.releases)) {
          const copy = clone(v);
          this.#restructure(copy);
          record.releases[rid] = copy;
        }
      this.#hold(record.id);
    }
    const event = this.#commit({
      action: 'moved',
      story_id: folder.id,
      full_slug: next.full_slug,
      name: next.name,
      // Links to the folder show its new path in the published view, stories in it or none.
      publishedChanged: true,
    });
    return { story: folderAsStory(next, this.#now()), event };
  }

  /** A slug is unique within its folder, across stories and folders, as in the editor. */
  #assertFreeSlug(fullSlug: string, exceptId: number): void {
    const taken = [...(this.#slugHolders.get(fullSlug) ?? [])].some((id) => id !== exceptId);
    if (taken) throw new StoreError(422, `slug: ${fullSlug} is already taken in this folder; choose another slug`);
  }

  /** Takes note of the full slugs story or folder `id` holds now (none once it is gone). */
  #hold(id: number): void {
    for (const slug of this.#heldSlugs.get(id) ?? []) {
      const holders = this.#slugHolders.get(slug)!;
      holders.delete(id);
      if (holders.size === 0) this.#slugHolders.delete(slug);
    }
    const folder = this.#folders.get(id);
    const record = this.#records.get(id);
    // Each once: a story's versions mostly share one.
    const slugs = new Set<string>();
    if (folder) slugs.add(folder.full_slug);
    for (const v of record ? versionsOf(record) : []) slugs.add(v.story.full_slug);
    if (slugs.size === 0) this.#heldSlugs.delete(id);
    else this.#heldSlugs.set(id, [...slugs]);
    for (const slug of slugs)
      (this.#slugHolders.get(slug) ?? this.#slugHolders.set(slug, new Set()).get(slug)!).add(id);
  }

  /** Whether folder `id` is `ancestor` or lies inside it. */
  #isInside(id: number, ancestor: number): boolean {
    let cursor: number | null | undefined = id;
    for (let guard = 0; cursor && guard < 1000; guard++) {
      if (cursor === ancestor) return true;
      cursor = this.#folders.get(cursor)?.parent_id;
    }
    return false;
  }

  /** A story the control plane changes: one with a draft or a published version. */
  #editable(id: number): StoryRecord {
    const record = this.record(id);
    if (record.draft || record.published) return record;
    const releases = Object.keys(record.releases ?? {});
    const where = releases.length ? `exists only in release ${releases.join(', ')}` : 'has no version';
    throw new StoreError(
      422,
      `story ${id} ${where}: the control plane changes and publishes drafts, not releases (DELETE removes it)`,
    );
  }

  publish(id: number): { story: Story; event: ChangeEvent } {
    const record = this.#editable(id);
    const source = record.draft ?? record.published!;
    const now = this.#now();
    const published = clone(source);
    published.story.published_at = now;
    published.story.first_published_at =
      record.published?.story.first_published_at ?? source.story.first_published_at ?? now;
    record.published = published;
    // The draft now equals the published version (publishing stamps both).
    record.draft = null;
    record.updated_at = now;
    this.#hold(id);
    const event = this.#commit({
      action: 'published',
      story_id: id,
      full_slug: published.story.full_slug,
      name: published.story.name,
      publishedChanged: true,
    });
    return { story: published.story, event };
  }

  unpublish(id: number): { story: Story; event: ChangeEvent } {
    const record = this.#editable(id);
    const was = record.published;
    if (!record.draft && was) record.draft = clone(was);
    record.published = null;
    record.updated_at = this.#now();
    this.#hold(id);
    const story = (record.draft ?? was)!.story;
    const event = this.#commit({
      action: 'unpublished',
      story_id: id,
      full_slug: story.full_slug,
      name: story.name,
      publishedChanged: Boolean(was),
    });
    return { story, event };
  }

  deleteStory(id: number): { event: ChangeEvent } {
    const folder = this.#folders.get(id);
    if (folder) {
      const hasChildren =
        [...this.#folders.values()].some((f) => f.parent_id === id) ||
        [...this.#records.values()].some((r) => structureOf(r)?.story.parent_id === id);
      if (hasChildren) throw new StoreError(422, `folder ${id} is not empty`);
      this.#folders.delete(id);
      this.#byUuid.delete(folder.uuid);
      this.#hold(id);
      return {
        event: this.#commit({
          action: 'deleted',
          story_id: id,
          full_slug: folder.full_slug,
          name: folder.name,
          // Links to it stop resolving in the published view.
          publishedChanged: true,
        }),
      };
    }
    const record = this.record(id);
    this.#records.delete(id);
    this.#byUuid.delete(record.uuid);
    this.#hold(id);
    const story = (record.published ?? structureOf(record))?.story;
    return {
      event: this.#commit({
        action: 'deleted',
        story_id: id,
        ...(story ? { full_slug: story.full_slug, name: story.name } : {}),
        publishedChanged: Boolean(record.published),
      }),
    };
  }

  replaceDatasourceEntries(slug: string, input: DatasourceInput): { datasource: Datasource; event: ChangeEvent } {
    // A missing datasource is added with its entries below, once they are accepted: a refused
    // request (422) creates nothing.
    const record = [...this.#datasources.values()].find((d) => d.datasource.slug === slug) ?? {
      datasource: { id: this.#nextId++, name: input.name ?? slug, slug, dimensions: [] },
      entries: [],
    };
    const ds = { ...record.datasource };
    if (input.name !== undefined) ds.name = input.name;
    if (input.dimensions !== undefined) {
      const values = new Set<string>();
      for (const d of input.dimensions) {
        // Clients ask for a dimension by its entry_value: two of one would be one (and share an id).
        if (values.has(d.entry_value))
          throw new StoreError(422, `dimension entry_value ${JSON.stringify(d.entry_value)} appears twice`);
        values.add(d.entry_value);
      }
      ds.dimensions = input.dimensions.map((d) => {
        const existing = record.datasource.dimensions.find((x) => x.entry_value === d.entry_value);
        return { id: existing?.id ?? this.#nextId++, name: d.name, entry_value: d.entry_value };
      });
    }
    const names = new Set<string>();
    // Looked up by name, not searched for: with tens of thousands of entries a search per entry
    // held every client of the service up for as many seconds.
    const existingIds = new Map<string, number>();
    for (const x of record.entries) if (!existingIds.has(x.name)) existingIds.set(x.name, x.id);
    const dimensionValues = new Set(ds.dimensions.map((d) => d.entry_value));
    const entries = input.entries.map((e) => {
      if (names.has(e.name)) throw new StoreError(422, `entry name ${JSON.stringify(e.name)} appears twice`);
      names.add(e.name);
      // A value in a dimension the datasource lacks would be served, yet no client reading the
      // datasource's dimensions (sync among them) would ever ask for it.
      for (const key of Object.keys(e.dimension_values ?? {})) {
        if (!dimensionValues.has(key))
          throw new StoreError(
            422,
            `entry ${JSON.stringify(e.name)} has a value in dimension ${JSON.stringify(key)}, which datasource ${slug} does not have`,
          );
      }
      return {
        id: existingIds.get(e.name) ?? this.#nextId++,
        name: e.name,
        value: e.value,
        ...(e.dimension_values && Object.keys(e.dimension_values).length
          ? { dimension_values: e.dimension_values }
          : {}),
      };
    });
    const next: DatasourceRecord = { datasource: ds, entries };
    this.#datasources.set(ds.id, next);
    const event = this.#commit({
      action: 'entries_updated',
      datasource_slug: slug,
      name: ds.name,
      publishedChanged: true,
    });
    return { datasource: ds, event };
  }
}

/** Fields the control plane accepts for a story. */
export interface StoryInput {
  name?: string | undefined;
  slug?: string | undefined;
  parent_id?: number | null | undefined;
  is_folder?: boolean | undefined;
  is_startpage?: boolean | undefined;
  position?: number | undefined;
  content?: Record<string, unknown> | undefined;
  tag_list?: string[] | undefined;
  lang?: string | undefined;
  translated_slugs?: Array<{ path: string; name: string | null; lang: string }> | null | undefined;
  uuid?: string | undefined;
}

export interface DatasourceInput {
  name?: string | undefined;
  dimensions?: Array<{ name: string; entry_value: string }> | undefined;
  entries: Array<{ name: string; value: string; dimension_values?: Record<string, string> | undefined }>;
}

/** The entries of a datasource as delivered, with their values in dimension `own` ('' for none). */
function entriesIn(d: DatasourceRecord, own: string): DatasourceEntry[] {
  return d.entries.map((e) => {
    // An own value only: a dimension named `__proto__` must not read the prototype.
    const dimensionValue =
      own && e.dimension_values && Object.hasOwn(e.dimension_values, own) ? e.dimension_values[own]! : null;
    return { id: e.id, name: e.name, value: e.value, dimension_value: dimensionValue };
  });
}

function folderAsStory(folder: Folder, now: string): Story {
  return {
    name: folder.name,
    created_at: now,
    published_at: null,
    id: folder.id,
    uuid: folder.uuid,
    content: { component: 'folder', _uid: folder.uuid },
    slug: folder.slug,
    full_slug: folder.full_slug,
    position: folder.position,
    tag_list: [],
    is_startpage: false,
    is_folder: true,
    parent_id: folder.parent_id,
    group_id: folder.uuid,
    first_published_at: null,
    lang: DEFAULT_LANG,
    alternates: [],
    translated_slugs: folder.translated_slugs ?? null,
  } as Story;
}
