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
 * before the first page; a dev server loads the one asked for, so there it is
 * marked for Vite to leave alone. A build keeps the files as they are.
 */
import { GENERATED_HEADER, STORY_IMPORT } from './emit.js';

/** The data chunks: `export default <value>;` and nothing else (see entriesChunk, backlinksChunk). */
const DATA_CHUNK = /^chunks\/(?:entries|backlinks)-\d+\.js$/;

const DATA_PREFIX = `${GENERATED_HEADER}export default `;

/** The stories index's dynamic import, which Vite does not expand. */
const UNEXPANDED_STORY_IMPORT = STORY_IMPORT.replace('import(', 'import(/* @vite-ignore */ ');

/**
 * The JSON text of what a data chunk exports, when it is JSON: the chunk writers write JSON but
 * for a `"__proto__"` key, which they write as a computed key (see objectKey); undefined otherwise.
 */
export function dataChunkJson(text: string): string | undefined {
  if (!text.startsWith(DATA_PREFIX) || !text.endsWith(';\n') || text.includes('"__proto__"')) return undefined;
  return text.slice(DATA_PREFIX.length, -2);
}

/**
 * The dev form of the generated module `rel` (its path in the output directory, with `/`), or
 * undefined to serve it as it is; `read` gives its text (read only for the modules that have one).
 * `literalsKept(text)`: whether the string literals of a data chunk stay as they are (not where
 * another transform rewrites some of them, as localized assets do): a string of JSON has none.
 */
export function devModuleSource(
  rel: string,
  read: () => string,
  literalsKept: (text: string) => boolean,
): string | undefined {
  if (rel === 'index.js') {
    const text = read();
    return text.includes(STORY_IMPORT) ? text.replace(STORY_IMPORT, UNEXPANDED_STORY_IMPORT) : undefined;
  }
  if (!DATA_CHUNK.test(rel)) return undefined;
  const text = read();
  const json = literalsKept(text) ? dataChunkJson(text) : undefined;
  return json === undefined ? undefined : `${GENERATED_HEADER}export default JSON.parse(${JSON.stringify(json)});\n`;
}
