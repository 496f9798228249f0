/**
 * What a framework test needs from the machine, and what happens without it:
 * the test is skipped with one line saying what is missing, except under
 * CI=true, where a missing requirement is a failure (CI never silently skips).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM } from '../e2e/support.js';

/** The variable `.ci/run` sets to a Node 22 binary installed from the npm registry's `node` package. */
export const NODE22_VARIABLE = 'CONTENT_SYNC_NODE22';

export interface Requirement {
  /** Undefined when met; otherwise what is missing and how to get it. */
  missing: string | undefined;
}

/** The major version of a Node binary, or undefined if it does not run. */
function nodeMajor(binary: string): number | undefined {
  try {
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    return Number(/^v(\d+)\./.exec(version)?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Node binary of at least `major`: this process's own when it is recent enough,
 * else the one named by $CONTENT_SYNC_NODE22.
 */
export function nodeAtLeast(major: number): Requirement & { binary: string | undefined } {
  if (Number(process.versions.node.split('.')[0]) >= major) return { missing: undefined, binary: process.execPath };
  const binary = process.env[NODE22_VARIABLE];
  const how = `set ${NODE22_VARIABLE} to a Node ${major} binary (.ci/run installs one: npm install --prefix DIR node@22)`;
  if (!binary) return { missing: `Node ${major} (this is Node ${process.versions.node}); ${how}`, binary: undefined };
  const found = nodeMajor(binary);
  if (found === undefined || found < major)
    return {
      missing: `Node ${major} at ${NODE22_VARIABLE}=${binary} (it is ${found ? `Node ${found}` : 'not a runnable node'}); ${how}`,
      binary: undefined,
    };
  return { missing: undefined, binary };
}

export function chromium(): Requirement {
  return {
    missing: existsSync(CHROMIUM) ? undefined : `Chromium at ${CHROMIUM} (Debian/Ubuntu: apt-get install -y chromium)`,
  };
}

/**
 * Whether a test with these requirements runs. Prints the one line a skip owes
 * its reader; under CI=true a missing requirement is an error instead.
 */
export function shouldRun(name: string, ...requirements: Requirement[]): boolean {
  const missing = requirements.map((r) => r.missing).filter((m): m is string => m !== undefined);
  if (!missing.length) return true;
  const line = `${name}: skipped, missing ${missing.join('; ')}`;
  if (process.env.CI === 'true') throw new Error(`${line} (CI=true: a missing requirement fails)`);
  console.warn(line);
  return false;
}
