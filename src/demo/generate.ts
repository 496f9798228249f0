/**
 * Assembles the demo space: structure, content, language overlays, views,
 * releases and workflow stages, all drawn from one seeded generator.
 */
import type { Story } from '../api/index.js';
import {
  DEFAULT_LANG,
  type LanguageOverlay,
  type Release,
  type SpaceData,
  type StoryRecord,
  type StoryVersion,
  type WorkflowStage,
} from '../snapshot/index.js';
import { changedContent, contentFor, type ContentContext, type GeneratedContent } from './content.js';
import { buildDatasources } from './datasources.js';
import { assetPool, isoTime, type Json, type StoryRef } from './fields.js';
import { Random } from './random.js';
import {
  buildFolders,
  countsFor,
  folderRecord,
  planStories,
  storyTimes,
  type Ids,
  type StoryPlan,
} from './structure.js';
import { LANGS, PRODUCT_CATEGORIES } from './vocabulary.js';

export const MIN_STORIES = 10;
export const MAX_STORIES = 100_000;
export const DEFAULT_SEED = 1;

export interface DemoOptions {
  /** Number of stories, 10 to 100,000 (folders come on top). */
  stories: number;
  /** Any string or number; the same seed gives the same space. Default 1. */
  seed?: string | number;
}

const SPACE_ID = 287451;
/** 2025-10-01T00:00:00Z: later than every generated timestamp. */
const SPACE_VERSION = 1759276800;

function counter(start: number): Ids {
  let next = start;
  return { next: () => next++ };
}

export function validateDemoOptions(options: DemoOptions): { stories: number; seed: string | number } {
  if (options === null || typeof options !== 'object')
    throw new Error('demo options must be an object like { stories: 1000 }');
  const { stories, seed = DEFAULT_SEED } = options;
  if (typeof stories !== 'number' || !Number.isInteger(stories) || stories < MIN_STORIES || stories > MAX_STORIES) {
    throw new Error(
      `demo: the number of stories must be an integer from ${MIN_STORIES} to ${MAX_STORIES.toLocaleString('en-US')} (got ${JSON.stringify(stories) ?? String(stories)})`,
    );
  }
  if (!(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed)))) {
    throw new Error(`demo: the seed must be a string or a finite number (got ${String(seed)})`);
  }
  return { stories, seed };
}

/** Generates the whole demo space in memory. Pure: the same options give deep-equal data. */
export function generateDemoSpace(options: DemoOptions): SpaceData {
  const { stories, seed } = validateDemoOptions(options);
  const rng = new Random(seed);
  const counts = countsFor(stories);
  const storyIds = counter(610_000_001);
  const stageIds = { drafting: 50_001, review: 50_002, approved: 50_003, published: 50_004 };
  const workflowStages: WorkflowStage[] = [
    { id: stageIds.drafting, name: 'Drafting', position: 1, color: '#9e9e9e' },
    { id: stageIds.review, name: 'Review', position: 2, color: '#fbc02d' },
    { id: stageIds.approved, name: 'Approved', position: 3, color: '#1e88e5' },
    { id: stageIds.published, name: 'Published', position: 4, color: '#43a047' },
  ];
  const releases: Release[] = [
    { id: 40_001, name: 'Winter campaign', uuid: rng.uuid(), release_at: '2025-11-15T08:00:00.000Z', released: false },
    { id: 40_002, name: 'Spring relaunch', uuid: rng.uuid(), release_at: null, released: false },
  ];

  const folders = buildFolders(rng, counts.folders, storyIds);
  const plans = planStories({ rng, counts, folders, ids: storyIds, stageIds, releaseIds: releases.map((r) => r.id) });
  const assets = assetPool(rng, SPACE_ID, 48, 20_000_001);
  const ctx = contentContext(rng, plans, counts, assets);

  const records: StoryRecord[] = plans.map((plan) => storyRecord(rng, plan, contentFor(ctx, plan), releases));

  return {
    space: {
      id: SPACE_ID,
      name: 'Content Sync Demo',
      domain: 'https://demo.example.com/',
      version: SPACE_VERSION,
      language_codes: [...LANGS],
    },
    stories: records,
    folders: folders.map(folderRecord),
    datasources: buildDatasources(counter(71_001), counter(9_001), counter(5_000_001)),
    releases,
    workflowStages,
  };
}

