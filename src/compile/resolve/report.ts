/**
 * One warning for every reference whose target is not in the snapshot.
 */
import type { Story } from '../../api/index.js';
import type { MissingTarget } from './types.js';

/**
 * `3 references point at stories not in the snapshot: ep16 (page.body[2].featured -> <uuid>), ...`
 * and what became of the relations among them (`kept`: see ResolveConfig.keepUnresolved),
 * or undefined when nothing is missing. Stories in the order given, references
 * in document order; the same reference given twice (same story, field and
 * target) is named once.
 */
export function missingReport(
  results: Iterable<{ story: Pick<Story, 'uuid' | 'name'>; missing: readonly MissingTarget[] }>,
  kept = false,
): string | undefined {
  const seen = new Set<string>();
  const items: string[] = [];
  for (const { story, missing } of results) {
    for (const m of missing) {
      const key = JSON.stringify([story.uuid, m.field, m.uuid]);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(`${story.name} (${m.field} -> ${m.uuid})`);
    }
  }
  if (items.length === 0) return undefined;
  const head = items.length === 1 ? '1 reference points at a story' : `${items.length} references point at stories`;
  const outcome = kept
    ? 'relations keep their uuids (keepUnresolved)'
    : 'relations leave them out (an array loses the item, a single value is null; keepUnresolved keeps their uuids)';
  return `${head} not in the snapshot (missing, or not in this view): ${items.join(', ')}; ${outcome}`;
}
