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
import { docText, stringLiteral } from '../escape.js';

/** One module the plugin serves and the text of its declarations (a module without import statements). */
export interface AmbientModule {
  /** Its name after the prefix: `index`, `types`, ... */
  name: string;
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
    ...references.map((ref) => `/// <reference path=${stringLiteral(`${modulesDir}${ref}`)} />`),
  ];
  for (const m of modules) {
    lines.push(
      `declare module ${stringLiteral(`${prefix}${m.name}`)} {`,
      ambientBody(m.declarations, header, modulesDir),
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A module's declaration text as the body of its `declare module` block: without the generated
 * header; without `declare` on its exports (a block that is ambient already refuses it, TS1038);
 * its `import("./...")` types led to the output directory. The text is generated: a line starting
 * `export declare ` is such an export (no string of it spans lines), and `import("./` is one of its
 * references (in a string literal from content, stringLiteral escapes that quote: `import(\"./`).
 */
function ambientBody(text: string, header: string, modulesDir: string): string {
  return (text.startsWith(header) ? text.slice(header.length) : text)
    .replace(/^export declare /gm, 'export ')
    .replaceAll('import("./', `import(${stringLiteral(modulesDir).slice(0, -1)}`)
    .trimEnd();
}
