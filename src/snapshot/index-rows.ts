/**
 * The rows file (`indexes/stories.rows.json`): the rows of the stories index
 * a compile needs, packed in columns beside it, so that a compile reads a
 * fraction of the index's bytes.
 */
import { canonicalJson } from './json.js';
import { CLOSE, COMMA, EMPTY, NEWLINE, OPEN, indexRowOf, type IndexLayout, type IndexRow } from './stories-index.js';

/** The version of the rows file's layout (indexRowsText). */
const ROWS_FORMAT = 1;

/**
 * The text of the rows file (`indexes/stories.rows.json`): the rows a compile needs of every
 * entry of the stories index whose layout is `layout` and sha256 `digest`, in columns packed into
 * strings, so that reading them costs a fraction of scanning the index (7 MB at 10,000 stories,
 * against under 1 MB here). Ids are kept as the difference from the previous one, and where an
 * entry's bytes are as its size (entries follow each other, a comma and a newline apart); the
 * content type as a position in `components`, `published` as one digit an entry; numbers and
 * strings separated by a space. It names the index it describes by digest and size. Undefined when
 * an entry cannot be written so (a uuid or digest empty or with a space): the index is scanned then.
 */
export function indexRowsText(layout: Omit<IndexLayout, 'stamp'>, digest: string): string | undefined {
  const n = layout.ids.length;
  const components: string[] = [];
  const componentAt = new Map<string, number>();
  const ids: number[] = [];
  const uuids: string[] = [];
  const digests: string[] = [];
  const component: number[] = [];
  const sizes: number[] = [];
  let published = '';
  for (let i = 0; i < n; i++) {
    const e = layout.entries.get(layout.ids[i]!)!;
    if (
      typeof e.component !== 'string' ||
      typeof e.published !== 'boolean' ||
      !e.uuid ||
      !e.digest ||
      e.uuid.includes(' ') ||
      e.digest.includes(' ')
    )
      return undefined;
    // Each entry's text starts with its two spaces of indentation, right after the last one's comma and newline.
    if (layout.starts[i] !== (i ? layout.ends[i - 1]! + COMMA.length : OPEN.length)) return undefined;
    let c = componentAt.get(e.component);
    if (c === undefined) componentAt.set(e.component, (c = components.push(e.component) - 1));
    ids.push(i ? e.id - layout.ids[i - 1]! : e.id);
    uuids.push(e.uuid);
    digests.push(e.digest);
    component.push(c);
    published += e.published ? '1' : '0';
    sizes.push(layout.ends[i]! - layout.starts[i]! - 2);
  }
  // The index's bytes: its entries, a newline after the last and the closing bracket's line.
  const bytes = n ? layout.ends[n - 1]! + NEWLINE.length + CLOSE.length : EMPTY.length;
  return canonicalJson({
    format: ROWS_FORMAT,
    index: { bytes, digest },
    components,
    published,
    ids: ids.join(' '),
    uuids: uuids.join(' '),
    digests: digests.join(' '),
    component: component.join(' '),
    sizes: sizes.join(' '),
  });
}

/**
 * The rows of a rows file (indexRowsText) when it describes the stories index of this sha256 and
 * size; undefined when it does not, or is not one (then scan the index).
 */
export function parseIndexRowsText(text: string, index: { digest: string; bytes: number }): IndexRow[] | undefined {
  let f: Record<string, unknown>;
  try {
    f = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!f || typeof f !== 'object' || f.format !== ROWS_FORMAT) return undefined;
  const described = f.index as { bytes?: unknown; digest?: unknown } | undefined;
  if (!described || described.digest !== index.digest || described.bytes !== index.bytes) return undefined;
  const { components, published } = f;
  const packed = ['ids', 'uuids', 'digests', 'component', 'sizes'].map((k) => f[k]);
  if (!Array.isArray(components) || !components.every((c) => typeof c === 'string') || typeof published !== 'string')
    return undefined;
  if (!packed.every((v): v is string => typeof v === 'string')) return undefined;
  const n = published.length;
  const [ids, uuids, digests, component, sizes] = packed.map((v) => (n ? v.split(' ') : []));
  if (![ids, uuids, digests, component, sizes].every((c) => c!.length === n)) return undefined;
  const rows: IndexRow[] = new Array(n);
  let id = 0;
  // The first entry's brace: after the opening bracket's line and two spaces.
  let at = OPEN.length + 2;
  for (let i = 0; i < n; i++) {
    const step = Number(ids![i]);
    id += step;
    const size = Number(sizes![i]);
    const c = components[Number(component![i])] as string | undefined;
    const p = published.charCodeAt(i) - 48;
    if (
      !Number.isSafeInteger(step) ||
      (i > 0 && step <= 0) ||
      !Number.isSafeInteger(size) ||
      size <= 0 ||
      c === undefined ||
      (p !== 0 && p !== 1)
    )
      return undefined;
    rows[i] = { id, uuid: uuids![i]!, digest: digests![i]!, component: c, published: p === 1, at, size };
    // The next brace: after this one's closing brace, a comma, a newline and two spaces.
    at += size + COMMA.length + 2;
  }
  // The last entry ends where the index says: a newline and the closing bracket's line after it.
  if (n && at - COMMA.length - 2 + NEWLINE.length + CLOSE.length !== index.bytes) return undefined;
  return rows;
}

/**
 * The rows of the stories index this process wrote (its layout), with where each entry's bytes
 * are: what parseIndexRowsText gives for the rows file written beside it.
 */
export function indexRowsOfLayout(layout: Omit<IndexLayout, 'stamp'>): IndexRow[] {
  const rows: IndexRow[] = new Array(layout.ids.length);
  for (let i = 0; i < rows.length; i++) {
    const e = layout.entries.get(layout.ids[i]!)!;
    const row = indexRowOf(e as unknown as Record<string, unknown>) ?? { id: e.id, uuid: e.uuid, digest: e.digest };
    // An entry's text starts with its two spaces of indentation: its brace is two bytes on.
    row.at = layout.starts[i]! + 2;
    row.size = layout.ends[i]! - layout.starts[i]! - 2;
    rows[i] = row;
  }
  return rows;
}
