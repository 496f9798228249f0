/**
 * Builders for the field shapes found in real content: assets, multiassets,
 * multilinks, tables, plugin fields and dates.
 */
import type { Random } from './random.js';

/**
 * Host of demo asset URLs as stored. `.invalid` never resolves, so nothing is fetched by accident;
 * the local service (`assetUrls: 'self'`) delivers them at its own origin and serves their bytes.
 */
export const DEMO_ASSET_HOST = 'https://a.demo-assets.invalid';

export type Json = Record<string, unknown>;

/** A story that content can point at. */
export interface StoryRef {
  id: number;
  uuid: string;
  name: string;
  fullSlug: string;
}

export interface AssetDef {
  id: number;
  filename: string;
  name: string;
  alt: string;
  title: string;
  copyright: string;
  focus: string | null;
  kind: 'image' | 'document';
}

const IMAGE_NAMES = [
  'hero',
  'portrait',
  'landscape',
  'product-shot',
  'detail',
  'workspace',
  'street',
  'still-life',
  'team',
  'texture',
];
const DOC_NAMES = ['manual', 'datasheet', 'price-list', 'brochure'];
const SIZES = ['1600x900', '1200x800', '800x800', '1920x1080', '600x900', '2400x1600'];

/** Mostly JPEG, with PNG, WebP and SVG among them, as in real spaces. */
function imageExtension(i: number): string {
  if (i % 5 === 4) return 'png';
  if (i % 7 === 3) return 'webp';
  if (i % 13 === 6) return 'svg';
  return 'jpg';
}

/** A fixed pool of assets, referenced by content. */
export function assetPool(rng: Random, spaceId: number, count: number, firstId: number): AssetDef[] {
  const pool: AssetDef[] = [];
  for (let i = 0; i < count; i++) {
    const document = i % 8 === 7;
    const base = document ? DOC_NAMES[i % DOC_NAMES.length]! : IMAGE_NAMES[i % IMAGE_NAMES.length]!;
    const size = document ? '0x0' : rng.pick(SIZES);
    const file = `${base}-${i + 1}.${document ? 'pdf' : imageExtension(i)}`;
    const [w, h] = size.split('x').map(Number) as [number, number];
    pool.push({
      id: firstId + i,
      filename: `${DEMO_ASSET_HOST}/f/${spaceId}/${size}/${rng.hex(10)}/${file}`,
      name: file,
      alt: document ? '' : `${base.replace(/-/g, ' ')} ${i + 1}`,
      title: i % 3 === 0 ? `${base.replace(/-/g, ' ')} photo` : '',
      copyright: i % 4 === 0 ? '© Demo Studio' : '',
      focus:
        !document && i % 6 === 1
          ? `${Math.floor(w / 2)}x${Math.floor(h / 3)}:${Math.floor(w / 2) + 1}x${Math.floor(h / 3) + 1}`
          : null,
      kind: document ? 'document' : 'image',
    });
  }
  return pool;
}

/** An asset field value. Old multiasset items lack `fieldtype`. */
export function asset(def: AssetDef, withFieldtype = true): Json {
  const out: Json = {
    id: def.id,
    alt: def.alt || null,
    name: '',
    focus: def.focus,
    title: def.title || null,
    source: '',
    filename: def.filename,
    copyright: def.copyright || null,
    meta_data:
      def.id % 4 === 0 && def.alt ? { alt: def.alt, title: def.title, source: '', copyright: def.copyright } : {},
    is_external_url: false,
  };
  if (withFieldtype) out.fieldtype = 'asset';
  return out;
}

export function emptyAsset(): Json {
  return {
    id: null,
    alt: null,
    name: '',
    focus: null,
    title: null,
    source: null,
    filename: '',
    copyright: null,
    meta_data: {},
    fieldtype: 'asset',
    is_external_url: false,
  };
}

export interface LinkOptions {
  uid?: string;
  anchor?: string;
  target?: string;
}

function decorate(link: Json, options: LinkOptions): Json {
  if (options.uid) link._uid = options.uid;
  if (options.anchor) link.anchor = options.anchor;
  if (options.target) link.target = options.target;
  return link;
}

export function storyLink(ref: StoryRef, options: LinkOptions = {}): Json {
  return decorate(
    { id: ref.uuid, url: '', linktype: 'story', fieldtype: 'multilink', cached_url: ref.fullSlug },
    options,
  );
}

export function urlLink(url: string, options: LinkOptions = {}): Json {
  return decorate({ id: '', url, linktype: 'url', fieldtype: 'multilink', cached_url: url }, options);
}

export function emailLink(email: string, options: LinkOptions = {}): Json {
  return decorate({ id: '', url: '', email, linktype: 'email', fieldtype: 'multilink', cached_url: '' }, options);
}

export function assetLink(def: AssetDef, options: LinkOptions = {}): Json {
  return decorate(
    { id: '', url: def.filename, linktype: 'asset', fieldtype: 'multilink', cached_url: def.filename },
    options,
  );
}

export const EXTERNAL_URLS = [
  'https://example.com/',
  'https://example.org/guide',
  'https://www.example.net/news/2025',
  'https://docs.example.com/getting-started',
  'https://shop.example.com/offers?ref=demo',
];

/** A table field: head cells and rows of cells, shaped like bloks. */
export function table(rng: Random, head: string[], rows: string[][], withFieldtype: boolean): Json {
  const out: Json = {
    thead: head.map((value) => ({ _uid: rng.uuid(), value, component: '_table_head' })),
    tbody: rows.map((row) => ({
      _uid: rng.uuid(),
      body: row.map((value) => ({ _uid: rng.uuid(), value, component: '_table_col' })),
      component: '_table_row',
    })),
  };
  if (withFieldtype) out.fieldtype = 'table';
  return out;
}

export function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** ISO 8601 UTC with milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A date field value: `YYYY-mm-dd HH:MM`. */
export function dateField(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}
