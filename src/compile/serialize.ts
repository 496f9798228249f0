/**
 * JavaScript source of the generated modules: object graphs written out whole
 * (`exportsSource`; an object reached more than once is one constant), the
 * raw module of a story (its languages over the default) and its story module
 * (what resolution changed, over the raw modules it imports), and reading
 * such modules back without importing them.
 */

import { CODE_HEADER } from './emit.js';
import { changedKeys, originalOf } from '../resolve/index.js';
import { objectKey as key } from './escape.js';

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
        parts.push(`${key(k)}:${emit(x, false)}`);
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

/** An object whose values are all primitives and none of whose keys needs care (see `key`). */
function flat(v: object): boolean {
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if ((x !== null && typeof x === 'object') || k === '__proto__') return false;
  }
  return true;
}

/** A story as the snapshot has it in one language, held by a raw module (`raw/<id>.js`). */
export interface RawRef {
  /** The import specifier of its raw module, from the module being written. */
  from: string;
  /** Its export there. */
  name: string;
}

/** The generated runtime module: one helper that story and raw modules build their exports with. */
export const RUNTIME_FILE = 'runtime.js';

/**
 * `p(base, path, value, path, value, ...)`: a copy of `base` with each value
 * set at its path (a list of keys), copying only the objects on the paths (a
 * key already there keeps its place, a new one is added last), as a spread
 * `{...base, key: value}` would at every level. Written out as a module and
 * called as `p` under a pure annotation: a bundler drops an export nobody
 * imports, which it cannot do for a spread (`{...o}` may run getters).
 */
const RUNTIME_BODY = `function p(base, ...edits) {
  const copies = new Set();
  const copy = (x) => {
    const c = Array.isArray(x) ? x.slice() : { ...x };
    copies.add(c);
    return c;
  };
  const set = (o, k, v) => Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  const root = copy(base);
  for (let i = 0; i < edits.length; i += 2) {
    const path = edits[i];
    let node = root;
    for (let j = 0; j < path.length - 1; j++) {
      let child = node[path[j]];
      if (!copies.has(child)) set(node, path[j], (child = copy(child)));
      node = child;
    }
    set(node, path[path.length - 1], edits[i + 1]);
  }
  return root;
}`;

export const RUNTIME_SOURCE = `${CODE_HEADER}export ${RUNTIME_BODY}\n`;

/** The runtime's helper in this process (for reading modules back without importing them). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- our own source, as the runtime module holds it
const runtime = new Function(`${RUNTIME_BODY}\nreturn { p };`)() as {
  p: (base: unknown, ...edits: unknown[]) => unknown;
};

const PURE = '/*#__PURE__*/';

/** `import { p } from "<runtime>";` for a module `fromDir` away from the output directory (`../`). */
function runtimeImport(fromDir: string): string {
  return `import { p } from ${JSON.stringify(`${fromDir}${RUNTIME_FILE}`)};`;
}

/**
 * The module of a resolved story: the stories as the snapshot has them (its
 * own and its targets', each language) are imported from their raw modules,
 * and each export is written as what resolution changed: a copy of a raw
 * story is `p(<raw>, <path>, <value>, ...)`, an embedded target its import.
 * Resolution copies only the path from the root to what it changes (see
 * `shallowCopy`), so an export costs the size of those paths, not of the
 * story. Within an export, an object reached more than once (a link shape, a
 * target resolved deeper) is one constant. `fromDir` leads from the module to
 * the output directory (`../`).
 */
