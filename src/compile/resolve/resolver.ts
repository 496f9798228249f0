/**
 * Compile-time resolution of relations and links: the API's semantics
 * (version 1, targets nested in the referencing fields) without its limits.
 *
 * - Relations: the uuid (or numeric id) in a relation field, or each one in an
 *   array, is replaced by the target story. A reference whose target is not in
 *   this view of the snapshot (missing, unpublished) is reported, and left out
 *   (an array loses it, a single value becomes null) unless `keepUnresolved`.
 * - Links: a multilink to a story or folder gains `story` (the target, its
 *   `url` shape or its routing properties, by mode) and a `cached_url` set to
 *   the target's current full slug; a rich-text story link mark gains
 *   `attrs.story` the same way and a current `attrs.href` (its `anchor` and
 *   other attributes are kept).
 * - Depth: targets at remaining depth 0 are the snapshot's objects; above 0
 *   they are resolved in turn. Every level strictly lowers the remaining depth,
 *   so reference cycles end.
 * - Sharing: one resolver gives the same object (===) for a target at a given
 *   remaining depth wherever it is embedded, and the same object at two depths
 *   when resolving deeper changes nothing. Link shapes are one object per
 *   target. Only the path from the content root to a changed node is copied.
 *
 * Nothing given is ever written to. Walks and the evaluation of nested targets
 * are iterative.
 */
import type { Story } from '../../api/index.js';
import {
  applyPlan,
  LinkShapes,
  relationMatcher,
  scanStory,
  setOwn,
  shallowCopy,
  type EditValues,
  type JsonObject,
  type LinkTarget,
  type Scan,
  type ScanMemo,
  type ScanOptions,
} from '../../resolve/index.js';
import type { ResolveConfig, ResolveResult, Resolver, StoryLookup } from './types.js';

interface Resolved {
  readonly value: Story;
  readonly references: ReadonlySet<string>;
}

/** A story at a remaining depth, for the evaluation stack. */
interface Task {
  readonly story: Story;
  readonly depth: number;
  expanded: boolean;
}

export function normalizeDepth(depth: number | undefined): number {
  const d = depth ?? 1;
  if (!Number.isSafeInteger(d) || d < 0)
    throw new RangeError(`depth must be a non-negative integer, got ${String(depth)}`);
  return d;
}

/** Matchers by relations list: a compile creates a resolver per story and language, all with one list. */
const matchers = new WeakMap<readonly string[], ReturnType<typeof relationMatcher>>();

function matcherOf(relations: readonly string[] | undefined): ReturnType<typeof relationMatcher> {
  if (!relations) return undefined;
  if (!matchers.has(relations)) matchers.set(relations, relationMatcher(relations));
  return matchers.get(relations);
}

export function scanOptions(config: ResolveConfig, lookup: StoryLookup, links: boolean, memo?: ScanMemo): ScanOptions {
  return {
    matcher: matcherOf(config.relations),
    detect: config.detectRelations === true,
    links,
    lookup,
    memo,
  };
}

/**
 * `scanMemo`: shared by the resolvers of one story's language variants (same
 * config), so that each scans only what its language changes.
 */
