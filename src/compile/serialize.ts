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
  // Count how often each object is reached (a DAG walk: shared nodes are walked once).
  while (stack.length) {
    const v = stack.pop();
    if (!isObject(v)) continue;
    const n = seen.get(v) ?? 0;
    seen.set(v, n + 1);
    if (n > 0) continue;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else for (const x of Object.values(v)) stack.push(x);
  }
  const shared = new Map<object, string>();
  const decls: string[] = [];
  const inProgress = new Set<object>();

  const emit = (v: unknown, root: boolean): string => {
    if (!isObject(v)) return v === undefined ? 'null' : JSON.stringify(v);
    const name = shared.get(v);
    if (name) return name;
    if (inProgress.has(v)) throw new Error('cannot serialize a cyclic object graph');
    const share = !root && (seen.get(v) ?? 0) > 1;
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
  const lines: string[] = [];
  for (const [name, value] of exports) {
    const body = emit(value, true);
    lines.push(name === 'default' ? `export default ${body};` : `export const ${name} = ${body};`);
  }
  return `${decls.join('\n')}${decls.length ? '\n' : ''}${lines.join('\n')}\n`;
}
