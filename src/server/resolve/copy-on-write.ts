/**
 * Copy-on-write over a JSON tree: a change to a node copies that node and every
 * ancestor up to the root, once each, and nothing else. Untouched subtrees stay
 * shared with the input, which is never written to.
 */
import type { Frame, JsonContainer } from './scan.js';

export class CopyOnWrite {
  readonly #copies = new Map<object, JsonContainer>();

  /** The copy of the frame's node, linked into copies of all its ancestors. */
  writable(frame: Frame): JsonContainer {
    const existing = this.#copies.get(frame.node);
    if (existing) return existing;
    const chain: Frame[] = [];
    for (let f: Frame | undefined = frame; f && !this.#copies.has(f.node); f = f.parent) chain.push(f);
    for (let i = chain.length - 1; i >= 0; i--) {
      const f = chain[i]!;
      const copy = shallowCopy(f.node);
      this.#copies.set(f.node, copy);
      if (f.parent) setOwn(this.#copies.get(f.parent.node)!, f.key, copy);
    }
    return this.#copies.get(frame.node)!;
  }

  /** The root after all changes: its copy, or the root itself when nothing changed. */
  result<T extends object>(root: T): T {
    return (this.#copies.get(root) as T | undefined) ?? root;
  }
}

function shallowCopy(node: JsonContainer): JsonContainer {
  if (Array.isArray(node)) return node.slice();
  // Object.assign is the faster copy but assigns `__proto__` through the
  // prototype setter; spread defines it as an own property.
  return Object.hasOwn(node, '__proto__') ? { ...node } : Object.assign({}, node);
}

/**
 * Sets a key as an own data property. Plain assignment to `__proto__` would
 * change the prototype instead when the key is not already an own property.
 */
export function setOwn(target: JsonContainer, key: string | number, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (target as Record<string | number, unknown>)[key] = value;
  }
}
