/**
 * The generated modules as the dev server loads them (see compile's
 * dev-forms.ts): data chunks as `JSON.parse` of their text, except where
 * localized assets rewrite their string literals; the stories index with its
 * story import left unexpanded on the server, where no HMR boundary waits for
 * a story's change, and in the browser going through per-chunk story loaders
 * (an entries chunk's id with `?story-loaders`), so that a story's change
 * still travels up to the modules that import the index; a view chunk with
 * its entries as `JSON.parse` too and loaders that import its chunk's story
 * loaders when one of its stories is first loaded. Without a source map: the
 * text is generated, and Vite would make one for every module it serves.
 * Their imports of one another resolve to the files without Vite's resolver, and on the server a
 * view's chunks are named for transforming ahead (viewChunksAhead).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  chunksOfView,
  devBrowserIndex,
  devDataChunk,
  devStoriesIndex,
  devStoryLoaders,
  devViewChunk,
  isDataChunk,
  isEntriesChunk,
  isViewChunk,
  isViewModule,
  STORY_LOADERS,
} from '../compile/index.js';
import { hasAssetUrl } from './assets.js';

export interface DevModuleContext {
  /** The environment runs on the server (SSR), not in a browser. */
  server: boolean;
  /** Localized assets: their URLs in the modules are rewritten into imports. */
  assetImports: boolean;
}

/**
 * A generated module's id: its file, its path in the output directory (with `/`, as the compile
 * names it) and its query; undefined for a module outside `modulesDir`.
 */
function generated(modulesDir: string, id: string): { file: string; rel: string; query?: string } | undefined {
  if (!id.startsWith(modulesDir + path.sep)) return undefined;
  const [file, query] = id.split('?', 2) as [string, string | undefined];
  const rel = file
    .slice(modulesDir.length + 1)
    .split(path.sep)
    .join('/');
  return query === undefined ? { file, rel } : { file, rel, query };
}

/** The module `id` as the dev server loads it, or null to load the file as it is. */
export function devModule(
  modulesDir: string,
  id: string,
  context: DevModuleContext,
): { code: string; map: { mappings: '' } } | null {
  const module = generated(modulesDir, id);
  if (!module) return null;
  const { file, rel, query } = module;
  let code: string | undefined;
  if (query !== undefined) {
    if (query === STORY_LOADERS && (isEntriesChunk(rel) || isViewChunk(rel)))
      code = devStoryLoaders(readFileSync(file, 'utf8'));
  } else if (rel === 'index.js') {
    const text = readFileSync(file, 'utf8');
    code = context.server ? devStoriesIndex(text) : devBrowserIndex(text);
  } else if (isViewChunk(rel)) {
    const text = readFileSync(file, 'utf8');
    code = devViewChunk(text, rel, { keepLiterals: context.assetImports && hasAssetUrl(text) });
  } else if (isDataChunk(rel)) {
    const text = readFileSync(file, 'utf8');
    if (!(context.assetImports && hasAssetUrl(text))) code = devDataChunk(text);
  }
  return code === undefined ? null : { code, map: { mappings: '' } };
}

/**
 * The files of the chunks a view module imports (`id`), for the server to transform ahead of the
 * module runner, which imports them one after another, each transformed only when it asks: a
 * language's view at 10,000 stories has 265. Undefined for another module.
 */
export function viewChunksAhead(modulesDir: string, id: string): string[] | undefined {
  const module = generated(modulesDir, id);
  if (!module || module.query !== undefined || !isViewModule(module.rel)) return undefined;
  let text: string;
  try {
    text = readFileSync(module.file, 'utf8');
  } catch {
    return undefined;
  }
  return chunksOfView(text).map((chunk) => path.join(modulesDir, ...chunk.split('/')));
}

/**
 * The file a generated module's relative import of another generated module names, or undefined
 * to resolve `id` as usual. Vite's resolver takes about a tenth of a millisecond a specifier, and
 * story loaders name every story; the compile writes a module and what it imports together, so
 * there is nothing to look up.
 */
export function devResolve(modulesDir: string, id: string, importer: string | undefined): string | undefined {
  // Called for every import of the dev server: the specifier's tests first, the cheapest.
  if (!(id.startsWith('./') || id.startsWith('../'))) return undefined;
  // The only query a generated module writes (the browser's index, a view chunk) is the story loaders'.
  const [specifier, query] = id.split('?', 2) as [string, string | undefined];
  if (query !== undefined && query !== STORY_LOADERS) return undefined;
  if (!specifier.endsWith('.js')) return undefined;
  const inside = modulesDir + path.sep;
  const from = importer?.split('?', 1)[0];
  if (!from?.startsWith(inside)) return undefined;
  const file = path.join(path.dirname(from), specifier);
  if (!file.startsWith(inside)) return undefined;
  return query === undefined ? file : `${file}?${query}`;
}
