/**
 * Generated modules in forms a dev server loads faster, with the same exports.
 *
 * A dev server transforms each module it serves: Vite parses it, rewrites its
 * imports and exports and makes a source map, which Node then decodes again
 * when the module runs on the server. Some of the compile's modules make that
 * costly at scale. The data chunks (entries, backlinks) are megabytes of
 * object literals: as `JSON.parse` of one string they parse as a string does.
 * The stories index loads a story through one dynamic import, which Vite
 * expands into an import of every story module (9,700 at 10,000 stories)
 * before the first page: on the server it is marked for Vite to leave alone,
 * in the browser it goes through the loaders of the story's entries chunk. A
 * view chunk names each of its stories' modules too: those imports wait in a
 * module of their own until a story of the chunk is loaded. A build keeps the
 * files as they are.
 */
import { CHUNKS, GENERATED_HEADER, STORY_IMPORT, storyModulePath } from './emit.js';
import { chunkOfView } from './views.js';

/** The data chunks: `export default <value>;` and nothing else (see entriesChunk, backlinksChunk). */
const DATA_CHUNK = /^chunks\/(?:entries|backlinks)-\d+\.js$/;

const DATA_PREFIX = `${GENERATED_HEADER}export default `;

/** The stories index's dynamic import, which Vite does not expand. */
const UNEXPANDED_STORY_IMPORT = STORY_IMPORT.replace('import(', 'import(/* @vite-ignore */ ');

const ENTRIES_CHUNK = /^chunks\/entries-\d+\.js$/;

/** Whether the generated module `rel` (its path in the output directory, with `/`) is a data chunk. */
export const isDataChunk = (rel: string): boolean => DATA_CHUNK.test(rel);

/** Whether the generated module `rel` is an entries chunk (whose stories' loaders devStoryLoaders makes). */
export const isEntriesChunk = (rel: string): boolean => ENTRIES_CHUNK.test(rel);

/**
 * The JSON text of what a data chunk exports, when it is JSON: the chunk writers write JSON but
 * for a `"__proto__"` key, which they write as a computed key (see objectKey); undefined otherwise.
 */
export function dataChunkJson(text: string): string | undefined {
  if (!text.startsWith(DATA_PREFIX) || !text.endsWith(';\n') || text.includes('"__proto__"')) return undefined;
  return text.slice(DATA_PREFIX.length, -2);
}

/** A data chunk as `JSON.parse` of its text, or undefined when it is not JSON (serve it as it is). */
export function devDataChunk(text: string): string | undefined {
  const json = dataChunkJson(text);
  return json === undefined ? undefined : `${GENERATED_HEADER}export default JSON.parse(${JSON.stringify(json)});\n`;
}

/**
 * The stories index (`index.js`) with its story import marked for Vite to leave alone, or
 * undefined when it has none. The import is then not in Vite's module graph: where a change must
 * travel from a story module up to its importers (HMR in a browser), serve the file as it is.
 */
export function devStoriesIndex(text: string): string | undefined {
  return text.includes(STORY_IMPORT) ? text.replace(STORY_IMPORT, UNEXPANDED_STORY_IMPORT) : undefined;
}

/** Whether the generated module `rel` is a view chunk (whose stories' loaders devStoryLoaders makes). */
export const isViewChunk = (rel: string): boolean => chunkOfView(rel) !== undefined;

/** The query that has a dev server serve an entries or view chunk's id as its stories' loaders (devStoryLoaders). */
export const STORY_LOADERS = 'story-loaders';

