/**
 * The shape of the demo space before any content exists: the folder tree,
 * which stories exist where, their names, slugs, timestamps and states.
 */
import type { Folder } from '../snapshot/index.js';
import { isoTime, type StoryRef } from './fields.js';
import type { Random } from './random.js';
import { shortPhrase, title } from './text.js';
import {
  ABOUT_SECTIONS,
  ARTICLE_TOPICS,
  BRANDS,
  FIRST_NAMES,
  HELP_SECTIONS,
  LANGS,
  LAST_NAMES,
  PAGE_TITLES,
  PRODUCT_CATEGORIES,
  SECTION_NAMES,
  TAGS,
  slugify,
  type Trio,
} from './vocabulary.js';

export const BASE_TIME = Date.UTC(2025, 0, 1);
const SPAN_MS = 180 * 24 * 3600 * 1000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type FolderKind =
  | 'articles'
  | 'year'
  | 'topic'
  | 'authors'
  | 'categories'
  | 'products'
  | 'productCategory'
  | 'productSub'
  | 'about'
  | 'aboutSection'
  | 'help'
  | 'helpSection';

export interface FolderNode {
  id: number;
  uuid: string;
  kind: FolderKind;
  name: Trio;
  slug: Trio;
  /** Full path per language, without a language prefix. */
  path: Trio;
  parentId: number;
  position: number;
  year?: number;
  productCategory?: string;
  hasChildren: boolean;
}

export type StoryType = 'home' | 'startpage' | 'article' | 'author' | 'category' | 'product' | 'page';
export type Publication = 'published' | 'changed' | 'unpublished';

export interface StoryPlan {
  id: number;
  uuid: string;
  groupId: string;
  type: StoryType;
  /** Ordinal among stories of the same type, from 0. */
  ordinal: number;
  folder: FolderNode | null;
  parentId: number;
  name: Trio;
  /** Path per language without a language prefix; `path.en` is the full_slug. */
  path: Trio;
  slug: string;
  isStartpage: boolean;
  position: number;
  tags: string[];
  createdAt: number;
  firstPublishedAt: number | null;
  publishedAt: number | null;
  updatedAt: number;
  state: Publication;
  workflowStageId: number;
  releaseIds: number[];
  /** Articles: index into the authors list and the categories list. */
  authorIndex: number;
  categoryIndexes: number[];
  ref: StoryRef;
}

export interface Counts {
  folders: number;
  authors: number;
  categories: number;
  articles: number;
  products: number;
  pages: number;
}

export interface Ids {
  next(): number;
}

interface Candidate {
  key: string;
  parent: string | null;
  kind: FolderKind;
  name: Trio;
  slug: Trio;
  year?: number;
  productCategory?: string;
}

const YEARS = [2025, 2024, 2023, 2022, 2021, 2020, 2019];

function slugTrio(name: Trio): Trio {
  return { en: slugify(name.en), de: slugify(name.de), fr: slugify(name.fr) };
}

function sameTrio(text: string): Trio {
  return { en: text, de: text, fr: text };
}

/** Pairs enumerated diagonally so that depth and breadth grow together; parents first. */
function diagonal<P, C>(
  parents: P[],
  children: (p: P) => C[],
  emitParent: (p: P) => Candidate,
  emitChild: (p: P, c: C) => Candidate,
): Candidate[] {
  const out: Candidate[] = [];
  const maxChildren = Math.max(0, ...parents.map((p) => children(p).length));
  for (let round = 0; round < parents.length + maxChildren + 1; round++) {
    if (round < parents.length) out.push(emitParent(parents[round]!));
    for (let j = 0; j < Math.min(round, parents.length); j++) {
      const c = children(parents[j]!)[round - 1 - j];
      if (c !== undefined) out.push(emitChild(parents[j]!, c));
    }
  }
  return out;
}

