/**
 * The generated modules as the dev server loads them (see compile's
 * dev-forms.ts): data chunks as `JSON.parse` of their text, except where
 * localized assets rewrite their string literals; the stories index with its
 * story import unexpanded on the server, where no HMR boundary waits for a
 * story's change (in the browser a change travels up to the module that
 * imports the index). Without a source map: the text is generated, and Vite
 * would make one for every module it serves. Their imports of one another
 * resolve to the files without Vite's resolver.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { EnvironmentModuleNode } from 'vite';
import { devDataChunk, devStoriesIndex, isDataChunk } from '../compile/index.js';
import { hasAssetUrl } from './assets.js';

export interface DevModuleContext {
  /** The environment runs on the server (SSR), not in a browser. */
  server: boolean;
  /** Localized assets: their URLs in the modules are rewritten into imports. */
  assetImports: boolean;
}

/** The module `id` as the dev server loads it, or null to load the file as it is. */
export function devModule(
  modulesDir: string,
  id: string,
  context: DevModuleContext,
): { code: string; map: { mappings: '' } } | null {
  if (!id.startsWith(modulesDir + path.sep)) return null;
  const rel = id
    .slice(modulesDir.length + 1)
    .split(path.sep)
    .join('/');
  let code: string | undefined;
  if (rel === 'index.js' && context.server) code = devStoriesIndex(readFileSync(id, 'utf8'));
  else if (isDataChunk(rel)) {
    const text = readFileSync(id, 'utf8');
    if (!(context.assetImports && hasAssetUrl(text))) code = devDataChunk(text);
  }
  return code === undefined ? null : { code, map: { mappings: '' } };
}

/**
 * The file a generated module's relative import of another generated module names, or undefined
 * to resolve `id` as usual. Vite's resolver takes about a tenth of a millisecond a specifier, and
 * the browser's stories index names every story (9,700 of them: a second, at 10,000 stories); the
 * compile writes a module and what it imports together, so there is nothing to look up.
 */
export function devResolve(modulesDir: string, id: string, importer: string | undefined): string | undefined {
  const inside = modulesDir + path.sep;
  if (!importer?.startsWith(inside) || importer.includes('?')) return undefined;
  if (!(id.startsWith('./') || id.startsWith('../')) || !id.endsWith('.js')) return undefined;
  const file = path.join(path.dirname(importer), id);
  return file.startsWith(inside) ? file : undefined;
}

/**
 * The browser's stories index when it must be transformed again after a compile wrote `files`:
 * its story import is expanded into an import of each story module there was, so a story module
 * the browser's module graph does not know (a story new since) is missing from it, and Vite's own
 * invalidation, when the index's entries chunk changes, keeps the expansion it made.
 */
export function staleStoriesIndex(
  graph: { getModulesByFile(file: string): Set<EnvironmentModuleNode> | undefined },
  modulesDir: string,
  files: readonly string[],
): EnvironmentModuleNode[] {
  const index = graph.getModulesByFile(path.join(modulesDir, 'index.js'));
  if (!index?.size) return [];
  const stories = path.join(modulesDir, 'stories') + path.sep;
  const added = files.some((f) => f.startsWith(stories) && f.endsWith('.js') && !graph.getModulesByFile(f)?.size);
  return added ? [...index] : [];
}
