/**
 * The part of a snapshot a sync needs to know what it already has: the
 * manifest and the two indexes. Anything missing or unreadable means "no
 * usable snapshot", and the sync starts over with a full one.
 *
 * A process that syncs the same directory again and again (the dev server on
 * every webhook) keeps the state its last commit left, with a stamp of the
 * files it describes; the next read takes it from memory while those files
 * are still the ones this process wrote (same inode, size and modification
 * time), and from disk otherwise.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { FILES, Manifest } from '../snapshot/format.js';
import { canonicalJson } from '../snapshot/json.js';
import { fileStamp, readJsonFile, stampOfStats } from '../snapshot/read.js';
import { recoverSnapshot, type SnapshotTransaction } from '../snapshot/transaction.js';
import { INDEX_FILES, type DatasourceIndexEntry, type StoryIndexEntry } from './records.js';

export interface SnapshotState {
  manifest: Manifest & { max_published_at?: string | null; synced_at?: string };
  stories: Map<number, StoryIndexEntry>;
  datasources: Map<number, DatasourceIndexEntry>;
  /** Where each entry sits in `indexes/stories.json`, when this process wrote that file. */
  index?: IndexLayout;
}

/**
 * The layout of a stories index this process wrote: entry `i` (in id order)
 * is the bytes `starts[i]..ends[i]` of the file, the canonical text of
 * `entries.get(ids[i])`. Entries are never changed in place (a change replaces
 * the entry), so an entry still the same object has still the same bytes, and
 * the next write copies them instead of serializing the entry again.
 */
export interface IndexLayout {
  entries: ReadonlyMap<number, StoryIndexEntry>;
  ids: Float64Array;
  starts: Float64Array;
  ends: Float64Array;
  /** `fileStamp` of the file as written. */
  stamp: string;
}

/** The files a state is read from. */
const STATE_FILES: string[] = [FILES.manifest, INDEX_FILES.stories, INDEX_FILES.datasources];

/**
 * The last state this process committed to each directory, with the stamps its
 * files had. A sync copies the maps before changing them, and index entries
 * are never changed in place (a change replaces the entry), so what is kept
 * here stays what was committed.
 */
const remembered = new Map<string, { state: SnapshotState; stamp: string }>();

async function stampsOf(files: string[]): Promise<string[] | undefined> {
  const stamps = await Promise.all(files.map(fileStamp));
  return stamps.every((s) => s !== undefined) ? (stamps as string[]) : undefined;
}

/**
 * The stamps the state files of `txn`'s directory will have once it commits:
 * a staged file keeps its inode, size and modification time when renamed into
 * place, and a file the transaction does not touch stays as it is. Taken while
 * the transaction holds the directory, so no other writer comes in between.
 */
export async function committedStamps(txn: SnapshotTransaction): Promise<string[] | undefined> {
  const { puts, deletes } = txn.changes;
  if (STATE_FILES.some((rel) => deletes.includes(rel))) return undefined;
  return stampsOf(STATE_FILES.map((rel) => (puts.includes(rel) ? path.join(txn.dir, '.txn', 'files', rel) : path.join(txn.dir, rel))));
}

/**
 * Keeps the state a commit left in `dir`: its files stamped by
 * `committedStamps` before the commit, and the layout of the stories index
 * written from `state.stories`.
 */
export function rememberState(
  dir: string,
  state: Omit<SnapshotState, 'index'>,
  layout: Omit<IndexLayout, 'stamp'> | undefined,
  stamps: string[] | undefined,
): void {
  dir = path.resolve(dir);
  if (stamps === undefined) {
    remembered.delete(dir);
    return;
  }
  // The manifest as a read from disk would give it.
  const manifest = Manifest.parse(JSON.parse(canonicalJson(state.manifest))) as SnapshotState['manifest'];
  const index = layout && layout.entries === state.stories ? { ...layout, stamp: stamps[STATE_FILES.indexOf(INDEX_FILES.stories)]! } : undefined;
  remembered.set(dir, {
    state: { manifest, stories: state.stories, datasources: state.datasources, ...(index ? { index } : {}) },
    stamp: stamps.join('|'),
  });
}

/** Drops what this process remembers of `dir` (a sync of it failed). */
export function forgetState(dir: string): void {
  remembered.delete(path.resolve(dir));
}

