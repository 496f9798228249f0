/** The dev server's reload of generated files that changed, in every environment. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ViteDevServer } from 'vite';
import type { RefreshResult } from './pipeline.js';

/**
 * The generated files to reload after `result`: those it changed, and when another process (a
 * build of the project) compiled into the same directory since, every one the server loaded, as
 * that compile may have changed them already (this one then finds nothing left to write).
 */
export function filesToReload(server: ViteDevServer, result: RefreshResult, modulesDir: string): readonly string[] {
  if (!result.compile.writtenElsewhere) return result.changedFiles;
  const files = new Set(result.changedFiles);
  for (const env of Object.values(server.environments))
    for (const file of env.moduleGraph.fileToModulesMap.keys())
      if (file.startsWith(modulesDir + path.sep)) files.add(file);
  return [...files];
}

/**
 * Reloads the modules of `files` in each environment (HMR where a boundary accepts them), and the
 * browser's page when one was the server's alone; how many modules were reloaded.
 */
export async function reloadChanged(server: ViteDevServer, files: readonly string[]): Promise<number> {
  let reloaded = 0;
  let serverOnly = false;
  for (const env of Object.values(server.environments)) {
    for (const file of files) {
      const mods = env.moduleGraph.getModulesByFile(file);
      if (!mods) continue;
      const gone = !existsSync(file);
      for (const mod of mods) {
        // A file deleted (its story unpublished or deleted): Vite invalidates the modules importing it
        // softly, keeping their resolved imports, so the page imported the file still (a 404 that shows
        // nothing). Transformed again, they say the import is unknown, as a fresh server does.
        if (gone) for (const importer of mod.importers) env.moduleGraph.invalidateModule(importer);
        await env.reloadModule(mod);
        reloaded++;
        if (env.name !== 'client' && !server.environments.client?.moduleGraph.getModulesByFile(file)?.size)
          serverOnly = true;
      }
    }
  }
  // Pages rendered on the server (SSR) show content the browser never imported: Vite
  // updates the server's modules but tells the browser nothing, so reload it.
  if (serverOnly) server.environments.client?.hot.send({ type: 'full-reload', path: '*' });
  return reloaded;
}

/**
 * Vitest's watch mode runs again the tests that import a file Vite's watcher reports changed, and the
 * generated files are kept from that watcher (plugin.ts's watchIgnored): the files a run changed are
 * reported to it, once the run has written them all.
 */
export function reportToWatcher(server: ViteDevServer, files: readonly string[]): void {
  for (const file of files) server.watcher.emit(existsSync(file) ? 'change' : 'unlink', file);
}
