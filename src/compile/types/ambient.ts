/**
 * content.d.ts: one file that types every `content:` import, so that an app adds it to its
 * tsconfig `include` (or references it with `/// <reference path>`) and needs no `paths`.
 *
 * TypeScript resolves `content:index` only through `paths` or an ambient `declare module
 * "content:index"`, and an ambient module may not re-export a file by a relative path (TS2439).
 * So each module's declarations are written inside its `declare module` block; the files they
 * refer to by `import("./...")` types (which are allowed) are then found from here, under the
 * output directory. The story modules are declared per story in the chunks `stories.d.ts`
 * references, which this file references in turn.
 */
import path from 'node:path';
import { docText, stringLiteral } from '../escape.js';

/** One module the plugin serves and the text of its declarations (a module without import statements). */
export interface AmbientModule {
  /** Its name after the prefix: `index`, `types`, `index/de/article`, ... */
  name: string;
  /** The file the declarations come from, relative to the output directory (`views/….d.ts`). */
  file: string;
  declarations: string;
}

/**
 * The text of content.d.ts. `modulesDir` leads from the file to the output directory (`./modules/`);
 * declaration texts refer to generated files relative to it. `references` are declaration files of
 * the output directory that hold ambient modules of their own (`stories.d.ts`).
 */
export function contentDeclaration(options: {
  prefix: string;
  modulesDir: string;
  modules: readonly AmbientModule[];
  references: readonly string[];
  header: string;
}): string {
  const { prefix, modulesDir, modules, references, header } = options;
  const lines = [
    header.trimEnd(),
    `// Types of every ${docText(prefix)}* import: add this file to the tsconfig "include" (or reference it with /// <reference path>).`,
    ...references.map((ref) => `/// <reference path=${referencePath(`${modulesDir}${ref}`)} />`),
  ];
  for (const m of modules) {
    lines.push(`declare module ${stringLiteral(`${prefix}${m.name}`)} {`, ambientBody(m, header, modulesDir), '}');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A `/// <reference path>` value: TypeScript reads it up to the next quote of its kind, without
 * escapes, so a path holding `"` (a folder `say "cheese"` between the declaration and the output) is
 * quoted with `'`. One holding both cannot be written.
 */
function referencePath(file: string): string {
  if (!file.includes('"')) return `"${file}"`;
  if (!file.includes("'")) return `'${file}'`;
  throw new Error(`content.d.ts cannot reference ${file}, whose path holds both quotes: write it beside the modules`);
}

/**
 * A module's declaration text as the body of its `declare module` block: without the generated
 * header; without `declare` on its exports (a block that is ambient already refuses it, TS1038);
 * its `import("./...")` and `import("../...")` types, relative to its file, led from content.d.ts
 * to the output directory. The text is generated: a line starting `export declare ` is such an
 * export (no string of it spans lines), and `import("./` or `import("../` is one of its references
 * (in a string literal from content, stringLiteral escapes that quote: `import(\"./`).
 */
function ambientBody(m: AmbientModule, header: string, modulesDir: string): string {
  const dir = path.posix.dirname(m.file);
  return (m.declarations.startsWith(header) ? m.declarations.slice(header.length) : m.declarations)
    .replace(/^export declare /gm, 'export ')
    .replace(/import\("(\.\.?\/[^"\\]*)"\)/g, (_, rel: string) => {
      return `import(${stringLiteral(`${modulesDir}${path.posix.normalize(path.posix.join(dir, rel))}`)})`;
    })
    .trimEnd();
}