/** What a sync knows of the snapshot in `dir` (its maps copies: the caller may change them). */
export async function readState(dir: string): Promise<SnapshotState | undefined> {
  const state = await loadState(dir);
  return state && { manifest: structuredClone(state.manifest), stories: new Map(state.stories), datasources: new Map(state.datasources) };
}

/**
 * The state this process committed to `dir` last, if the directory still holds
 * exactly that (after finishing a transaction a killed writer left); else
 * undefined, and the disk is the truth.
 */
export async function rememberedState(dir: string): Promise<SnapshotState | undefined> {
  if (!existsSync(dir)) return undefined;
  await recoverSnapshot(dir);
  const mem = remembered.get(path.resolve(dir));
  if (!mem) return undefined;
  if (mem.stamp === (await stampsOf(STATE_FILES.map((rel) => path.join(dir, rel))))?.join('|')) return mem.state;
  // Written by someone else since.
  remembered.delete(path.resolve(dir));
  return undefined;
}

/**
 * What a sync knows of the snapshot in `dir`, possibly this process's memory
 * of it: to be read, never changed.
 */
export async function loadState(dir: string): Promise<SnapshotState | undefined> {
  const mem = await rememberedState(dir);
  if (mem) return mem;
  // A directory that is not there fails the first read: undefined.
  try {
    const manifest = Manifest.parse(await readJsonFile(path.join(dir, FILES.manifest)));
    const stories = (await readJsonFile(path.join(dir, INDEX_FILES.stories))) as StoryIndexEntry[];
    const datasources = (await readJsonFile(path.join(dir, INDEX_FILES.datasources))) as DatasourceIndexEntry[];
    if (!Array.isArray(stories) || !Array.isArray(datasources)) return undefined;
    return {
      manifest: manifest as SnapshotState['manifest'],
      stories: new Map(stories.map((s) => [s.id, s])),
      datasources: new Map(datasources.map((d) => [d.id, d])),
    };
  } catch {
    return undefined;
  }
}

/** Reads one story record from a snapshot (or from a transaction's staging). */
export async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

export const sortedIndex = <T extends { id: number }>(map: Map<number, T>): string =>
  canonicalJson([...map.values()].sort((a, b) => a.id - b.id));

const OPEN = Buffer.from('[\n');
const CLOSE = Buffer.from(']\n');
const EMPTY = Buffer.from('[]\n');
const COMMA = Buffer.from(',\n');
const NEWLINE = Buffer.from('\n');
const CHUNK = 1 << 20;

/** The text of one entry as `sortedIndex` indents it, without the comma. */
const entryText = (entry: object): string => `  ${canonicalJson(entry).slice(0, -1).replace(/\n/g, '\n  ')}`;

/**
 * The bytes of `sortedIndex(stories)`, in pieces (one per entry), so that an
 * index of a large space is written without ever being one string. With the
 * layout of the file as it stands in `file` (and the file still as written),
 * runs of entries unchanged since are copied from it rather than serialized.
 * `layout` receives the layout of the new text once the pieces are consumed.
 */