export function storyModuleSource(
  exports: ReadonlyArray<readonly [string, unknown]>,
  raws: ReadonlyMap<object, RawRef>,
  fromDir = '../',
): string {
  const imports = new Map<string, string[]>();
  const names = new Map<object, string>();
  let next = 0;
  let patched = false;
  const rawName = (o: object): string => {
    let name = names.get(o);
    if (!name) {
      const ref = raws.get(o)!;
      name = `$${next++}`;
      names.set(o, name);
      const list = imports.get(ref.from) ?? imports.set(ref.from, []).get(ref.from)!;
      list.push(ref.name === 'default' ? `default as ${name}` : `${ref.name} as ${name}`);
    }
    return name;
  };

  const decls: string[] = [];
  const lines: string[] = [];
  // Per export: objects that are neither raw nor copies along a path, reached more than once.
  let seen = new Map<object, number>();
  let consts = new Map<object, string>();
  // Iterative, as `edits`: a story's copies nest as deep as its content times the resolution depth.
  const count = (root: unknown): void => {
    // Two parallel stacks, values and their originals: no pair allocated per node of the hot path.
    const values: unknown[] = [root];
    const originals: unknown[] = [undefined];
    while (values.length) {
      const v = values.pop();
      const original = originals.pop();
      if (!isObject(v) || raws.has(v) || v === original) continue;
      const base = originalOf(v);
      const along = base !== undefined && base === original;
      if (!along) {
        const n = seen.get(v) ?? 0;
        seen.set(v, n + 1);
        if (n > 0) continue;
      }
      const o = along || (base !== undefined && raws.has(base)) ? (base as Record<string, unknown>) : undefined;
      const items = v as Record<string | number, unknown>;
      for (const k of (o && changedKeys(v)) ?? Object.keys(v)) {
        values.push(items[k]);
        originals.push(o?.[k]);
      }
    }
  };

  /**
   * The edits that turn `o` (reached at `path` from the raw being patched) into its copy `v`.
   * `path` is the path's JSON without its closing bracket (`[` at the root).
   */
  const edits = (v: object, o: Record<string | number, unknown>, path: string, out: string[]): void => {
    // A copy the resolver made lists the keys it set; any other is compared key by key.
    const keysOf = (x: object) => changedKeys(x) ?? (Array.isArray(x) ? x.map((_, i) => i) : Object.keys(x));
    // Depth first, in key order (the order p sets them in), on a stack of its own: a path is as
    // long as the content is deep.
    const stack = [{ v, o, path, keys: keysOf(v), i: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (top.i === top.keys.length) {
        stack.pop();
        continue;
      }
      const k = top.keys[top.i++]!;
      const x = (top.v as Record<string | number, unknown>)[k];
      const before = top.o[k];
      if (x === undefined || (x === before && Object.hasOwn(top.o, k))) continue;
      const at = `${top.path}${top.path.length > 1 ? ',' : ''}${JSON.stringify(k)}`;
      if (isObject(x) && isObject(before) && originalOf(x) === before && !raws.has(x))
        stack.push({ v: x, o: before as Record<string | number, unknown>, path: at, keys: keysOf(x), i: 0 });
      else out.push(`${at}],${emit(x)}`);
    }
  };

  const emit = (v: unknown): string => {
    if (!isObject(v)) return v === undefined ? 'null' : JSON.stringify(v);
    if (raws.has(v)) return rawName(v);
    const hoisted = consts.get(v);
    if (hoisted) return hoisted;
    const base = originalOf(v);
    let text: string;
    if (base !== undefined && raws.has(base)) {
      const name = rawName(base);
      const out: string[] = [];
      edits(v, base as Record<string, unknown>, '[', out);
      if (out.length === 0) text = name;
      else {
        patched = true;
        text = `${PURE}p(${name},${out.join(',')})`;
      }
    } else if (Array.isArray(v)) {
      text = `[${v.map((x) => emit(x)).join(',')}]`;
    } else if (flat(v)) {
      // Only strings, numbers, booleans and null (a link shape): as the native serializer writes it.
      text = JSON.stringify(v);
    } else {
      const parts: string[] = [];
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined) parts.push(`${key(k)}:${emit(x)}`);
      }
      text = `{${parts.join(',')}}`;
    }
    if ((seen.get(v) ?? 0) > 1) {
      const name = `$${next++}`;
      consts.set(v, name);
      decls.push(`const ${name} = ${text};`);
      return name;
    }
    return text;
  };
  for (const [exportAs, value] of exports) {
    seen = new Map();
    consts = new Map();
    count(value);
    const body = emit(value);
    lines.push(exportAs === 'default' ? `export default ${body};` : `export const ${exportAs} = ${body};`);
  }
  const head = [
    ...(patched ? [runtimeImport(fromDir)] : []),
    ...[...imports].map(([from, list]) => `import { ${list.join(', ')} } from ${JSON.stringify(from)};`),
  ];
  return `${[...head, ...decls, ...lines].join('\n')}\n`;
}

/**
 * The raw module of a story from the default language and the overlays of the
 * others: `const $0 = <default>;` and each other language as `p($0, ...)`
 * over it, setting what its overlay sets as `materialize` applies it
 * (`{...story, ...top, lang, content: {...story.content, ...content}}`).
 * Undefined when a `__proto__` key is anywhere (written whole then).
 */