export function createResolver(config: ResolveConfig, lookup: StoryLookup, scanMemo?: ScanMemo): Resolver {
  const depth = normalizeDepth(config.depth);
  const linksMode = config.links;
  if (linksMode !== undefined && linksMode !== 'url' && linksMode !== 'story' && linksMode !== 'link') {
    throw new RangeError(`links must be 'url', 'story' or 'link', got ${String(linksMode)}`);
  }
  const options = scanOptions(config, lookup, linksMode !== undefined, scanMemo);

  const scans = new WeakMap<Story, Scan>();
  const scanOf = (story: Story): Scan => {
    let scan = scans.get(story);
    if (!scan) scans.set(story, (scan = scanStory(story, options)));
    return scan;
  };

  /** Resolved stories by uuid, then remaining depth (index 0 unused). */
  const memo = new Map<string, Resolved[]>();
  /** `url` and `link` shapes, and folders in `story` mode: one object per target. */
  const shapes = new Map<string, JsonObject>();
  // The compiler writes every rich-text link's href from the target: a site's links are its paths.
  const shaper = new LinkShapes({ ...lookup, href: 'always' });

  const lookupMemo = (story: Story, d: number): Resolved | undefined => memo.get(story.uuid)?.[d];

  /** The object embedded for a story at a remaining depth. */
  const embedded = (story: Story, d: number): Story => (d <= 0 ? story : lookupMemo(story, d)!.value);

  /** Stories whose value at `d - 1` is embedded in a story resolved at `d`. */
  const nested = (scan: Scan): Story[] => {
    if (linksMode !== 'story') return scan.relationTargets as Story[];
    const stories = new Map(scan.relationTargets.map((s) => [s.uuid, s]));
    for (const t of scan.linkTargets) if (t.kind === 'story' && !stories.has(t.uuid)) stories.set(t.uuid, t.story);
    return [...stories.values()];
  };

  const linkValue = (target: LinkTarget, d: number): JsonObject => {
    if (linksMode === 'story' && target.kind === 'story') return embedded(target.story, d - 1);
    let shape = shapes.get(target.uuid);
    if (!shape) {
      shape =
        linksMode === 'story'
          ? shaper.folderStory(target as LinkTarget & { kind: 'folder' })
          : linksMode === 'url'
            ? shaper.url(target)
            : shaper.routing(target);
      shapes.set(target.uuid, shape);
    }
    return shape;
  };

  /** The content of a story resolved at remaining depth `d` (the input itself when nothing changes). */
  const buildContent = (scan: Scan, content: unknown, d: number): unknown => {
    const values: EditValues = {
      unresolved: config.keepUnresolved === true ? 'keep' : 'leave-out',
      relation: (target) => embedded(target, d - 1),
      link: (target) => linkValue(target, d),
      cachedUrl: (target) => shaper.fullSlug(target),
      href: (target, current) => shaper.href(target, current),
    };
    return applyPlan(scan, content, values);
  };

  /**
   * At depth 1: relation targets, embedded as they are (see ResolveResult.embedded). A link
   * target is never one: even in `story` mode the link shows its path (`cached_url`, `href`).
   */
  const embeddedWhole = (scan: Scan): string[] => {
    const whole = new Set(scan.relationTargets.map((s) => s.uuid));
    for (const t of scan.linkTargets) whole.delete(t.uuid);
    return [...whole].sort();
  };

  const withContent = (story: Story, content: unknown): Story => {
    const copy = shallowCopy(story as JsonObject);
    setOwn(copy, 'content', content);
    return copy as Story;
  };

  const referencesOf = (scan: Scan, targets: readonly Story[], d: number): ReadonlySet<string> => {
    if (d <= 1 || targets.length === 0) return scan.direct;
    const all = new Set(scan.direct);
    for (const t of targets) for (const uuid of lookupMemo(t, d - 1)!.references) all.add(uuid);
    return all;
  };

  const compute = (story: Story, d: number): Resolved => {
    const scan = scanOf(story);
    const targets = nested(scan);
    let value: Story;
    if (d >= 2 && targets.every((t) => embedded(t, d - 1) === embedded(t, d - 2))) {
      // Resolving one level deeper changes nothing: the same object.
      value = embedded(story, d - 1);
    } else {
      const content = buildContent(scan, story.content, d);
      value = content === story.content ? story : withContent(story, content);
    }
    return { value, references: referencesOf(scan, targets, d) };
  };

  /** Resolves every story the given targets need at remaining depth `d`, dependencies first. */
  const ensure = (targets: readonly Story[], d: number): void => {
    if (d <= 0) return;
    const stack: Task[] = targets.map((story) => ({ story, depth: d, expanded: false }));
    while (stack.length > 0) {
      const task = stack[stack.length - 1]!;
      if (lookupMemo(task.story, task.depth)) {
        stack.pop();
        continue;
      }
      if (task.expanded) {
        stack.pop();
        let byDepth = memo.get(task.story.uuid);
        if (!byDepth) memo.set(task.story.uuid, (byDepth = []));
        byDepth[task.depth] = compute(task.story, task.depth);
        continue;
      }
      task.expanded = true;
      const below = task.depth - 1;
      if (below >= 1) {
        stack.push({ story: task.story, depth: below, expanded: false });
        for (const t of nested(scanOf(task.story))) {
          if (!lookupMemo(t, below)) stack.push({ story: t, depth: below, expanded: false });
        }
      }
    }
  };

  return {
    resolve(story: Story): ResolveResult {
      if (depth === 0)
        return { story: shallowCopy(story as JsonObject) as Story, references: [], missing: [], embedded: [] };
      const scan = scanOf(story);
      const targets = nested(scan);
      ensure(targets, depth - 1);
      const content = buildContent(scan, story.content, depth);
      return {
        story: withContent(story, content),
        references: [...referencesOf(scan, targets, depth)].sort(),
        missing: scan.missing.map((m) => ({ ...m })),
        embedded: depth === 1 ? embeddedWhole(scan) : [],
      };
    },
  };
}
