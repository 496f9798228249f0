/**
 * Generated modules in forms a dev server loads faster, with the same exports.
 *
 * A dev server transforms each module it serves: Vite parses it, rewrites its
 * imports and exports and makes a source map, which Node then decodes again
 * when the module runs on the server. Two of the compile's modules make that
 * costly at scale. The data chunks (entries, backlinks) are megabytes of
 * object literals: as `JSON.parse` of one string they parse as a string does.
 * The stories index loads a story through one dynamic import, which Vite
 * expands into an import of every story module (9,700 at 10,000 stories)
 * before the first page; marked, Vite leaves it to load the one asked for. A
 * build keeps the files as they are.
 */
import { GENERATED_HEADER, STORY_IMPORT } from './emit.js';

/** The data chunks: `export default <value>;` and nothing else (see entriesChunk, backlinksChunk). */
const DATA_CHUNK = /^chunks\/(?:entries|backlinks)-\d+\.js$/;

const DATA_PREFIX = `${GENERATED_HEADER}export default `;

/** The stories index's dynamic import, which Vite does not expand. */
const UNEXPANDED_STORY_IMPORT = STORY_IMPORT.replace('import(', 'import(/* @vite-ignore */ ');

/** Whether the generated module `rel` (its path in the output directory, with `/`) is a data chunk. */
export const isDataChunk = (rel: string): boolean => DATA_CHUNK.test(rel);

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
