/**
 * The stories index (`indexes/stories.json`): canonical JSON, one entry per
 * story in id order. Written in pieces, copying the bytes of entries
 * unchanged since the last write; read back as rows (what a compile needs of
 * each entry) off its lines, without parsing it whole.
 */
import { promises as fs } from 'node:fs';
import { canonicalJson } from './json.js';
import type { StoryIndexEntry } from './index-entries.js';
import { stampOfStats } from './read.js';

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

export const sortedIndex = <T extends { id: number }>(map: Map<number, T>): string =>
  canonicalJson([...map.values()].sort((a, b) => a.id - b.id));

export const OPEN = Buffer.from('[\n');
export const CLOSE = Buffer.from(']\n');
export const EMPTY = Buffer.from('[]\n');
export const COMMA = Buffer.from(',\n');
export const NEWLINE = Buffer.from('\n');
const CHUNK = 1 << 20;

/** Entry texts by entry object: entries are never changed in place, so a text once made stays right. */
const texts = new WeakMap<StoryIndexEntry, string>();

/**
 * The text of one entry as `sortedIndex` indents it, without the comma. A sync asks for it as
 * it stages each story, while it waits on the network, so its commit only joins the texts.
 */
export function indexEntryText(entry: StoryIndexEntry): string {
  let text = texts.get(entry);
  if (text === undefined) {
    text = `  ${canonicalJson(entry).slice(0, -1).replace(/\n/g, '\n  ')}`;
    texts.set(entry, text);
  }
  return text;
}

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
          const piece = indexEntryText(entry);
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
    if (bytes && /[\u0080-\uffff]/.test(value)) value = Buffer.from(value, 'latin1').toString('utf8');
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
    if (close < 0 || c < 0 || d < 0 || dEnd < 0 || i < 0 || iEnd < 0 || p < 0 || u < 0 || uEnd < 0 || uEnd > close)
      return undefined;
    const cEnd = text.indexOf('\n', c + C.length);
    const type = component(text.slice(c + C.length, cEnd));
    const id = Number(text.slice(i + I.length, iEnd));
    const published = text.startsWith('true', p + P.length)
      ? true
      : text.startsWith('false', p + P.length)
        ? false
        : undefined;
    if (type === undefined || !Number.isSafeInteger(id) || published === undefined) return undefined;
    rows.push(
      bytes
        ? // One character a byte: where the entry's braces are in the text is where they are in the file.
          {
            id,
            uuid: text.slice(u + U.length, uEnd),
            digest: text.slice(d + D.length, dEnd),
            component: type,
            published,
            at: open + 3,
            size: close + 1 - open,
          }
        : {
            id,
            uuid: text.slice(u + U.length, uEnd),
            digest: text.slice(d + D.length, dEnd),
            component: type,
            published,
          },
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
