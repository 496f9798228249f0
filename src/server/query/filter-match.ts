/**
 * A filter tree compiled into one predicate over story content.
 *
 * Choices where the contract is silent (and why):
 * - Values of in / not_in / in_array / any_in_array / all_in_array are split on
 *   "," and not trimmed, as the service does; `a, b` looks for " b".
 * - Scalars compare by their JSON text: content 5 matches `in=5`, true matches
 *   `in=true`. Arrays and objects never match in / like (use in_array).
 * - `in` with an empty item (`in=` or `in=a,`) also matches "", null and a
 *   missing attribute. not_in and not_like are the exact complements of in
 *   and like, so they match stories that lack the attribute.
 * - like / not_like: `*` is the only wildcard; matching is case-sensitive (SQL
 *   LIKE, which the service translates the pattern to, is case-sensitive).
 *   Without `*` the value must be equal.
 * - is: empty = missing, null or ""; not_empty = its complement.
 *   empty_array = missing, null, "" (how an empty multi-asset arrives) or [];
 *   not_empty_array = an array with at least one item.
 *   true / false = the boolean or the string "true" / "false" (missing is
 *   neither). null = null or missing; not_null = its complement.
 * - in_array / all_in_array: array items compare by their JSON text; a plain
 *   string value counts as a one-item array (a single-option field).
 * - gt_int / lt_int / gt_float / lt_float: numbers and numeric strings compare
 *   as numbers, without truncation; anything else does not match.
 * - gt_date / lt_date: strict, compared as UTC instants; values that are not
 *   dates do not match.
 */
import type { FilterCondition, FilterNode, IsValue } from './filter-parse.js';
import { QueryError } from './errors.js';
import { compileWildcard, parseInstant, pathReader, scalarText, toNumber } from './values.js';

export type ContentPredicate = (content: Record<string, unknown>) => boolean;

const compiled = new WeakMap<FilterNode, ContentPredicate>();

/** Compiles `node` once (cached per node object) into a predicate. */
export function compileFilter(node: FilterNode): ContentPredicate {
  let predicate = compiled.get(node);
  if (!predicate) {
    predicate = compileNode(node);
    compiled.set(node, predicate);
  }
  return predicate;
}

export function matchesFilter(node: FilterNode, content: Record<string, unknown>): boolean {
  return compileFilter(node)(content);
}

function compileNode(node: FilterNode): ContentPredicate {
  switch (node.kind) {
    case 'condition':
      return compileCondition(node);
    case 'all': {
      const parts = node.nodes.map(compileNode);
      if (parts.length === 1) return parts[0]!;
      return (content) => {
        for (let i = 0; i < parts.length; i++) if (!parts[i]!(content)) return false;
        return true;
      };
    }
    case 'any': {
      const parts = node.nodes.map(compileNode);
      if (parts.length === 1) return parts[0]!;
      return (content) => {
        for (let i = 0; i < parts.length; i++) if (parts[i]!(content)) return true;
        return false;
      };
    }
    default:
      throw new QueryError('filter_query: malformed filter');
  }
}

type ValueTest = (value: unknown) => boolean;

function compileCondition(c: FilterCondition): ContentPredicate {
  const test = compileTest(c);
  const read = pathReader(c.path);
  return (content) => test(read(content));
}

function compileTest(c: FilterCondition): ValueTest {
  const { operation, value } = c;
  switch (operation) {
    case 'is':
      return isTest(value as IsValue, c);
    case 'in':
      return inTest(value);
    case 'not_in': {
      const test = inTest(value);
      return (v) => !test(v);
    }
    case 'like':
      return likeTest(value);
    case 'not_like': {
      const test = likeTest(value);
      return (v) => !test(v);
    }
    case 'in_array':
    case 'any_in_array':
      return arrayTest(value, false);
    case 'all_in_array':
      return arrayTest(value, true);
    case 'gt_int':
    case 'gt_float':
      return numberTest(c, 1);
    case 'lt_int':
    case 'lt_float':
      return numberTest(c, -1);
    case 'gt_date':
      return dateTest(c, 1);
    case 'lt_date':
      return dateTest(c, -1);
    default:
      throw new QueryError(`${c.key}: unknown operation ${String(operation)}`);
  }
}

const isEmpty: ValueTest = (v) => v === undefined || v === null || v === '';

function isTest(value: IsValue, c: FilterCondition): ValueTest {
  switch (value) {
    case 'empty':
      return isEmpty;
    case 'not_empty':
      return (v) => !isEmpty(v);
    case 'empty_array':
      return (v) => isEmpty(v) || (Array.isArray(v) && v.length === 0);
    case 'not_empty_array':
      return (v) => Array.isArray(v) && v.length > 0;
    case 'true':
      return (v) => v === true || v === 'true';
    case 'false':
      return (v) => v === false || v === 'false';
    case 'null':
      return (v) => v === undefined || v === null;
    case 'not_null':
      return (v) => v !== undefined && v !== null;
    default:
      throw new QueryError(`${c.key}: unknown value ${String(value)}`);
  }
}

function inTest(value: string): ValueTest {
  const items = value.split(',');
  const set = new Set(items);
  const matchesBlank = set.has('');
  return (v) => {
    if (v === undefined || v === null) return matchesBlank;
    const text = scalarText(v);
    return text !== null && set.has(text);
  };
}

function likeTest(pattern: string): ValueTest {
  const match = compileWildcard(pattern);
  return (v) => {
    const text = scalarText(v);
    return text !== null && match(text);
  };
}

function arrayTest(value: string, all: boolean): ValueTest {
  const wanted = [...new Set(value.split(','))];
  const set = new Set(wanted);
  if (all) {
    return (v) => {
      if (typeof v === 'string') return wanted.length === 1 && wanted[0] === v;
      if (!Array.isArray(v)) return false;
      return wanted.length <= SMALL_LIST ? containsAllSmall(v, wanted) : containsAllLarge(v, set);
    };
  }
  return (v) => {
    if (typeof v === 'string') return set.has(v);
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) {
      const text = scalarText(v[i]);
      if (text !== null && set.has(text)) return true;
    }
    return false;
  };
}

const SMALL_LIST = 8;

function containsAllSmall(items: readonly unknown[], wanted: readonly string[]): boolean {
  for (let w = 0; w < wanted.length; w++) {
    let found = false;
    for (let i = 0; i < items.length && !found; i++) found = scalarText(items[i]) === wanted[w];
    if (!found) return false;
  }
  return true;
}

function containsAllLarge(items: readonly unknown[], wanted: ReadonlySet<string>): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const text = scalarText(items[i]);
    if (text !== null && wanted.has(text)) seen.add(text);
  }
  return seen.size === wanted.size;
}

function numberTest(c: FilterCondition, sign: 1 | -1): ValueTest {
  const limit = Number(c.value);
  if (!Number.isFinite(limit)) throw new QueryError(`${c.key}: ${c.value} is not a number`);
  return sign === 1 ? (v) => toNumber(v) > limit : (v) => toNumber(v) < limit;
}

function dateTest(c: FilterCondition, sign: 1 | -1): ValueTest {
  const limit = parseInstant(c.value.trim());
  if (Number.isNaN(limit)) throw new QueryError(`${c.key}: ${c.value} is not a date like 2024-01-31 13:45`);
  const instant = (v: unknown): number => (typeof v === 'string' ? parseInstant(v) : Number.NaN);
  return sign === 1 ? (v) => instant(v) > limit : (v) => instant(v) < limit;
}