export async function* sortedIndexPieces(
  stories: ReadonlyMap<number, StoryIndexEntry>,
  previous?: { layout: IndexLayout; file: string },
  layout?: (layout: Omit<IndexLayout, 'stamp'>) => void,
): AsyncGenerator<Uint8Array> {
  const n = stories.size;
  const ids = new Float64Array(n);
  let k = 0;
  for (const id of stories.keys()) ids[k++] = id;
  ids.sort();
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  let old: IndexLayout | undefined;
  let handle: fs.FileHandle | undefined;
  if (previous) {
    try {
      handle = await fs.open(previous.file, 'r');
      if (stampOfStats(await handle.stat({ bigint: true })) === previous.layout.stamp) old = previous.layout;
    } catch {
      // Not there any more: everything is serialized.
    }
  }
  try {
    if (!n) {
      yield EMPTY;
      layout?.({ entries: stories, ids, starts, ends });
      return;
    }
    yield OPEN;
    let pos = OPEN.length;
    // Serialized entries (with their separators) are handed on as one buffer per ~256 KB of text.
    let text: string[] = [];
    let textBytes = 0;
    const flushText = function* (): Generator<Uint8Array> {
      if (!text.length) return;
      yield Buffer.from(text.join(''));
      text = [];
      textBytes = 0;
    };
    // A run of old entries j0..j1 (consecutive in both files), copied as one range; it starts at `at` in the new file.
    let run: { j0: number; j1: number; at: number } | undefined;
    const copy = async function* (r: { j0: number; j1: number }): AsyncGenerator<Uint8Array> {
      const to = old!.ends[r.j1]!;
      for (let from = old!.starts[r.j0]!; from < to; ) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, to - from));
        for (let got = 0; got < buf.length; ) {
          const { bytesRead } = await handle!.read(buf, got, buf.length - got, from + got);
          if (!bytesRead) throw new Error(`${previous!.file} changed while it was being rewritten`);
          got += bytesRead;
        }
        yield buf;
        from += buf.length;
      }
    };
    let j = 0;
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      const entry = stories.get(id)!;
      let same = -1;
      if (old) {
        while (j < old.ids.length && old.ids[j]! < id) j++;
        if (old.ids[j] === id && old.entries.get(id) === entry) same = j;
      }
      if (same >= 0 && run && same === run.j1 + 1) {
        run.j1 = same;
      } else {
        if (run) {
          yield* flushText();
          yield* copy(run);
          pos = run.at + old!.ends[run.j1]! - old!.starts[run.j0]!;
          yield COMMA;
          pos += COMMA.length;
          run = undefined;
        }
        if (same >= 0) {
          run = { j0: same, j1: same, at: pos };
        } else {
          const piece = entryText(entry);
          const bytes = Buffer.byteLength(piece);
          starts[i] = pos;
          ends[i] = pos + bytes;
          const last = i === n - 1;
          text.push(piece, last ? '\n' : ',\n');
          textBytes += bytes + (last ? 1 : 2);
          pos = ends[i]! + (last ? 1 : 2);
          if (textBytes >= CHUNK / 4) yield* flushText();
          continue;
        }
      }
      starts[i] = run.at + old!.starts[same]! - old!.starts[run.j0]!;
      ends[i] = starts[i]! + old!.ends[same]! - old!.starts[same]!;
    }
    yield* flushText();
    if (run) {
      yield* copy(run);
      yield NEWLINE;
    }
    yield CLOSE;
    layout?.({ entries: stories, ids, starts, ends });
  } finally {
    await handle?.close();
  }
}

/** What a compile needs of each entry of the stories index. */
export interface IndexRow {
  id: number;
  uuid: string;
  digest: string;
  /**
   * What the entry says of the version it describes (the published one, else
   * the draft): its content type and whether the story is published. Enough to
   * embed the story as a relation target without reading its record. Absent
   * when the index does not say.
   */
  component?: string;
  published?: boolean;
  /**
   * Where the entry sits in the index file: its first byte and length, when
   * the index was read as bytes. The entry says what a link to the story
   * shows, so a compile reads it there instead of the story's record.
   */
  at?: number;
  size?: number;
}

/**
 * Up to this length (characters), the rows' uuids and digests stay slices of the index's text, which
 * they keep alive: less than copying them costs (a few megabytes, at 10,000 stories); a larger
 * index's are copied, so that its text can go.
 */
const KEEP_SLICES_OF = 16 * 1024 * 1024;

/**
 * The rows of every entry of a stories index as sync writes it (canonical
 * JSON: two-space indentation, sorted keys, one key per line), read off its
 * lines without building the entries; undefined when the text is not laid out
 * so (then parse it). `bytes`: the file's bytes, which `text` is decoded from
 * as latin1, one character a byte (several times cheaper to decode than UTF-8
 * for a large index; the keys and every value read but content types are
 * ASCII); the rows then say where their entries are in the file.
 */
