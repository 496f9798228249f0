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
 * Serializes several exports (`default` or identifiers) of one module; objects
 * shared between them are emitted once. Each export is its own declaration,
 * so a bundler drops the exports a page does not import.
 */
export function exportsSource(exports: ReadonlyArray<readonly [string, unknown]>): string {
  const seen = new Map<object, number>();
  const stack: unknown[] = exports.map(([, v]) => v);
  let repeated = false;
  let proto = false;
  // Count how often each object is reached (a DAG walk: shared nodes are walked once).
  while (stack.length) {
    const v = stack.pop();
    if (!isObject(v)) continue;
    const n = seen.get(v) ?? 0;
    seen.set(v, n + 1);
    if (n > 0) {
      repeated = true;
      continue;
    }
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else
      for (const k in v) {
        if (k === '__proto__') proto = true;
        stack.push((v as Record<string, unknown>)[k]);
      }
  }
  const lines: string[] = [];
  const line = (name: string, body: string) => (name === 'default' ? `export default ${body};` : `export const ${name} = ${body};`);
  if (!repeated && !proto) {
    // A tree (the common case): JSON is a JavaScript expression, and the native serializer is fast.
    for (const [name, value] of exports) lines.push(line(name, value === undefined ? 'null' : JSON.stringify(value)));
    return `${lines.join('\n')}\n`;
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
  const decls: string[] = [];
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
    const id = `$${shared.size}`;
    shared.set(v, id);
    decls.push(`const ${id} = ${text};`);
    return id;
  };
  for (const [name, value] of exports) lines.push(line(name, emit(value, true)));
  return `${decls.join('\n')}${decls.length ? '\n' : ''}${lines.join('\n')}\n`;
}