/** Every folder the demo space may have, in the order they are taken. */
function folderCandidates(): Candidate[] {
  const top = (key: string): Candidate => ({
    key,
    parent: null,
    kind: key as FolderKind,
    name: SECTION_NAMES[key]!,
    slug: { ...slugTrio(SECTION_NAMES[key]!), en: key },
  });
  const first = ['articles', 'authors', 'categories', 'products'].map(top);
  const articles = diagonal(
    YEARS,
    () => ARTICLE_TOPICS,
    (y) => ({
      key: `articles/${y}`,
      parent: 'articles',
      kind: 'year',
      name: sameTrio(String(y)),
      slug: sameTrio(String(y)),
      year: y,
    }),
    (y, t) => ({
      key: `articles/${y}/${t.en}`,
      parent: `articles/${y}`,
      kind: 'topic',
      name: t,
      slug: slugTrio(t),
      year: y,
    }),
  );
  const products = diagonal(
    PRODUCT_CATEGORIES,
    (c) => c.subcategories,
    (c) => ({
      key: `products/${c.name}`,
      parent: 'products',
      kind: 'productCategory',
      name: c.label,
      slug: slugTrio(c.label),
      productCategory: c.name,
    }),
    (c, s) => ({
      key: `products/${c.name}/${s.en}`,
      parent: `products/${c.name}`,
      kind: 'productSub',
      name: s,
      slug: slugTrio(s),
      productCategory: c.name,
    }),
  );
  const others: Candidate[] = [top('about'), top('help')];
  for (let i = 0; i < Math.max(ABOUT_SECTIONS.length, HELP_SECTIONS.length); i++) {
    const a = ABOUT_SECTIONS[i];
    const h = HELP_SECTIONS[i];
    if (a) others.push({ key: `about/${a.en}`, parent: 'about', kind: 'aboutSection', name: a, slug: slugTrio(a) });
    if (h) others.push({ key: `help/${h.en}`, parent: 'help', kind: 'helpSection', name: h, slug: slugTrio(h) });
  }
  const streams = [articles, products, others];
  const pattern = [0, 1, 2, 0, 1];
  const out = [...first];
  const cursors = [0, 0, 0];
  for (let step = 0; cursors.some((c, i) => c < streams[i]!.length); step++) {
    const s = pattern[step % pattern.length]!;
    if (cursors[s]! < streams[s]!.length) out.push(streams[s]![cursors[s]!++]!);
  }
  return out;
}

export const MAX_FOLDERS = folderCandidates().length;

export function countsFor(stories: number): Counts {
  const folders = Math.max(4, Math.min(MAX_FOLDERS, Math.floor(stories / 10)));
  const authors = Math.max(1, Math.round(Math.sqrt(stories) / 2.5));
  const categories = Math.max(1, Math.floor(Math.sqrt(stories) / 3));
  const rest = stories - folders - 1 - authors - categories;
  const products = Math.max(1, Math.round(rest * 0.24));
  const pages = Math.round(rest * 0.12);
  return { folders, authors, categories, products, pages, articles: rest - products - pages };
}

export function buildFolders(rng: Random, count: number, ids: Ids): FolderNode[] {
  const chosen = folderCandidates().slice(0, count);
  const byKey = new Map<string, FolderNode>();
  const siblings = new Map<number, number>();
  const out: FolderNode[] = [];
  for (const c of chosen) {
    const parent = c.parent ? byKey.get(c.parent) : undefined;
    if (c.parent && !parent) throw new Error(`folder ${c.key} comes before its parent`);
    const parentId = parent?.id ?? 0;
    const sibling = siblings.get(parentId) ?? 0;
    siblings.set(parentId, sibling + 1);
    const node: FolderNode = {
      id: ids.next(),
      uuid: rng.uuid(),
      kind: c.kind,
      name: c.name,
      slug: c.slug,
      path: parent
        ? {
            en: `${parent.path.en}/${c.slug.en}`,
            de: `${parent.path.de}/${c.slug.de}`,
            fr: `${parent.path.fr}/${c.slug.fr}`,
          }
        : c.slug,
      parentId,
      position: -10 * (sibling + 1),
      hasChildren: false,
    };
    if (c.year !== undefined) node.year = c.year;
    if (c.productCategory !== undefined) node.productCategory = c.productCategory;
    if (parent) parent.hasChildren = true;
    byKey.set(c.key, node);
    out.push(node);
  }
  return out;
}

