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

/** Which object each shallow copy was made from (the serializer writes a copy as its changes). */
const originals = new WeakMap<object, object>();
/** The keys set on each shallow copy since it was made (setOwn), in order. */
const changes = new WeakMap<object, Array<string | number>>();

/** The object `copy` was made from by shallowCopy, if it was. */
export function originalOf(copy: object): object | undefined {
  return originals.get(copy);
}

/** The keys setOwn set on a copy shallowCopy made, in the order first set (undefined for any other object). */
export function changedKeys(copy: object): ReadonlyArray<string | number> | undefined {
  return changes.get(copy);
}

/** A shallow copy that keeps a `__proto__` own key as data. */
export function shallowCopy<T extends JsonContainer>(node: T): T {
  const copy = (Array.isArray(node) ? node.slice() : Object.hasOwn(node, '__proto__') ? { ...node } : Object.assign({}, node)) as T;
  originals.set(copy, node);
  changes.set(copy, []);
  return copy;
}

/** Sets an own data property (assigning `__proto__` would change the prototype instead). */
export function setOwn(target: JsonContainer, key: string | number, value: unknown): void {
  const set = changes.get(target);
  if (set && !set.includes(key)) set.push(key);
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (target as Record<string | number, unknown>)[key] = value;
  }
}
