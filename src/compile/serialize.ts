/**
 * JavaScript source for a resolved object graph. Objects that occur more than
 * once (a story related from several places) become one constant, so the
 * module holds each target once and every occurrence is the same object.
 */

function isObject(v: unknown): v is object {
  return v !== null && typeof v === 'object';
}

/** Serializes `value` as `export default <expr>;` preceded by shared constants. */
export function moduleSource(value: unknown): string {
  return exportsSource([['default', value]]);
}

/**
 * Serializes several exports (`default` or identifiers) of one module. Each
 * export is its own declaration with its own constants, so a bundler keeps
 * exactly what the imported exports use; within an export, an object reached
 * more than once is one constant.
 */
export function exportsSource(exports: ReadonlyArray<readonly [string, unknown]>): string {
  const decls: string[] = [];
  const lines: string[] = [];
  let next = 0;
  for (const [name, value] of exports) {
    const body = expression(value, decls, () => `$${next++}`);
    lines.push(name === 'default' ? `export default ${body};` : `export const ${name} = ${body};`);
  }
  return `${decls.join('\n')}${decls.length ? '\n' : ''}${lines.join('\n')}\n`;
}

/** One value as an expression; objects it reaches more than once are declared in `decls`. */
function expression(value: unknown, decls: string[], nextName: () => string): string {
  if (!isObject(value)) return value === undefined ? 'null' : JSON.stringify(value);
  // The common case is a tree: JSON is a JavaScript expression, and the native serializer is fast.
  // Whether it is one costs a walk that only looks at objects.
  const visited = new Set<object>();
  const stack: object[] = [value];
  let repeated = false;
  let proto = false;
  while (stack.length) {
    const v = stack.pop()!;
    if (visited.has(v)) {
      repeated = true;
      continue;
    }
    visited.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object') stack.push(x);
      }
    } else {
      for (const k in v) {
        if (k === '__proto__') proto = true;
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === 'object') stack.push(x);
      }
    }
  }
  if (!repeated && !proto) return JSON.stringify(value);
  // Otherwise count how often each object is reached (shared nodes are walked once).
  const seen = new Map<object, number>();
  const again: unknown[] = [value];
  while (again.length) {
    const v = again.pop();
    if (!isObject(v)) continue;
    const n = seen.get(v) ?? 0;
    seen.set(v, n + 1);
    if (n > 0) continue;
    if (Array.isArray(v)) for (const x of v) again.push(x);
    else for (const k in v) again.push((v as Record<string, unknown>)[k]);
  }
  /** Objects under which nothing is shared and no key needs care: serialized natively. */
  const plain = new Map<object, boolean>();
  const isPlain = (v: object): boolean => {
    const known = plain.get(v);
    if (known !== undefined) return known;
    let ok = (seen.get(v) ?? 0) <= 1;
    plain.set(v, ok); // a cycle reached again counts as not plain
    if (ok) {
      if (Array.isArray(v)) {
        for (const x of v) if (isObject(x) && !isPlain(x)) ok = false;
      } else {
        for (const k in v) {
          const x = (v as Record<string, unknown>)[k];
          if (k === '__proto__' || (isObject(x) && !isPlain(x))) ok = false;
        }
      }
      plain.set(v, ok);
    }
    return ok;
  };
  const shared = new Map<object, string>();
  const inProgress = new Set<object>();
  const emit = (v: unknown, root: boolean): string => {
    if (!isObject(v)) return v === undefined ? 'null' : JSON.stringify(v);
    const name = shared.get(v);
    if (name) return name;
    if (inProgress.has(v)) throw new Error('cannot serialize a cyclic object graph');
    const share = !root && (seen.get(v) ?? 0) > 1;
    if (!share && isPlain(v)) return JSON.stringify(v);
    inProgress.add(v);
    let text: string;
    if (Array.isArray(v)) {
      text = `[${v.map((x) => emit(x, false)).join(',')}]`;
    } else {
      const parts: string[] = [];
      for (const [k, x] of Object.entries(v)) {
        if (x === undefined) continue;
        // A plain "__proto__" key in a literal would set the prototype; a computed one is a property.
        const key = k === '__proto__' ? `[${JSON.stringify(k)}]` : JSON.stringify(k);
        parts.push(`${key}:${emit(x, false)}`);
      }
      text = `{${parts.join(',')}}`;
    }
    inProgress.delete(v);
    if (!share) return text;
    const id = nextName();
    shared.set(v, id);
    decls.push(`const ${id} = ${text};`);
    return id;
  };
  return emit(value, true);
}

/**
 * The exports of a module `exportsSource` wrote, read back without importing
 * it, when every export is a plain JSON expression (no shared constants);
 * undefined otherwise (import it then).
 */
export function readExports(source: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const line of source.split('\n')) {
    if (line === '') continue;
    const m = /^export (?:default |const ([A-Za-z_$][\w$]*) = )([[{"].*);$/.exec(line);
    if (!m) return undefined;
    try {
      out[m[1] ?? 'default'] = JSON.parse(m[2]!);
    } catch {
      return undefined;
    }
  }
  return out;
}