export function folderRecord(node: FolderNode): Folder {
  return {
    id: node.id,
    uuid: node.uuid,
    name: node.name.en,
    slug: node.slug.en,
    full_slug: node.path.en,
    parent_id: node.parentId,
    position: node.position,
    is_folder: true,
    translated_slugs: LANGS.map((lang) => ({ lang, path: node.path[lang], name: node.name[lang] })),
  };
}

const PRODUCT_NOUNS: Trio[] = [
  { en: 'Lamp', de: 'Lampe', fr: 'Lampe' },
  { en: 'Speaker', de: 'Lautsprecher', fr: 'Enceinte' },
  { en: 'Backpack', de: 'Rucksack', fr: 'Sac à dos' },
  { en: 'Mug', de: 'Becher', fr: 'Tasse' },
  { en: 'Chair', de: 'Stuhl', fr: 'Chaise' },
  { en: 'Jacket', de: 'Jacke', fr: 'Veste' },
  { en: 'Camera', de: 'Kamera', fr: 'Appareil' },
  { en: 'Notebook', de: 'Notizbuch', fr: 'Carnet' },
  { en: 'Bottle', de: 'Flasche', fr: 'Gourde' },
  { en: 'Tent', de: 'Zelt', fr: 'Tente' },
  { en: 'Watch', de: 'Uhr', fr: 'Montre' },
  { en: 'Puzzle', de: 'Puzzle', fr: 'Puzzle' },
];

const HOME_NAME: Trio = { en: 'Home', de: 'Startseite', fr: 'Accueil' };

function personName(rng: Random): Trio {
  return sameTrio(`${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`);
}

function productName(rng: Random): Trio {
  const brand = rng.pick(BRANDS);
  const noun = rng.pick(PRODUCT_NOUNS);
  const model = `${rng.pick(['X', 'S', 'Pro ', 'Air ', 'Mini ', ''])}${rng.int(1, 99) * 10}`;
  return { en: `${brand} ${noun.en} ${model}`, de: `${brand} ${noun.de} ${model}`, fr: `${noun.fr} ${brand} ${model}` };
}

/** Keeps slugs unique per folder and language. */
class SlugRegistry {
  private readonly taken = new Set<string>();

  reserve(parentId: number, slug: Trio): Trio {
    const out = { en: '', de: '', fr: '' };
    for (const lang of ['en', 'de', 'fr'] as const) {
      const base = slug[lang] || 'untitled';
      let candidate = base;
      for (let n = 2; this.taken.has(`${parentId}|${lang}|${candidate}`); n++) candidate = `${base}-${n}`;
      this.taken.add(`${parentId}|${lang}|${candidate}`);
      out[lang] = candidate;
    }
    return out;
  }
}

function joinPath(folder: FolderNode | null, lang: keyof Trio, slug: string): string {
  return folder ? `${folder.path[lang]}/${slug}` : slug;
}

export interface PlanInput {
  rng: Random;
  counts: Counts;
  folders: FolderNode[];
  ids: Ids;
  stageIds: { drafting: number; review: number; approved: number; published: number };
  releaseIds: number[];
}