export function overlayModuleSource(
  story: unknown,
  overlays: ReadonlyArray<
    readonly [
      string,
      {
        top: Record<string, unknown>;
        lang: string;
        content: Record<string, unknown> | undefined;
        replace: boolean;
        /** The values of `content` as JSON, in its order (the content whole when `replace`), if at hand. */
        contentTexts?: readonly string[] | undefined;
      },
    ]
  >,
  fromDir = '../',
  /** The story as JSON, if at hand: written as it is (a record's text, indented, costs nothing to write). */
  storyText?: string,
): string | undefined {
  const base = storyText ?? JSON.stringify(story);
  if (base.includes('"__proto__"')) return undefined;
  // Concatenated, not joined: the story's text is copied once, when the module is written.
  let text = `${overlays.length ? `${runtimeImport(fromDir)}\n` : ''}const $0 = ${base};\nexport default $0;\n`;
  for (const [name, o] of overlays) {
    const out: string[] = [];
    // `lang` is set once: where the overlay has it (its value the language's, as materialize sets it), else last.
    let lang = false;
    for (const [k, v] of Object.entries(o.top)) {
      if (v === undefined) continue;
      lang ||= k === 'lang';
      out.push(`${JSON.stringify([k])},${JSON.stringify(k === 'lang' ? o.lang : v)}`);
    }
    if (!lang) out.push(`["lang"],${JSON.stringify(o.lang)}`);
    if (o.replace) out.push(`["content"],${o.contentTexts?.[0] ?? JSON.stringify(o.content)}`);
    else {
      let i = 0;
      for (const [k, v] of Object.entries(o.content ?? {})) {
        const text = o.contentTexts?.[i++];
        if (v !== undefined) out.push(`${JSON.stringify(['content', k])},${text ?? JSON.stringify(v)}`);
      }
    }
    const line = `export const ${name} = ${PURE}p($0,${out.join(',')});\n`;
    if (line.includes('"__proto__"')) return undefined;
    text += line;
  }
  return text;
}

/**
 * The exports of a module this compiler wrote (a raw module or a story
 * module), evaluated without importing it: `load` gives the exports of an
 * import specifier it names. Throws when the text is not laid out as written.
 */
export function evaluateModule(
  source: string,
  load: (from: string) => Record<string, unknown>,
): Record<string, unknown> {
  const fast = readExports(source);
  if (fast) return fast;
  const params: string[] = [];
  const args: unknown[] = [];
  const body: string[] = ['const $exports = Object.create(null);'];
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line === '') continue;
    if (!line.endsWith(';')) {
      // A statement over several lines (a raw module's story or translation, as its record has it):
      // to the line that ends it (no line of JSON ends with a semicolon).
      const first = i;
      while (i < lines.length - 1 && !lines[i]!.endsWith(';')) i++;
      line = lines.slice(first, i + 1).join('\n');
    }
    let m = /^import \{ (.*) \} from ("[^"]*");$/.exec(line);
    if (m && m[1] === 'p' && (JSON.parse(m[2]!) as string).endsWith(`/${RUNTIME_FILE}`)) {
      params.push('p');
      args.push(runtime.p);
      continue;
    }
    if (m) {
      const exported = load(JSON.parse(m[2]!) as string);
      for (const spec of m[1]!.split(', ')) {
        const [name, local] = spec.split(' as ') as [string, string];
        if (!/^\$\d+$/.test(local) || !(name in exported)) throw new Error(`unexpected import ${spec}`);
        params.push(local);
        args.push(exported[name]);
      }
      continue;
    }
    if ((m = /^export default (.*);$/s.exec(line))) body.push(`$exports.default = ${m[1]};`);
    else if ((m = /^export const ([A-Za-z_$][\w$]*) = (.*);$/s.exec(line)))
      body.push(`$exports[${JSON.stringify(m[1])}] = ${m[2]};`);
    else if (/^const \$\d+ = .*;$/s.test(line)) body.push(line);
    else throw new Error('not a module this compiler wrote');
  }
  body.push('return $exports;');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- our own output, evaluated as importing it would
  return new Function(...params, body.join('\n'))(...args) as Record<string, unknown>;
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
