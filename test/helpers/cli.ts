/**
 * Runs the `content-sync` command from source in a child process.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_ENTRY = fileURLToPath(new URL('../../src/cli/run.ts', import.meta.url));
/** tsx by its location, so that the command runs from source in any working directory. */
const TSX = import.meta.resolve('tsx');

/** Starts the command with `args` (and `env` added to the environment) in `cwd`; stdout and stderr are piped. */
export function spawnCli(
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
  cwd?: string,
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', TSX, CLI_ENTRY, ...args], {
    stdio: 'pipe',
    ...(cwd ? { cwd } : {}),
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Waits for a started command to end and collects its output. */
export function collect(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs the command to its end. */
export function runCli(args: readonly string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return collect(spawnCli(args, env, cwd));
}
