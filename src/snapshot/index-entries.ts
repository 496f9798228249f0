/**
 * The entries of the snapshot's indexes (`indexes/stories.json`,
 * `indexes/datasources.json`): what incremental sync and the compiler read of
 * each story and datasource without opening its record, built from the record
 * and its text as written. Also where each record lives.
 */
import type { Story } from '../api/index.js';
import { DEFAULT_LANG, FILES, type DatasourceRecord, type StoryRecord } from './format.js';
import { sha256 } from './json.js';
import { materialize } from './languages.js';

export const storyFile = (id: number) => `${FILES.stories}/${id}.json`;
export const datasourceFile = (id: number) => `${FILES.datasources}/${id}.json`;

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

/** Sets `key` as an own key, whatever it is: a language code may be `__proto__`. */
function ownKey<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
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
    ownKey(slugs, lang, variant.full_slug);
    const differs: LinkFields = {};
    if (variant.name !== s.name) differs.name = variant.name;
    if (variant.slug !== s.slug) differs.slug = variant.slug;
    const variantPath = realPath(variant);
    if (variantPath !== path) differs.path = variantPath;
    if (Object.keys(differs).length) ownKey(linkFields, lang, differs);
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