export function scanIndexRows(text: string, bytes?: Buffer): IndexRow[] | undefined {
  // Entries open and close lines of their own at two spaces ("  {", "  }" or "  },"), in an array.
  const ENTRY_OPEN = '\n  {\n';
  const ENTRY_CLOSE = '\n  }';
  // Sorted keys, each on a line at four spaces: component, digest, id, published, uuid (others between).
  const C = '\n    "component": ';
  const D = '\n    "digest": "';
  const I = '\n    "id": ';
  const P = '\n    "published": ';
  const U = '\n    "uuid": "';
  const rows: IndexRow[] = [];
  if (!text.startsWith('[')) return undefined;
  if (!text.startsWith(ENTRY_OPEN, 1)) return /^\[\s*\]\s*$/.test(text) ? rows : undefined;
  /** Content types by the text of their line (a space has few): each decoded once. */
  const components = new Map<string, string>();
  const component = (line: string): string | undefined => {
    let value = components.get(line);
    if (value !== undefined) return value;
    const raw = line.endsWith(',') ? line.slice(0, -1) : line;
    if (raw.length < 2 || !raw.startsWith('"') || !raw.endsWith('"')) return undefined;
    value = raw.slice(1, -1);
    // Bytes read as latin1 give back the UTF-8 they were.
    if (bytes && /[^\x00-\x7f]/.test(value)) value = Buffer.from(value, 'latin1').toString('utf8');
    if (value.includes('\\')) {
      try {
        const parsed = JSON.parse(`"${value}"`) as unknown;
        if (typeof parsed !== 'string') return undefined;
        value = parsed;
      } catch {
        return undefined;
      }
    }
    // A copy of its own, not a slice of the text (which would keep all of it alive).
    value = JSON.parse(JSON.stringify(value)) as string;
    components.set(line, value);
    return value;
  };
  for (let open = 1; ; ) {
    // The entry, from the line of its brace to the line that closes it: every key read lies within.
    const close = text.indexOf(ENTRY_CLOSE, open + 4);
    const c = text.indexOf(C, open + 4);
    const d = text.indexOf(D, c);
    const dEnd = text.indexOf('"', d + D.length);
    const i = text.indexOf(I, dEnd);
    const iEnd = text.indexOf(',', i + I.length);
    const p = text.indexOf(P, iEnd);
    const u = text.indexOf(U, p);
    const uEnd = text.indexOf('"', u + U.length);
    if (close < 0 || c < 0 || d < 0 || dEnd < 0 || i < 0 || iEnd < 0 || p < 0 || u < 0 || uEnd < 0 || uEnd > close) return undefined;
    const cEnd = text.indexOf('\n', c + C.length);
    const type = component(text.slice(c + C.length, cEnd));
    const id = Number(text.slice(i + I.length, iEnd));
    const published = text.startsWith('true', p + P.length) ? true : text.startsWith('false', p + P.length) ? false : undefined;
    if (type === undefined || !Number.isSafeInteger(id) || published === undefined) return undefined;
    rows.push(
      bytes
        ? // One character a byte: where the entry's braces are in the text is where they are in the file.
          { id, uuid: text.slice(u + U.length, uEnd), digest: text.slice(d + D.length, dEnd), component: type, published, at: open + 3, size: close + 1 - open }
        : { id, uuid: text.slice(u + U.length, uEnd), digest: text.slice(d + D.length, dEnd), component: type, published },
    );
    // A comma and the next entry, else the end of the array.
    const after = close + ENTRY_CLOSE.length;
    if (text.charCodeAt(after) === 44) {
      open = after + 1;
      if (!text.startsWith(ENTRY_OPEN, open)) return undefined;
      continue;
    }
    if (!text.startsWith('\n]', after) || text.slice(after + 2).trim() !== '') return undefined;
    break;
  }
  if (text.length > KEEP_SLICES_OF) {
    // The uuids and digests are slices of the text, which they would keep alive (tens of megabytes at
    // 100,000 stories): copied into one string of their own, then sliced from it.
    const parts = new Array<string>(2 * rows.length);
    rows.forEach((r, k) => {
      parts[2 * k] = r.uuid;
      parts[2 * k + 1] = r.digest;
    });
    const copied = parts.join('\n').split('\n');
    rows.forEach((r, k) => {
      r.uuid = copied[2 * k]!;
      r.digest = copied[2 * k + 1]!;
    });
  }
  return rows;
}

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
    if (typeof e.component !== 'string' || typeof e.published !== 'boolean' || !e.uuid || !e.digest || e.uuid.includes(' ') || e.digest.includes(' ')) return undefined;
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
  if (!Array.isArray(components) || !components.every((c) => typeof c === 'string') || typeof published !== 'string') return undefined;
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
    if (!Number.isSafeInteger(step) || (i > 0 && step <= 0) || !Number.isSafeInteger(size) || size <= 0 || c === undefined || (p !== 0 && p !== 1)) return undefined;
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

/** The row of a parsed index entry; undefined when it lacks id, uuid or digest. */
export function indexRowOf(e: Record<string, unknown>): IndexRow | undefined {
  if (!e || typeof e.id !== 'number' || typeof e.uuid !== 'string' || typeof e.digest !== 'string') return undefined;
  const row: IndexRow = { id: e.id, uuid: e.uuid, digest: e.digest };
  if (typeof e.component === 'string' && typeof e.published === 'boolean') {
    row.component = e.component;
    row.published = e.published;
  }
  return row;
}