function contentContext(
  rng: Random,
  plans: StoryPlan[],
  counts: ReturnType<typeof countsFor>,
  assets: ReturnType<typeof assetPool>,
): ContentContext {
  const published: StoryRef[] = [];
  const articles: StoryRef[] = [];
  const products: StoryRef[] = [];
  const authors: StoryRef[] = [];
  const categories: StoryRef[] = [];
  const articlesByAuthor: string[][] = Array.from({ length: counts.authors }, () => []);
  for (const plan of plans) {
    if (plan.type === 'author') authors.push(plan.ref);
    if (plan.type === 'category') categories.push(plan.ref);
    if (plan.state === 'unpublished') continue;
    published.push(plan.ref);
    if (plan.type === 'product') products.push(plan.ref);
    if (plan.type === 'article') {
      articles.push(plan.ref);
      const list = articlesByAuthor[plan.authorIndex]!;
      if (list.length < 3) list.push(plan.uuid);
    }
  }
  return {
    rng,
    images: assets.filter((a) => a.kind === 'image'),
    documents: assets.filter((a) => a.kind === 'document'),
    published,
    articles,
    products,
    authors,
    categories,
    articlesByAuthor,
    productIndex: new Map(products.map((p, i) => [p.uuid, i])),
    countryCodes: ['DE', 'FR', 'AT', 'CH', 'GB', 'US', 'NL', 'SE', 'IT', 'ES', 'JP', 'CA'],
    productCategoryNames: PRODUCT_CATEGORIES.map((c) => c.name),
    legacyBelow: {
      article: Math.floor(counts.articles * 0.25),
      product: Math.floor(counts.products * 0.2),
      page: Math.floor(counts.pages * 0.3),
    },
  };
}

function storyObject(plan: StoryPlan, content: Json, releaseId: number | null, unpublished: boolean): Story {
  const times = storyTimes(plan);
  return {
    name: plan.name.en,
    created_at: times.created_at,
    published_at: unpublished ? null : times.published_at,
    id: plan.id,
    uuid: plan.uuid,
    content: content as Story['content'],
    slug: plan.slug,
    full_slug: plan.path.en,
    sort_by_date: null,
    position: plan.position,
    tag_list: plan.tags.slice(),
    is_startpage: plan.isStartpage,
    parent_id: plan.parentId,
    meta_data: null,
    group_id: plan.groupId,
    first_published_at: unpublished ? null : times.first_published_at,
    release_id: releaseId,
    lang: DEFAULT_LANG,
    path: null,
    alternates: [],
    default_full_slug: plan.path.en,
    translated_slugs: LANGS.map((lang) => ({ path: plan.path[lang], name: plan.name[lang], lang })),
  };
}

function overlays(plan: StoryPlan, translations: GeneratedContent['translations']): Record<string, LanguageOverlay> {
  const out: Record<string, LanguageOverlay> = {};
  for (const lang of LANGS) out[lang] = { full_slug: `${lang}/${plan.path[lang]}`, content: translations[lang] };
  return out;
}

function storyRecord(rng: Random, plan: StoryPlan, generated: GeneratedContent, releases: Release[]): StoryRecord {
  const version = (content: Json, releaseId: number | null = null): StoryVersion => ({
    story: storyObject(plan, content, releaseId, plan.state === 'unpublished'),
    languages: overlays(
      plan,
      releaseId === null && content === generated.content
        ? generated.translations
        : structuredClone(generated.translations),
    ),
  });
  const record: StoryRecord = {
    id: plan.id,
    uuid: plan.uuid,
    published: null,
    workflow_stage_id: plan.workflowStageId,
    updated_at: isoTime(plan.updatedAt),
  };
  if (plan.state === 'unpublished') {
    record.draft = version(generated.content);
  } else {
    record.published = version(generated.content);
    if (plan.state === 'changed') record.draft = version(changedContent(rng, generated.content, 'Update'));
  }
  if (plan.releaseIds.length) {
    record.releases = {};
    for (const id of plan.releaseIds) {
      const release = releases.find((r) => r.id === id)!;
      record.releases[String(id)] = version(changedContent(rng, generated.content, release.name), id);
    }
  }
  return record;
}
