/**
 * From delivered stories to snapshot files, as pure functions: the same
 * content always gives the same bytes, whether it came from a full sync or
 * an incremental one.
 */
import type { Space, Story, Tag } from '../api/index.js';
import {
  DEFAULT_LANG,
  FILES,
  FORMAT_VERSION,
  type DatasourceRecord,
  type LanguageOverlay,
  type Manifest,
  type StoryRecord,
  type StoryVersion,
} from '../snapshot/format.js';
import { canonicalJson, sha256 } from '../snapshot/json.js';
import { materialize, overlayOf, untranslated } from '../snapshot/languages.js';

export type View = 'published' | 'draft';

/** One entry of `indexes/stories.json`: what incremental sync and the compiler need without opening records. */
export interface StoryIndexEntry {
  id: number;
  uuid: string;
  name: string;
  /** Default-language full slug of the newest view held (published, else draft). */
  full_slug: string;
  parent_id: number | null;
  is_startpage: boolean;
  component: string;
  tag_list: string[];
  published_at: string | null;
  /** Per-language full slugs. */
  slugs: Record<string, string>;
  /** Default-language slug. */
  slug: string;
  /** Default-language real path (`path`), null when the story sets none. */
  path: string | null;
  /**
   * The languages whose variant shows another name, slug or path than the
   * default, with those. With `name`, `slug`, `path` and `slugs`, the index
   * says what a link to the story shows in every language without its record.
   */
  link_fields?: Record<string, LinkFields>;
  published: boolean;
  /** sha256 of the record file, shortened. */
  digest: string;
}

/** What a language variant shows differently from the default, of what a link shows. */
export interface LinkFields {
  name?: string;
  slug?: string;
  path?: string | null;
}

/** A story's real path as the index keeps it: a string it sets, else null. */
const realPath = (s: Story): string | null => {
  const p = (s as Record<string, unknown>).path;
  return typeof p === 'string' ? p : null;
};

export interface DatasourceIndexEntry {
  id: number;
  slug: string;
  name: string;
  entries: number;
  digest: string;
}

export { INDEX_FILES } from '../snapshot/format.js';

export const storyFile = (id: number) => `${FILES.stories}/${id}.json`;
export const datasourceFile = (id: number) => `${FILES.datasources}/${id}.json`;

/**
 * A version from the default-language story and its variants. A variant that
 * is exactly what the service would deliver untranslated is left out; any
 * other is stored as an overlay, checked to rebuild the variant exactly.
 */
export function buildVersion(base: Story, variants: ReadonlyMap<string, Story>): StoryVersion {
  const languages: Record<string, LanguageOverlay> = {};
  for (const lang of [...variants.keys()].sort()) {
    const variant = variants.get(lang)!;
    const plain = canonicalJson(variant);
    if (plain === canonicalJson(materialize({ story: base, languages: { [lang]: untranslated(base, lang) } }, lang))) continue;
    let overlay = overlayOf(base, variant);
    if (canonicalJson(materialize({ story: base, languages: { [lang]: overlay } }, lang)) !== plain) {
      // Keys the variant lacks cannot be expressed as a merge: keep its content whole.
      overlay = { ...overlay, content: variant.content as Record<string, unknown>, $replace_content: true } as LanguageOverlay;
    }
    languages[lang] = overlay;
  }
  return Object.keys(languages).length ? { story: base, languages } : { story: base };
}

/** A record from the versions a sync saw. A draft equal to the published version is left out. */
export function buildRecord(published: StoryVersion | undefined, draft: StoryVersion | undefined): StoryRecord {
  const any = (published ?? draft)!;
  const record: StoryRecord = { id: any.story.id, uuid: any.story.uuid };
  record.published = published ?? null;
  if (draft && (!published || canonicalJson(draft) !== canonicalJson(published))) record.draft = draft;
  return record;
}

export function indexEntry(record: StoryRecord, text: string, languages: readonly string[]): StoryIndexEntry {
  const version = (record.published ?? record.draft)!;
  const s = version.story;
  const slugs: Record<string, string> = {};
  const path = realPath(s);
  const linkFields: Record<string, LinkFields> = {};
  for (const lang of languages) {
    if (lang === DEFAULT_LANG) {
      slugs[lang] = s.full_slug;
      continue;
    }
    const variant = materialize(version, lang);
    slugs[lang] = variant.full_slug;
    const differs: LinkFields = {};
    if (variant.name !== s.name) differs.name = variant.name;
    if (variant.slug !== s.slug) differs.slug = variant.slug;
    const variantPath = realPath(variant);
    if (variantPath !== path) differs.path = variantPath;
    if (Object.keys(differs).length) linkFields[lang] = differs;
  }
  const entry: StoryIndexEntry = {
    id: record.id,
    uuid: record.uuid,
    name: s.name,
    full_slug: s.full_slug,
    parent_id: s.parent_id,
    is_startpage: s.is_startpage,
    component: s.content.component,
    tag_list: s.tag_list,
    published_at: record.published?.story.published_at ?? null,
    slugs,
    slug: s.slug,
    path,
    published: Boolean(record.published),
    digest: sha256(text).slice(0, 16),
  };
  // Set afterwards: a spread in the literal would build a slower, larger object (sync holds one per story).
  if (Object.keys(linkFields).length) entry.link_fields = linkFields;
  return entry;
}

export function datasourceIndexEntry(record: DatasourceRecord, text: string): DatasourceIndexEntry {
  return {
    id: record.datasource.id,
    slug: record.datasource.slug,
    name: record.datasource.name,
    entries: record.entries.length,
    digest: sha256(text).slice(0, 16),
  };
}

export interface TagsSnapshot {
  published?: Tag[];
  draft?: Tag[];
}

export interface ManifestInput {
  api: 'v1' | 'v2';
  space: Space;
  views: View[];
  stories: readonly StoryIndexEntry[];
  datasources: readonly DatasourceIndexEntry[];
  texts: { datasourcesIndex: string; tags: string; space: string };
  /** sha256 of indexes/stories.json (written in pieces, never held whole). */
  storiesIndexDigest: string;
  syncedAt: string;
}

export function buildManifest(input: ManifestInput): Manifest & Record<string, unknown> {
  let maxPublished: string | null = null;
  for (const s of input.stories) if (s.published_at && (!maxPublished || s.published_at > maxPublished)) maxPublished = s.published_at;
  const digests = {
    space: sha256(input.texts.space),
    stories: input.storiesIndexDigest,
    datasources: sha256(input.texts.datasourcesIndex),
    tags: sha256(input.texts.tags),
  };
  return {
    format: FORMAT_VERSION,
    api: input.api,
    space: input.space,
    cv: input.space.version,
    views: input.views,
    languages: [DEFAULT_LANG, ...input.space.language_codes],
    counts: {
      stories: input.stories.length,
      published: input.stories.filter((s) => s.published).length,
      datasources: input.datasources.length,
      datasource_entries: input.datasources.reduce((n, d) => n + d.entries, 0),
    },
    digests: { ...digests, all: sha256(Object.values(digests).join('\n')) },
    max_published_at: maxPublished,
    synced_at: input.syncedAt,
  };
}
