/**
 * `content-sync prepare`: what `astro sync` and `svelte-kit sync` are to their
 * frameworks. Loads the project's Vite config the way `vite` does, finds this
 * plugin in it, runs the plugin's sync and compile with the plugin's options and
 * exits, so that the generated types exist before `tsc` or an editor needs them.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConfigEnv, UserConfig } from 'vite';
import type { ContentSyncApi } from '../vite/index.js';
import { PLUGIN_NAME } from '../vite/plugin.js';
import { parse, UsageError } from './args.js';
import { count } from '../text/index.js';
import { loadOptional } from '../store/optional.js';

const HELP = `usage: content-sync prepare [--config FILE] [--mode M]

  --config FILE   the Vite config (default: vite.config.* in the current directory, as \`vite\`
                  finds it; else astro.config.*, whose \`vite\` part is used)
  --mode M        the mode the config is loaded in (default production, as \`vite build\`)

Syncs and compiles with the plugin's own options (its \`offline\` rules included), writes the
generated modules and types, and exits: 0 when they are ready, 1 with the plugin's error.`;

export class PrepareError extends Error {
  override name = 'PrepareError';
}

/** Astro keeps its Vite config under `vite` in its own config file. */
const ASTRO_CONFIGS = [
  'astro.config.mjs',
  'astro.config.ts',
  'astro.config.mts',
  'astro.config.js',
  'astro.config.cjs',
  'astro.config.cts',
];

/** The names `vite` looks for in the current directory, in its order. */
const VITE_CONFIGS = [
  'vite.config.js',
  'vite.config.mjs',
  'vite.config.ts',
  'vite.config.cjs',
  'vite.config.mts',
  'vite.config.cts',
];

const isAstroConfig = (file: string) => /^astro\.config\.[cm]?[jt]s$/.test(path.basename(file));

/** Whether the config to load is Astro's: named so, or the one found where there is no Vite config. */
function usesAstroConfig(file: string | undefined): boolean {
  if (file !== undefined) return isAstroConfig(file);
  return !VITE_CONFIGS.some((name) => existsSync(name)) && ASTRO_CONFIGS.some((name) => existsSync(name));
}

/**
 * The Vite the project's own command runs: resolved from the project (through Astro for its
 * config: npm may keep Astro's Vite inside it, beside another), as a package does not always
 * resolve the app's (a monorepo's hoisted copy, a Vite installed for a peer); this package's
 * own peer when the project resolves none.
 */
async function projectVite(astro: boolean): Promise<typeof import('vite')> {
  try {
    let from = createRequire(path.resolve('package.json'));
    if (astro) from = createRequire(from.resolve('astro/package.json'));
    return (await import(pathToFileURL(from.resolve('vite')).href)) as typeof import('vite');
  } catch {
    // Vite is an optional peer: without it, say so, not which file of this package imported it.
    return loadOptional('vite', "loading the project's Vite config", () => import('vite'));
  }
}

interface FoundPlugin {
  name: string;
  api: ContentSyncApi;
}

function isContentSync(p: unknown): p is FoundPlugin {
  const candidate = p as Partial<FoundPlugin> | null;
  return candidate?.name === PLUGIN_NAME && typeof candidate.api?.prepare === 'function';
}

/** The user config to resolve: the Vite config file's, or the `vite` part of Astro's. */
async function loadUserConfig(
  vite: typeof import('vite'),
  file: string | undefined,
  mode: string,
): Promise<{ file: string; config: UserConfig }> {
  const env = { command: 'build' as const, mode };
  const loaded = (await vite.loadConfigFromFile(env, file)) ?? (await loadAstroConfig(vite, env, file));
  if (loaded) {
    const isAstro = isAstroConfig(loaded.path);
    return {
      file: loaded.path,
      config: isAstro ? ((loaded.config as { vite?: UserConfig }).vite ?? {}) : loaded.config,
    };
  }
  throw new PrepareError(`no Vite config in ${process.cwd()} (vite.config.* or astro.config.*): pass --config FILE`);
}

function loadAstroConfig(vite: typeof import('vite'), env: ConfigEnv, file: string | undefined) {
  const astro = file === undefined ? ASTRO_CONFIGS.find((name) => existsSync(name)) : undefined;
  return astro ? vite.loadConfigFromFile(env, astro) : null;
}

export async function prepareCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    config: { type: 'string' },
    mode: { type: 'string' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const mode = (values.mode as string | undefined) ?? 'production';
  const configFlag = values.config as string | undefined;
  if (configFlag !== undefined && !existsSync(configFlag)) throw new UsageError(`--config ${configFlag}: no such file`);

  // The app's own Vite, so its config loads as `vite` (or Astro) itself loads it.
  const vite = await projectVite(usesAstroConfig(configFlag));
  const { file, config } = await loadUserConfig(vite, configFlag, mode);
  const shown = path.relative(process.cwd(), file) || file;
  const resolved = await vite.resolveConfig({ ...config, configFile: false, mode }, 'build', mode, 'production');
  const plugin = resolved.plugins.find(isContentSync);
  if (!plugin)
    throw new PrepareError(`${shown} does not use ${PLUGIN_NAME}: add contentSync() to its plugins (see the README)`);
  const result = await plugin.api.prepare();
  const base = path.relative(process.cwd(), path.dirname(plugin.api.pipeline!.modulesDir)) || '.';
  // No sync and not offline: nothing had changed (the embedded space directory as last synced), or another builder's snapshot was taken from the store.
  const source = result.sync
    ? `${result.sync.mode} sync`
    : result.offline
      ? 'offline: the existing snapshot'
      : 'current without a sync';
  const types = path.join(base, 'content.d.ts');
  console.log(
    `content-sync prepare: ${count(result.compile.stories, 'story', 'stories')} ready in ${base} (${source})` +
      (existsSync(types) ? `; types: ${types}` : ''),
  );
  return 0;
}
