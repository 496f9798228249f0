/**
 * `search_term`: a case-insensitive substring match over a story's name,
 * slug, full_slug and the text values inside its content (at any depth):
 * identifiers and node kinds (`_uid`, `component`, `type`, uuids, ...) are
 * not text and are left out.
 * The lower-cased text is built once per story object and kept in a WeakMap,
 * so repeated searches over the same objects only run `includes`.
 */
import type { Story } from '../../api/index.js';

/** Joins fields so that a term cannot match across two of them. */
const SEPARATOR = '\u0000';

const searchTexts = new WeakMap<object, string>();

/** Structural keys whose values are identifiers or node kinds, not text a reader would search. */
const STRUCTURAL = new Set(['_uid', 'component', 'fieldtype', 'linktype', 'type', 'plugin', 'uuid', 'id', '_editable']);
/**
 * In a blok (an object with a component) every key but these is a field the editor filled: a
 * headline's `type` ("h2"), a tweet's `id`, a card's `uuid` are its text, not the shape of a node.
 */
const BLOK_STRUCTURAL = new Set(['_uid', 'component', '_editable']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function searchText(story: Story): string {
  let text = searchTexts.get(story);
  if (text === undefined) {
    text = buildSearchText(story);
    searchTexts.set(story, text);
  }
  return text;
}

function buildSearchText(story: Story): string {
  return searchedFields(story).join(SEPARATOR).toLowerCase();
}

/** The texts a search looks in, in order. */
function searchedFields(story: Story): string[] {
  const parts: string[] = [];
  for (const v of [story.name, story.slug, story.full_slug]) if (typeof v === 'string') parts.push(v);
  // Iterative walk: deeply nested content cannot overflow the stack.
  const stack: unknown[] = [story.content];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value !== '' && !(value.length === 36 && UUID.test(value))) parts.push(value);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const structural = typeof record.component === 'string' ? BLOK_STRUCTURAL : STRUCTURAL;
      const keys = Object.keys(record);
      for (let i = keys.length - 1; i >= 0; i--) {
        if (!structural.has(keys[i]!)) stack.push(record[keys[i]!]);
      }
    }
  }
  return parts;
}

/** A predicate for one (trimmed, non-empty) term. */
export function compileSearch(term: string): (story: Story) => boolean {
  const needle = term.toLowerCase();
  // A term holding the separator would match where two fields meet: it is looked for in each field.
  if (needle.includes(SEPARATOR))
    return (story) => searchedFields(story).some((field) => field.toLowerCase().includes(needle));
  return (story) => searchText(story).includes(needle);
}
