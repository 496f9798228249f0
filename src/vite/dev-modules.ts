/**
 * The generated modules as the dev server loads them (see compile's
 * dev-forms.ts): data chunks as `JSON.parse` of their text, except where
 * localized assets rewrite their string literals; the stories index with its
 * story import unexpanded on the server, where no HMR boundary waits for a
 * story's change (in the browser a change travels up to the module that
 * imports the index). Without a source map: the text is generated, and Vite
 * would make one for every module it serves.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
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
