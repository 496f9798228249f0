/**
 * The modules a compile's output serves through the Vite plugin, by their
 * names after the import prefix (`content:`): one list for the plugin's
 * resolution and for the declarations that type them (content.d.ts).
 */
import { storyModulePath } from './emit.js';
import { viewFile } from './views.js';

/** The modules of fixed names, and their files in the output directory. */
export const NAMED_MODULES: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    index: 'index.js',
    datasources: 'datasources.js',
    tags: 'tags.js',
    backlinks: 'backlinks.js',
    types: 'types.js',
  }),
);

/** Every form of module name served, as the plugin's messages and the README spell them. */
export const MODULE_FORMS = [
  ...Object.keys(NAMED_MODULES),
  'stories/<id>',
  'index/<lang>',
  'index/<lang>/<component>',
] as const;

/** The name of the view module of a language, or of a content type in a language (names with `/`, `%` or `*` are written encoded). */
export const viewModuleName = (lang: string, component?: string): string =>
  component === undefined ? `index/${encodeName(lang)}` : `index/${encodeName(lang)}/${encodeName(component)}`;

/** A lone surrogate (half a character), which no encoding as UTF-8 can carry. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A name as one segment of a module name. `*` is encoded too: in the declarations (`declare
 * module`) it is a wildcard, which would declare every name (or two of them, none). A lone
 * surrogate, which encodeURIComponent refuses, is the replacement character, as in the view's file
 * name (see viewFile): decoded, the name finds the same file.
 */
function encodeName(name: string): string {
  return encodeURIComponent(name.replace(LONE_SURROGATE, '\uFFFD')).replaceAll('*', '%2A');
}

/** A name as one segment of a module name with only what must be encoded encoded: `%`, `/` and `*`. */
function minimalName(name: string): string {
  return name.replace(LONE_SURROGATE, '\uFFFD').replace(/[%/*]/g, (c) => (c === '*' ? '%2A' : encodeURIComponent(c)));
}

/**
 * The file of the module named `name` (after the prefix), relative to the output directory, or
 * undefined when no module of that form is served. Whether the file exists (a language or content
 * type of the snapshot) is the caller's to check.
 */
export function servedFile(name: string): string | undefined {
  if (Object.hasOwn(NAMED_MODULES, name)) return NAMED_MODULES[name];
  const story = /^stories\/(\d+)$/.exec(name);
  if (story) return storyModulePath(Number(story[1]));
  const view = /^index\/([^/]*)(?:\/([^/]*))?$/.exec(name);
  if (!view) return undefined;
  try {
    return viewFile(decodeURIComponent(view[1]!), view[2] === undefined ? undefined : decodeURIComponent(view[2]));
  } catch {
    return undefined; // not a valid encoding
  }
}

/**
 * Every module served besides the story modules (`stories/<id>`, declared in the chunks
 * `stories.d.ts` references), for a snapshot of these languages and content types, with its file.
 */
export function servedModules(
  languages: readonly string[],
  components: readonly string[],
): Array<{ name: string; file: string }> {
  const modules = Object.entries(NAMED_MODULES).map(([name, file]) => ({ name, file }));
  for (const lang of languages) {
    modules.push({ name: viewModuleName(lang), file: viewFile(lang) });
    for (const component of components)
      modules.push({ name: viewModuleName(lang, component), file: viewFile(lang, component) });
  }
  // The plugin decodes a name (servedFile), so a name written as it is serves the same module when
  // only `/`, `%` and `*` need encoding there (`content:index/ü`, as the README spells it): declared too.
  const declared = new Set(modules.map((m) => m.name));
  for (const lang of languages) {
    const forms: Array<[string, string]> = [[`index/${minimalName(lang)}`, viewFile(lang)]];
    for (const component of components)
      forms.push([`index/${minimalName(lang)}/${minimalName(component)}`, viewFile(lang, component)]);
    for (const [name, file] of forms) {
      if (declared.has(name) || servedFile(name) !== file) continue;
      declared.add(name);
      modules.push({ name, file });
    }
  }
  return modules;
}
