/**
 * The assets of the served space: every asset its stories reference (in any
 * view, release or language) or a datasource value names, plus those added through the control plane,
 * minus those deleted. Keyed by the asset's path (`/f/<space>/<WxH>/<hash>/<name>`),
 * whatever host the stored URL names.
 */
import { createHash } from 'node:crypto';
import { type AssetPath, type AssetReference, assetReferences, parseAssetUrl } from '../../api/assets.js';
import type { StoryRecord, StoryVersion } from '../../snapshot/index.js';
import type { SpaceStore } from '../store.js';

interface ParsedReference {
  ref: AssetReference;
  parsed: NonNullable<ReturnType<typeof parseAssetUrl>>;
}

/** The asset references in content, each with its URL parsed. */
const parsedReferences = (content: unknown): ParsedReference[] =>
  assetReferences(content).map((ref) => ({ ref, parsed: parseAssetUrl(ref.url)! }));

export interface AssetEntry extends AssetPath {
  /** The URL as stored in content. */
  filename: string;
  origin: string;
  id?: number;
  /** Metadata from the asset field that references it (alt, title, focus, ...). */
  meta: Record<string, unknown>;
  /** Bytes uploaded through the control plane; otherwise the service renders a stand-in. */
  bytes?: Buffer;
}

export class AssetError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function* versions(record: StoryRecord): Generator<StoryVersion> {
  if (record.published) yield record.published;
  if (record.draft) yield record.draft;
  for (const version of Object.values(record.releases ?? {})) yield version;
}

export class AssetCatalog {
  readonly #store: SpaceStore;
  #generation = -1;
  #referenced = new Map<string, AssetEntry>();
  readonly #added = new Map<string, AssetEntry>();
  readonly #replaced = new Map<string, Buffer>();
  readonly #deleted = new Set<string>();

  constructor(store: SpaceStore) {
    this.#store = store;
  }

  /**
   * Asset references by content object. The store replaces content on every change and never edits
   * it in place, so a walk once made stays right, and the derivation after a change walks only
   * the content that changed (at 10,000 stories, a quarter of a second less per change).
   */
  readonly #references = new WeakMap<object, ParsedReference[]>();

  #referencesOf(content: unknown): ParsedReference[] {
    if (typeof content !== 'object' || content === null) return parsedReferences(content);
    let refs = this.#references.get(content);
    if (!refs) {
      refs = parsedReferences(content);
      this.#references.set(content, refs);
    }
    return refs;
  }

  /**
   * The content of every story version (any view, release or language), then every datasource's
   * entries: their values are delivered with asset URLs pointed at this service, which must then
   * serve them. Stories first, as their asset fields carry the metadata.
   */
  *#contents(): Generator<unknown> {
    for (const record of this.#store.records()) {
      for (const version of versions(record)) {
        yield version.story.content;
        for (const overlay of Object.values(version.languages ?? {})) yield overlay.content;
      }
    }
    for (const datasource of this.#store.datasourceRecords()) yield datasource.entries;
  }

  /** The assets referenced by content, derived again after every change to the stories or datasources. */
  #refresh(): Map<string, AssetEntry> {
    if (this.#generation === this.#store.generation) return this.#referenced;
    const found = new Map<string, AssetEntry>();
    const spaceId = this.#store.space.id;
    for (const content of this.#contents()) {
      for (const { ref, parsed } of this.#referencesOf(content)) {
        if (parsed.spaceId !== spaceId) continue;
        const known = found.get(parsed.path);
        if (known && (known.id !== undefined || !ref.holder)) continue;
        const id = ref.holder?.id;
        found.set(parsed.path, {
          ...parsed,
          filename: ref.url,
          ...(typeof id === 'number' ? { id } : {}),
          meta: ref.holder ? { ...ref.holder } : {},
        });
      }
    }
    this.#referenced = found;
    this.#generation = this.#store.generation;
    return found;
  }

  get(path: string): AssetEntry | undefined {
    if (this.#deleted.has(path)) return undefined;
    const entry = this.#added.get(path) ?? this.#refresh().get(path);
    if (!entry) return undefined;
    const replaced = this.#replaced.get(path);
    return replaced ? { ...entry, bytes: replaced } : entry;
  }

  /** The origins that stored asset URLs of this space name (usually one). */
  origins(): string[] {
    const origins = new Set<string>();
    for (const entry of this.#refresh().values()) origins.add(entry.origin);
    for (const entry of this.#added.values()) origins.add(entry.origin);
    return [...origins];
  }

  /** The asset with this id (an AssetError 404 when there is none). */
  byId(id: number): AssetEntry {
    for (const entry of [...this.#added.values(), ...this.#refresh().values()]) {
      if (entry.id === id && !this.#deleted.has(entry.path)) return entry;
    }
    throw new AssetError(404, `asset ${id} does not exist`);
  }

  /** Adds an uploaded file as a new asset; its URL carries its dimensions and a hash of its id and bytes. */
  add(input: {
    name: string;
    bytes: Buffer;
    width: number;
    height: number;
    meta?: Record<string, unknown>;
  }): AssetEntry {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(input.name)) {
      throw new AssetError(
        422,
        'name must be a plain file name (letters, digits, dot, dash, underscore), e.g. hero.jpg',
      );
    }
    // The size is written in the URL (at most five digits a side): a larger one would make a URL no
    // route serves, an asset that answers 404 for ever.
    if (input.width > 99_999 || input.height > 99_999) {
      throw new AssetError(
        422,
        `${input.name} is ${input.width}x${input.height} pixels; an asset may be at most 99999 pixels a side`,
      );
    }
    // The hash takes in the id: the same file uploaded twice is two assets, each at its own URL, as
    // in the CMS (of its bytes alone, the second took the first's URL and its id answered 404).
    const id = this.#nextId();
    const hash = createHash('sha256').update(`${id}\0`).update(input.bytes).digest('hex').slice(0, 10);
    const origin = this.origins()[0] ?? 'https://a.local-assets.invalid';
    const path = `/f/${this.#store.space.id}/${input.width}x${input.height}/${hash}/${input.name}`;
    const parsed = parseAssetUrl(origin + path)!;
    const entry: AssetEntry = {
      ...parsed,
      filename: origin + path,
      id,
      meta: { ...input.meta, id, filename: origin + path },
      bytes: input.bytes,
    };
    this.#added.set(path, entry);
    this.#deleted.delete(path);
    return entry;
  }

  /** New bytes at the same URL (the way a replaced asset keeps its references). */
  replace(id: number, bytes: Buffer): AssetEntry {
    const entry = this.byId(id);
    this.#replaced.set(entry.path, bytes);
    return { ...entry, bytes };
  }

  delete(id: number): AssetEntry {
    const entry = this.byId(id);
    this.#deleted.add(entry.path);
    this.#replaced.delete(entry.path);
    return entry;
  }

  #nextId(): number {
    let max = 0;
    for (const entry of [...this.#added.values(), ...this.#refresh().values()]) max = Math.max(max, entry.id ?? 0);
    return max + 1;
  }
}