/** An entries chunk's lines: one entry each, its story's id first (see entriesChunk). */
const ENTRY_ID = /^\{"id":(\d+),/gm;

/**
 * A view chunk's loaders: `export const loaders = {<id>: () => import('../stories/<id>.js'), ...};`,
 * a line between `\n`s. Not `^`/`$` of a multiline pattern: they also match at U+2028 and U+2029,
 * which an entry's JSON text holds raw, so a name could open a line that looks like the loaders.
 */
const VIEW_LOADERS = /(?<=\n)export const loaders = \{([^\n]*)\};(?=\n|$)/;
const LOADER_ID = /(\d+): \(\) => import\(/g;

/** The entries chunks the index imports (`import eN from './chunks/entries-N.js';`). */
const ENTRIES_IMPORT = /^import e\d+ from '\.\/chunks\/entries-\d+\.js';$/gm;

/**
 * The browser index's and the view chunks' way to a story's module: through a module of story
 * loaders (`loadersModule` imports it, devStoryLoaders makes it), which must name the story.
 */
const STORY_THROUGH = `async function storyThrough(loadersModule, id) {
  const { default: loaders } = await loadersModule();
  if (!loaders[id]) throw new Error('content-sync: no story ' + id);
  return loaders[id]();
}
`;

/**
 * The stories index as a browser loads it from a dev server, or undefined when it has no story
 * import: a story's module comes from the loaders of its entries chunk
 * (`./chunks/entries-N.js?story-loaders`, devStoryLoaders), imported when a story of that chunk is
 * first loaded. A story module is still imported by name, so a change to it travels up to the
 * modules that import the index (HMR); and a story added changes its entries chunk, which reloads
 * the loaders with it.
 */
export function devBrowserIndex(text: string): string | undefined {
  if (!text.includes(STORY_IMPORT)) return undefined;
  const chunks = text.match(ENTRIES_IMPORT)?.length ?? 0;
  const loaders = Array.from({ length: chunks }, (_, b) => `() => import('./${CHUNKS.entries(b)}?${STORY_LOADERS}')`);
  return `${text.replace(STORY_IMPORT, 'storyModule(entry.id)')}const storyLoaders = [
  ${loaders.join(',\n  ')},
];
${STORY_THROUGH}/** A story's module, through the loaders of its entries chunk (chunkOfId). */
const storyModule = (id) => storyThrough(storyLoaders[id % storyLoaders.length], id);
`;
}

/**
 * The loaders of the stories of an entries chunk or a view chunk (its text): each story's id to an
 * import of its module. An entries chunk has one entry a line, its id first; a view chunk lists
 * its loaders in one line (see viewChunk).
 */
export function devStoryLoaders(chunk: string): string {
  const ids = new Set<string>();
  const viewLoaders = VIEW_LOADERS.exec(chunk)?.[1];
  if (viewLoaders === undefined) for (const m of chunk.matchAll(ENTRY_ID)) ids.add(m[1]!);
  else for (const m of viewLoaders.matchAll(LOADER_ID)) ids.add(m[1]!);
  const loaders = [...ids].map((id) => `${id}: () => import('../${storyModulePath(Number(id))}')`);
  return `${GENERATED_HEADER}export default {\n${loaders.join(',\n')}\n};\n`;
}

/**
 * A view chunk (`rel`, its text) as a dev server serves it, or undefined when it has no loaders:
 * its entries as `JSON.parse` of their text (as devDataChunk; as written with `keepLiterals`, or
 * when they are not JSON), and each loader importing the chunk's story loaders
 * (`<chunk>?story-loaders`, devStoryLoaders) and calling its own there, so that the dev server
 * analyses the story imports when a story of the chunk is first loaded, not with the list. A story
 * added or removed rewrites the chunk, which reloads the loaders with it.
 */
export function devViewChunk(text: string, rel: string, options: { keepLiterals?: boolean } = {}): string | undefined {
  const m = VIEW_LOADERS.exec(text);
  if (!m) return undefined;
  // Up to the loaders' line (at the match, a line of its own: an entry's text could hold the same
  // characters): `export default <entries>;\n`, a data chunk's form.
  const entries = text.slice(0, m.index);
  const ids = Array.from(m[1]!.matchAll(LOADER_ID), (x) => x[1]!);
  const self = rel.slice(rel.lastIndexOf('/') + 1);
  const lazy = `const storyLoaders = () => import('./${self}?${STORY_LOADERS}');
${STORY_THROUGH}const loader = (id) => () => storyThrough(storyLoaders, id);
export const loaders = {${ids.map((id) => `${id}: loader(${id})`).join(', ')}};`;
  const served = (!options.keepLiterals && devDataChunk(entries)) || entries;
  return served + lazy + text.slice(m.index + m[0].length);
}
