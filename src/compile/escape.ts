/**
 * Strings from content written into generated code (JavaScript modules, `.d.ts` files, `types.d.ts`).
 * Content is data: a component, field, plugin or datasource name, a link type or a slug must never
 * end a comment, a string or an object literal. Every such string goes through the function of the
 * place it lands in:
 *
 * - `docText`: the text of a block comment (`/** ... *\/`);
 * - `stringLiteral`: a quoted string, in JavaScript or in a TypeScript type;
 * - `typeKey`: a property key of a type literal or interface;
 * - `objectKey`: a property key of a JavaScript object literal;
 * - `jsonExpression`: a JSON value written as a JavaScript expression;
 */

/** A string as a double-quoted literal, valid in JavaScript and TypeScript alike. */
export function stringLiteral(value: string): string {
  const json = JSON.stringify(value);
  // JSON leaves the line and paragraph separators raw: valid in strings since ES2019, not to older tools.
  return /[\u2028\u2029]/.test(json) ? json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : json;
}

/**
 * Text that cannot end or leave the block comment it is written in: `*\/` is broken up, and line
 * breaks become spaces (a doc comment line is one line).
 */
export function docText(text: string): string {
  return text.replace(/\*\//g, '*\\/').replace(/\r\n|[\r\n\u2028\u2029]/g, ' ');
}

/** A character that may start an identifier: for building names from content (see names.ts). */
export const ID_START = /[\p{ID_Start}$_]/u;

const ASCII_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key of a type literal or interface: bare when a plain ASCII name, else quoted. */
export function typeKey(key: string): string {
  return ASCII_IDENTIFIER.test(key) && key !== '__proto__' ? key : stringLiteral(key);
}

/**
 * A property key of a JavaScript object literal. A `"__proto__"` key (quoted or not) would set the
 * object's prototype instead of adding the property; a computed one adds the property.
 */
export function objectKey(key: string): string {
  return key === '__proto__' ? `[${stringLiteral(key)}]` : stringLiteral(key);
}

function hasProtoKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    for (const k in v) {
      if (k === '__proto__') return true;
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return false;
}

/**
 * A JSON value (a tree of plain objects, arrays and primitives) as a JavaScript expression that
 * evaluates to an equal value: JSON text is one, except that a `"__proto__"` key in it would set a
 * prototype. Such objects are written key by key with `objectKey`.
 */
export function jsonExpression(value: unknown): string {
  if (!hasProtoKey(value)) return JSON.stringify(value) ?? 'null';
  const write = (v: unknown): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(`${objectKey(k)}:${write(x)}`);
    return `{${parts.join(',')}}`;
  };
  return write(value);
}