/** Every story of the space, without content. */
export function planStories(input: PlanInput): StoryPlan[] {
  const { rng, counts, folders, ids } = input;
  const slugs = new SlugRegistry();
  for (const f of folders) slugs.reserve(f.parentId, f.slug);
  const leaves = (kinds: FolderKind[]) => folders.filter((f) => kinds.includes(f.kind) && !f.hasChildren);
  const single = (kind: FolderKind) => folders.find((f) => f.kind === kind) ?? null;
  const articleLeaves = leaves(['articles', 'year', 'topic']);
  const productLeaves = leaves(['products', 'productCategory', 'productSub']);
  const pageSections = leaves(['about', 'aboutSection', 'help', 'helpSection']);
  const authorsFolder = single('authors');
  const categoriesFolder = single('categories');

  // Order of creation: home, start pages, authors, categories, then the rest mixed.
  type Slot = { type: StoryType; folder: FolderNode | null };
  const slots: Slot[] = [{ type: 'home', folder: null }];
  for (const f of folders) slots.push({ type: 'startpage', folder: f });
  for (let i = 0; i < counts.authors; i++) slots.push({ type: 'author', folder: authorsFolder });
  for (let i = 0; i < counts.categories; i++) slots.push({ type: 'category', folder: categoriesFolder });
  const mixed: StoryType[] = [];
  for (let i = 0; i < counts.articles; i++) mixed.push('article');
  for (let i = 0; i < counts.products; i++) mixed.push('product');
  for (let i = 0; i < counts.pages; i++) mixed.push('page');
  for (let i = mixed.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [mixed[i], mixed[j]] = [mixed[j]!, mixed[i]!];
  }
  const ordinals: Record<StoryType, number> = {
    home: 0,
    startpage: 0,
    article: 0,
    author: 0,
    category: 0,
    product: 0,
    page: 0,
  };
  let rootPages = 0;
  for (const type of mixed) {
    const n = ordinals[type]++;
    if (type === 'article') slots.push({ type, folder: articleLeaves[n % articleLeaves.length]! });
    else if (type === 'product') slots.push({ type, folder: productLeaves[n % productLeaves.length]! });
    else {
      // Root pages stay few; the rest go into the about and help sections.
      const root = pageSections.length === 0 || (rootPages < PAGE_TITLES.length && n % 4 === 0);
      const folder = root ? null : pageSections[n % pageSections.length]!;
      if (root) rootPages++;
      slots.push({ type, folder });
    }
  }
  for (const key of Object.keys(ordinals) as StoryType[]) ordinals[key] = 0;

  const total = slots.length;
  const step = Math.floor(SPAN_MS / total);
  const plans: StoryPlan[] = [];
  let rootPageTitles = 0;
  for (let index = 0; index < total; index++) {
    const { type, folder } = slots[index]!;
    const ordinal = ordinals[type]++;
    let name: Trio;
    switch (type) {
      case 'home':
        name = HOME_NAME;
        break;
      case 'startpage':
        name = folder!.name;
        break;
      case 'article':
        name = title(rng);
        break;
      case 'author':
        name = personName(rng);
        break;
      case 'category':
        name = ordinal < ARTICLE_TOPICS.length ? ARTICLE_TOPICS[ordinal]! : shortPhrase(rng);
        break;
      case 'product':
        name = productName(rng);
        break;
      case 'page':
        if (folder === null && rootPageTitles < PAGE_TITLES.length) name = PAGE_TITLES[rootPageTitles++]!;
        else if (folder?.kind === 'aboutSection' && folder.slug.en === 'team') name = personName(rng);
        else name = shortPhrase(rng);
        break;
    }
    const isStartpage = type === 'startpage';
    const parentId = isStartpage ? folder!.id : (folder?.id ?? 0);
    const slug = isStartpage ? { en: '', de: '', fr: '' } : slugs.reserve(parentId, slugTrio(name));
    const path: Trio = isStartpage
      ? { en: `${folder!.path.en}/`, de: `${folder!.path.de}/`, fr: `${folder!.path.fr}/` }
      : {
          en: joinPath(folder, 'en', slug.en),
          de: joinPath(folder, 'de', slug.de),
          fr: joinPath(folder, 'fr', slug.fr),
        };
    const createdAt = BASE_TIME + index * step + rng.int(0, Math.max(0, step - 1));
    const firstPublishedAt = createdAt + rng.int(5 * MINUTE, 3 * DAY);
    const publishedAt = rng.chance(0.35) ? firstPublishedAt + rng.int(HOUR, 40 * DAY) : firstPublishedAt;
    const id = ids.next();
    const uuid = rng.uuid();
    const tagCount =
      type === 'article' ? rng.int(0, 3) : type === 'product' ? rng.int(0, 2) : type === 'page' ? rng.int(0, 1) : 0;
    const tags: string[] = [];
    for (let t = 0; t < tagCount; t++) {
      const tag = TAGS[rng.skewedIndex(TAGS.length, 2)]!;
      if (!tags.includes(tag)) tags.push(tag);
    }
    plans.push({
      id,
      uuid,
      groupId: rng.uuid(),
      type,
      ordinal,
      folder,
      parentId,
      name,
      path,
      slug: slug.en,
      isStartpage,
      position: isStartpage ? 0 : type === 'home' ? -100 : rng.int(-60, 40) * 10,
      tags,
      createdAt,
      firstPublishedAt,
      publishedAt,
      updatedAt: publishedAt,
      state: 'published',
      workflowStageId: input.stageIds.published,
      releaseIds: [],
      authorIndex: type === 'article' ? rng.skewedIndex(counts.authors) : -1,
      categoryIndexes: type === 'article' ? uniqueIndexes(rng, counts.categories, rng.int(1, 3)) : [],
      ref: { id, uuid, name: name.en, fullSlug: path.en },
    });
  }
  assignStates(input, plans);
  return plans;
}

