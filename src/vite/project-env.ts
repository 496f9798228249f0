/**
 * The CONTENT_* variables of a project: its .env files for the mode (`.env`, `.env.local`,
 * `.env.<mode>`, `.env.<mode>.local` in `envDir`, as Vite reads them for `import.meta.env`), with
 * the process's environment over them. Vite puts none of them in `process.env`, so a token kept in
 * `.env.staging` (where Vite projects keep their settings) was "not set" for `vite build --mode staging`.
 */
import type { ResolvedConfig } from 'vite';

export type ProjectEnv = Readonly<Record<string, string | undefined>>;

export async function projectEnv(config: Pick<ResolvedConfig, 'mode' | 'envDir'>): Promise<ProjectEnv> {
  try {
    // Imported here, by a Vite that runs the plugin: the package's other entries (the CLI, sync()
    // and compile() from a script) load without Vite installed.
    const { loadEnv } = await import('vite');
    return loadEnv(config.mode, config.envDir, 'CONTENT_');
  } catch {
    // A mode Vite refuses for .env files ("local") has none: the process's environment alone.
    return process.env;
  }
}
