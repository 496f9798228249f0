/**
 * `filter_query[...]` parameters to a filter tree.
 *
 *   filter_query[<attribute>][<operation>]=<value>
 *   filter_query[__or][][<attribute>][<operation>]=<value>
 *   filter_query[__or][<n>][<attribute>][<operation>]=<value>
 *
 * Top-level conditions are ANDed. All `__or` entries of one level form a single
 * OR: every `[__or][]` entry is an alternative of its own (this is how the
 * common JavaScript client serializes `__or: [{a: ...}, {b: ...}]`), while
 * entries sharing an index `[__or][n]` form one alternative whose conditions
 * are ANDed. Alternatives may nest `__or` again. Repeating the same
 * attribute and operation ANDs both conditions.
 *
 * Every value is checked here, so a parsed tree never fails later.
 */
import { QueryError, shown } from './errors.js';
import { parseInstant } from './values.js';

export const FILTER_OPERATIONS = [
  'is',
  'in',
  'not_in',
  'like',
  'not_like',
  'in_array',
  'any_in_array',
  'all_in_array',
  'gt_date',
  'lt_date',
  'gt_int',
  'lt_int',
  'gt_float',
  'lt_float',
] as const;
export type FilterOperation = (typeof FILTER_OPERATIONS)[number];

export const IS_VALUES = [
  'empty',
  'not_empty',
  'empty_array',
  'not_empty_array',
  'true',
  'false',
  'null',
  'not_null',
] as const;
export type IsValue = (typeof IS_VALUES)[number];

/** One test on one content attribute. */
export interface FilterCondition {
  readonly kind: 'condition';
  /** The parameter name as received, for messages. */
  readonly key: string;
  /** Dotted attribute as written (`seo.title`) and its segments. */
  readonly attribute: string;
  readonly path: readonly string[];
  readonly operation: FilterOperation;
  /** The raw value; lists are comma-separated. */
  readonly value: string;
}
/** Every child must match (an empty list matches everything). */
export interface FilterAll {
  readonly kind: 'all';
  readonly nodes: readonly FilterNode[];
}
/** At least one child must match (an empty list matches nothing). */
export interface FilterAny {
  readonly kind: 'any';
  readonly nodes: readonly FilterNode[];
}
export type FilterNode = FilterCondition | FilterAll | FilterAny;

const OPERATION_SET: ReadonlySet<string> = new Set(FILTER_OPERATIONS);
const IS_VALUE_SET: ReadonlySet<string> = new Set(IS_VALUES);
const PREFIX = 'filter_query';
const OR = '__or';
const INT_VALUE = /^\s*[+-]?\d{1,300}\s*$/;
const FLOAT_VALUE = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)\s*$/;
const USAGE = 'expected filter_query[attribute][operation]=value';
/** How deep `__or` may nest: beyond any query people write, well within what recursion takes. */
const MAX_OR_DEPTH = 32;

/** The bracketed segments of a `filter_query[...]` key. */
export function splitFilterKey(key: string): string[] {
  if (!key.startsWith(PREFIX)) throw new QueryError(`${shown(key)}: not a filter_query parameter`);
  const segments: string[] = [];
  let i = PREFIX.length;
  while (i < key.length) {
    if (key.charCodeAt(i) !== 91 /* [ */) {
      throw new QueryError(`${shown(key)}: malformed brackets, unexpected "${shown(key.slice(i, i + 10))}"; ${USAGE}`);
    }
    const close = key.indexOf(']', i + 1);
    if (close < 0) throw new QueryError(`${shown(key)}: malformed brackets, "[" is never closed; ${USAGE}`);
    const segment = key.slice(i + 1, close);
    if (segment.includes('['))
      throw new QueryError(`${shown(key)}: malformed brackets, "[" inside a bracket; ${USAGE}`);
    segments.push(segment);
    i = close + 1;
  }
  return segments;
}

interface Group {
  readonly nodes: FilterNode[];
  or: Alternatives | null;
}
interface Alternatives {
  readonly groups: Group[];
  readonly byIndex: Map<number, Group>;
}

const newGroup = (): Group => ({ nodes: [], or: null });

