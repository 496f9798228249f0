/**
 * Lean index modules: `content:index/<lang>` (the stories of one language)
 * and `content:index/<lang>/<component>` (those of one content type in one
 * language). A page that lists one of them ships those entries only, where
 * `content:index` carries every story of every language.
 *
 * Each chunk of the index writes, beside its entries, one small file per
 * language and content type it holds (`viewChunk`: the entries and a loader
 * per story); a view module imports the files of its language (and content
 * type) from every chunk. Which files exist is read off the compile's list of
 * files, so nothing else is kept. File names are digests of the names:
 * nothing from content becomes a path.
 */
import { sha256 } from '../snapshot/json.js';
import { CODE_HEADER, GENERATED_HEADER, type EntryMeta } from './emit.js';
import { jsonExpression, stringLiteral } from './escape.js';

/** A name as it appears in file names: a digest (content decides names, never paths). */
const nameKey = (name: string) => sha256(name).slice(0, 16);

/** The view module of a language, or of a content type in a language (relative to the output directory). */
export function viewFile(lang: string, component?: string): string {
  return component === undefined ? `views/${nameKey(lang)}.js` : `views/${nameKey(lang)}-${nameKey(component)}.js`;
}

const VIEW_CHUNK = /^chunks\/view-([0-9a-f]{16})-([0-9a-f]{16})-(\d+)\.js$/;

/** The file of chunk b's stories of one content type in one language. */
const viewChunkFile = (b: number, lang: string, component: string) =>
  `chunks/view-${nameKey(lang)}-${nameKey(component)}-${b}.js`;

/** The chunk of the index whose view chunk `rel` is (see viewChunkFiles), or undefined for another file. */
export function chunkOfView(rel: string): number | undefined {
  const m = VIEW_CHUNK.exec(rel);
  return m ? Number(m[3]) : undefined;
}

/** The view chunks of chunk b of the index: its entries by language and content type, each with loaders of their story modules. */
export function viewChunkFiles(b: number, metas: readonly EntryMeta[]): Array<[string, string]> {
  const groups = new Map<string, EntryMeta[]>();
  for (const m of metas) {
    const rel = viewChunkFile(b, m.lang, m.component);
    (groups.get(rel) ?? groups.set(rel, []).get(rel)!).push(m);
  }
  return [...groups].sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0)).map(([rel, group]) => [rel, viewChunk(group)]);
}

function viewChunk(metas: readonly EntryMeta[]): string {
  const sorted = [...metas].sort((a, b) => a.id - b.id);
  const loaders = sorted.map((m) => `${m.id}: () => import('../stories/${m.id}.js')`);
  return `${GENERATED_HEADER}export default ${jsonExpression(sorted)};
export const loaders = {${loaders.join(', ')}};
`;
}

/**
 * The view modules and their declarations, from the files of this compile (`files`: every file it
 * wrote or kept, by relative path), the languages, each language's export in story modules, and
 * the content types of the snapshot.
 */
export function viewFiles(
  files: Iterable<string>,
  languages: readonly string[],
  exportNames: ReadonlyMap<string, string>,
  components: Iterable<string>,
): Array<[string, string]> {
  // View chunks by the key of their language, then of their content type.
  const chunks = new Map<string, Map<string, string[]>>();
  for (const rel of files) {
    const m = VIEW_CHUNK.exec(rel);
    if (!m) continue;
    const byComponent = chunks.get(m[1]!) ?? chunks.set(m[1]!, new Map()).get(m[1]!)!;
    (byComponent.get(m[2]!) ?? byComponent.set(m[2]!, []).get(m[2]!)!).push(rel);
  }
  const componentOf = new Map([...components].map((c) => [nameKey(c), c]));
  const out: Array<[string, string]> = [];
  for (const lang of languages) {
    // A language of the space is one whatever the view holds: without stories (nothing published
    // yet), its module lists none, where it would be an unknown import. A content type is one only
    // where it has stories.
    const byComponent = chunks.get(nameKey(lang)) ?? new Map<string, string[]>();
    const exportName = exportNames.get(lang)!;
    const all: string[] = [];
    for (const [key, rels] of [...byComponent].sort(([a], [b]) => (a < b ? -1 : 1))) {
      // Every story of the language, also one whose content type there is not its default
      // language's (a translation that sets `component`: no content type of the ledger's).
      all.push(...rels);
      const component = componentOf.get(key);
      if (component === undefined) continue;
      const rel = viewFile(lang, component);
      out.push([rel, viewModule(rels, lang, exportName)], [rel.replace(/\.js$/, '.d.ts'), viewDeclaration(component)]);
    }
    const rel = viewFile(lang);
    out.push([rel, viewModule(all, lang, exportName)], [rel.replace(/\.js$/, '.d.ts'), viewDeclaration()]);
  }
  return out;
}

const VIEW_MODULE = /^views\/[0-9a-f]{16}(?:-[0-9a-f]{16})?\.js$/;

/** A view module's import of one of its chunks (see viewModule), a line of its own. */
const CHUNK_IMPORT = /^import e\d+, \{ loaders as l\d+ \} from '\.\.\/(chunks\/view-[^']+\.js)';$/gm;

/** Whether the generated module `rel` (its path in the output directory, with `/`) is a view module. */
export const isViewModule = (rel: string): boolean => VIEW_MODULE.test(rel);

/** The chunks a view module imports (its text), relative to the output directory, in its order. */
export const chunksOfView = (text: string): string[] => Array.from(text.matchAll(CHUNK_IMPORT), (m) => m[1]!);

function viewModule(rels: readonly string[], lang: string, exportName: string): string {
  const sorted = [...rels].sort((a, b) => chunkOfView(a)! - chunkOfView(b)! || (a < b ? -1 : 1));
  const imports = sorted.map((rel, i) => `import e${i}, { loaders as l${i} } from '../${rel}';`);
  const list = sorted.map((_, i) => `e${i}`).join(', ');
  const loaders = sorted.map((_, i) => `l${i}`).join(', ');
  return `${CODE_HEADER}${imports.join('\n')}${imports.length ? '\n' : ''}export const language = ${stringLiteral(lang)};
/** The stories, by id. */
export const entries = [${list}].flat().sort((a, b) => a.id - b.id);
const loaders = Object.assign({}, ${loaders});
const bySlugIndex = new Map(entries.map((e) => [e.full_slug, e]));
/** The body of an entry (the resolved story), loaded on demand. */
export async function load(entry) {
  const loader = Object.hasOwn(loaders, entry.id) ? loaders[entry.id] : undefined;
  if (!loader) throw new Error('content-sync: story ' + entry.id + ' is not in this index');
  return (await loader())[${stringLiteral(exportName)}];
}
export function bySlug(fullSlug) {
  return bySlugIndex.get(fullSlug) ?? bySlugIndex.get(fullSlug + '/');
}
`;
}

function viewDeclaration(component?: string): string {
  const index = stringLiteral('../index.js');
  const entry =
    component === undefined
      ? `import(${index}).StoryEntry`
      : `import(${index}).StoryEntry<${stringLiteral(component)}>`;
  return `${GENERATED_HEADER}export declare const language: string;
export declare const entries: ${entry}[];
export declare function load<C extends string>(entry: import(${index}).StoryEntry<C>): Promise<import(${index}).StoryOf<C>>;
export declare function bySlug(fullSlug: string): ${entry} | undefined;
`;
}
