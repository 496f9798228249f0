/**
 * Small helpers over plain JSON trees.
 */
export type JsonObject = Record<string, unknown>;
export type JsonContainer = JsonObject | unknown[];

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isContainer(value: unknown): value is JsonContainer {
  return typeof value === 'object' && value !== null;
}

/**
 * What a shallow copy records: the object it was made from, and the keys
 * setOwn set on it since, in order. Kept on the copy under a symbol that is
 * not enumerable, so no walk, spread or serialization sees it; a WeakMap per
 * copy would cost the collector on every young-generation pass.
 */
const COPY: unique symbol = Symbol('shallow copy');
interface CopyNote {
  readonly original: object;
  readonly changes: Array<string | number>;
}
type Noted = { [COPY]?: CopyNote };

/** The object `copy` was made from by shallowCopy, if it was. */
export function originalOf(copy: object): object | undefined {
  return (copy as Noted)[COPY]?.original;
}

/** The keys setOwn set on a copy shallowCopy made, in the order first set (undefined for any other object). */
export function changedKeys(copy: object): ReadonlyArray<string | number> | undefined {
  return (copy as Noted)[COPY]?.changes;
}

/** A shallow copy that keeps a `__proto__` own key as data. */
export function shallowCopy<T extends JsonContainer>(node: T): T {
  const copy = (
    Array.isArray(node) ? node.slice() : Object.hasOwn(node, '__proto__') ? { ...node } : Object.assign({}, node)
  ) as T;
  Object.defineProperty(copy, COPY, { value: { original: node, changes: [] } satisfies CopyNote });
  return copy;
}

/** Sets an own data property (assigning `__proto__` would change the prototype instead). */
export function setOwn(target: JsonContainer, key: string | number, value: unknown): void {
  const set = (target as Noted)[COPY]?.changes;
  if (set && !set.includes(key)) set.push(key);
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (target as Record<string | number, unknown>)[key] = value;
  }
}