function uniqueIndexes(rng: Random, n: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const k = rng.skewedIndex(n, 1.4);
    if (!out.includes(k)) out.push(k);
  }
  return out;
}

/** Chooses never-published stories, stories with a changed draft, and stories staged in releases. */
function assignStates(input: PlanInput, plans: StoryPlan[]): void {
  const { rng, stageIds, releaseIds } = input;
  const content = plans.filter((p) => p.type === 'article' || p.type === 'product' || p.type === 'page');
  const n = plans.length;
  const unpublished = Math.min(Math.max(1, Math.round(n * 0.03)), Math.max(0, content.length - 2));
  const changed = Math.min(Math.max(1, Math.round(n * 0.05)), Math.max(0, content.length - 1 - unpublished));
  const chosen = rng.sample(content, unpublished + changed);
  chosen.forEach((plan, i) => {
    if (i < unpublished) {
      plan.state = 'unpublished';
      plan.firstPublishedAt = null;
      plan.publishedAt = null;
      plan.updatedAt = plan.createdAt + rng.int(10 * MINUTE, 5 * DAY);
      plan.workflowStageId = rng.pick([stageIds.drafting, stageIds.review, stageIds.approved]);
    } else {
      plan.state = 'changed';
      plan.updatedAt = plan.publishedAt! + rng.int(HOUR, 10 * DAY);
      plan.workflowStageId = rng.pick([stageIds.drafting, stageIds.review]);
    }
  });
  const stable = content.filter((p) => p.state === 'published');
  const staged = rng.sample(stable, Math.max(2, Math.round(n * 0.01)));
  staged.forEach((plan, i) => {
    plan.releaseIds = i % 3 === 2 ? releaseIds.slice() : [releaseIds[i % releaseIds.length]!];
    plan.workflowStageId = stageIds.approved;
  });
}

export function storyTimes(plan: StoryPlan): {
  created_at: string;
  published_at: string | null;
  first_published_at: string | null;
} {
  return {
    created_at: isoTime(plan.createdAt),
    published_at: plan.publishedAt === null ? null : isoTime(plan.publishedAt),
    first_published_at: plan.firstPublishedAt === null ? null : isoTime(plan.firstPublishedAt),
  };
}
