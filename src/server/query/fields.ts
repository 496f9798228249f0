/**
 * `excluding_fields`: leaves top-level content fields out of a story. Nested
 * fields are not addressed (`seo.title` removes nothing unless a top-level key
 * is literally called that); `component` and `_uid` always stay.
 */
import type { Story } from '../../api/index.js';

const KEPT = new Set(['component', '_uid']);

export function excludeFields(story: Story, fields: readonly string[]): Story {
  const drop = new Set<string>();
  for (const f of fields) {
    const name = f.trim();
    if (name !== '' && !KEPT.has(name)) drop.add(name);
  }
  // Object.entries / fromEntries copy own data properties only and never invoke
  // the __proto__ setter, so a content key named "__proto__" stays a plain key.
  const content = Object.fromEntries(
    Object.entries(story.content).filter(([key]) => !drop.has(key)),
  ) as Story['content'];
  return { ...story, content };
}