/**
 * Parses decoded `(key, value)` URL pairs whose key is `filter_query` or
 * starts with `filter_query[`. Returns null when there are none.
 */
export function parseFilterQuery(entries: Iterable<[string, string]>): FilterNode | null {
  const root = newGroup();
  let seen = false;
  for (const [key, value] of entries) {
    seen = true;
    const segments = splitFilterKey(key);
    if (segments.filter((s) => s === OR).length > MAX_OR_DEPTH)
      throw new QueryError(`${shown(key)}: __or nested more than ${MAX_OR_DEPTH} levels deep`);
    addEntry(root, segments, 0, key, String(value));
  }
  return seen ? build(root) : null;
}

function addEntry(group: Group, segments: readonly string[], at: number, key: string, value: string): void {
  const head = segments[at];
  if (head === undefined) throw new QueryError(`${shown(key)}: missing attribute and operation; ${USAGE}`);
  if (head === OR) {
    const index = segments[at + 1];
    if (index === undefined)
      throw new QueryError(`${shown(key)}: __or needs [] or a numeric index, then [attribute][operation]`);
    group.or ??= { groups: [], byIndex: new Map() };
    let target: Group;
    if (index === '') {
      target = newGroup();
      group.or.groups.push(target);
    } else if (/^\d{1,9}$/.test(index)) {
      const n = Number(index);
      let found = group.or.byIndex.get(n);
      if (!found) {
        found = newGroup();
        group.or.byIndex.set(n, found);
        group.or.groups.push(found);
      }
      target = found;
    } else {
      throw new QueryError(`${shown(key)}: __or needs [] or a numeric index, not [${shown(index)}]`);
    }
    addEntry(target, segments, at + 2, key, value);
    return;
  }
  group.nodes.push(condition(segments, at, key, value));
}

function condition(segments: readonly string[], at: number, key: string, value: string): FilterCondition {
  const attribute = segments[at]!;
  const operation = segments[at + 1];
  if (attribute === '') throw new QueryError(`${shown(key)}: empty attribute; ${USAGE}`);
  const path = attribute.split('.');
  if (path.some((p) => p === '')) throw new QueryError(`${shown(key)}: empty segment in attribute ${shown(attribute)}`);
  if (operation === undefined) throw new QueryError(`${shown(key)}: missing operation; ${USAGE}`);
  if (segments.length > at + 2) throw new QueryError(`${shown(key)}: too many brackets; ${USAGE}`);
  if (!OPERATION_SET.has(operation)) {
    throw new QueryError(
      `${shown(key)}: unknown operation ${shown(operation)}; use one of ${FILTER_OPERATIONS.join(', ')}`,
    );
  }
  const op = operation as FilterOperation;
  checkValue(op, value, key);
  return { kind: 'condition', key, attribute, path, operation: op, value };
}

function checkValue(op: FilterOperation, value: string, key: string): void {
  switch (op) {
    case 'is':
      if (!IS_VALUE_SET.has(value))
        throw new QueryError(`${shown(key)}: unknown value ${shown(value)}; use one of ${IS_VALUES.join(', ')}`);
      return;
    case 'gt_int':
    case 'lt_int':
      if (!INT_VALUE.test(value))
        throw new QueryError(`${shown(key)}: ${shown(value)} is not a whole number (no thousand separators)`);
      return;
    case 'gt_float':
    case 'lt_float':
      if (!FLOAT_VALUE.test(value) || !Number.isFinite(Number(value))) {
        throw new QueryError(`${shown(key)}: ${shown(value)} is not a number (use a decimal point)`);
      }
      return;
    case 'gt_date':
    case 'lt_date':
      if (Number.isNaN(parseInstant(value.trim())))
        throw new QueryError(`${shown(key)}: ${shown(value)} is not a date like 2024-01-31 13:45`);
      return;
    default:
      return;
  }
}

function build(group: Group): FilterNode {
  const nodes = [...group.nodes];
  if (group.or) nodes.push(simplify({ kind: 'any', nodes: group.or.groups.map(build) }));
  return simplify({ kind: 'all', nodes });
}

function simplify(node: FilterAll | FilterAny): FilterNode {
  return node.nodes.length === 1 ? node.nodes[0]! : node;
}
