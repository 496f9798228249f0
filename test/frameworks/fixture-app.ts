/**
 * A framework fixture (test/fixtures/<name>) made into an app the way a user
 * gets one: the repository packed with `npm pack` (built first, by its
 * `prepare` script), the fixture copied into a directory of its own and
 * installed from the npm registry with the tarball in place of the repository.
 *
 * Installs are cached: each fixture has one directory under the system's temp
 * directory, keyed by its package.json, whose node_modules the next run reuses
 * (npm then only swaps the tarball). A run that finds the directory in use by
 * another live process installs into a fresh one instead.
 */
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './processes.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
const CACHE = path.join(os.tmpdir(), 'content-sync-fixtures');
const PACKAGE = 'vite-plugin-content-sync';
/** Kept between runs: what npm installed. Everything else in an app directory is laid anew. */
const KEPT = new Set(['node_modules', 'package-lock.json', '.lock']);
/** What a fixture directory may hold after someone ran it by hand: never copied. */
const OUTPUTS = new Set(['node_modules', 'package-lock.json', 'dist', 'build', '.content', '.svelte-kit', '.astro']);

const RUNNER_SETTINGS = /^(npm_.*|INIT_CWD|NODE_OPTIONS|NODE_ENV|VITEST.*|TEST|FORCE_COLOR)$/;

/** npm as a child process, with the given Node first on PATH (npm and every script it runs use that Node). */
export function nodeEnv(nodeBinary: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extra,
    PATH: `${path.dirname(nodeBinary)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  // Settings of the test runner (its npm run, NODE_ENV=test, which stops Astro's dev server from
  // reloading pages) and colour codes in the output are not the app's.
  for (const key of Object.keys(env)) if (RUNNER_SETTINGS.test(key)) delete env[key];
  env.NO_COLOR = '1';
  return env;
}

/** `npm pack` of the repository into a new temp directory; its `prepack` script builds dist/ first. */
export async function packRepository(nodeBinary: string): Promise<string> {
  const out = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-pack-'));
  const printed = await run('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: REPO_ROOT,
    env: nodeEnv(nodeBinary),
  });
  const [packed] = JSON.parse(printed.slice(printed.indexOf('['))) as Array<{ filename: string }>;
  return path.join(out, packed!.filename);
}

export interface FixtureApp {
  name: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs a binary of the app's node_modules/.bin (`tsc`, `vite`, `astro`, `content-sync`, ...). */
  bin(name: string, args: readonly string[], timeoutMs?: number): Promise<string>;
  binPath(name: string): string;
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the cached directory of a fixture, or a fresh one when another live process holds it. */
async function claimDirectory(key: string): Promise<{ dir: string; release: () => Promise<void> }> {
  const dir = path.join(CACHE, key);
  await fs.mkdir(dir, { recursive: true });
  const lock = path.join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      return { dir, release: () => fs.rm(lock, { force: true }) };
    } catch {
      const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
      if (holder && isAlive(holder)) break;
      await fs.rm(lock, { force: true }); // left by a process that died
    }
  }
  const fresh = await fs.mkdtemp(path.join(os.tmpdir(), `content-sync-${key}-`));
  return { dir: fresh, release: () => fs.rm(fresh, { recursive: true, force: true }) };
}

/**
 * Lays out fixture `name` with the packed tarball as its dependency and installs it
 * (exact versions as the fixture pins them) under `nodeBinary`.
 */
export async function installFixture(
  name: string,
  tarball: string,
  nodeBinary: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<FixtureApp> {
  const source = path.join(FIXTURES, name);
  const manifest = JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const nodeMajor = /^v(\d+)/.exec(await run(nodeBinary, ['--version'], { cwd: REPO_ROOT, env: process.env }))![1];
  const key = `${name}-node${nodeMajor}-${createHash('sha256').update(JSON.stringify(manifest)).digest('hex').slice(0, 12)}`;
  const { dir, release } = await claimDirectory(key);
  try {
    for (const entry of await fs.readdir(dir))
      if (!KEPT.has(entry)) await fs.rm(path.join(dir, entry), { recursive: true, force: true });
    await fs.cp(source, dir, {
      recursive: true,
      filter: (src) =>
        !path
          .relative(source, src)
          .split(path.sep)
          .some((part) => OUTPUTS.has(part)),
    });
    // A tarball named by its digest: npm reinstalls the package whenever its bytes change.
    const digest = createHash('sha256')
      .update(await fs.readFile(tarball))
      .digest('hex')
      .slice(0, 12);
    const local = `${PACKAGE}-${digest}.tgz`;
    await fs.copyFile(tarball, path.join(dir, local));
    const section = manifest.dependencies?.[PACKAGE] ? 'dependencies' : 'devDependencies';
    const installed = { ...manifest, [section]: { ...manifest[section], [PACKAGE]: `file:./${local}` } };
    await fs.writeFile(path.join(dir, 'package.json'), `${JSON.stringify(installed, null, 2)}\n`);
    const env = nodeEnv(nodeBinary, extraEnv);
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: dir,
      env,
      timeoutMs: 600_000,
    });
    const binPath = (bin: string) => path.join(dir, 'node_modules', '.bin', bin);
    return {
      name,
      dir,
      env,
      binPath,
      bin: (bin, args, timeoutMs) => run(binPath(bin), args, { cwd: dir, env, ...(timeoutMs ? { timeoutMs } : {}) }),
      release,
    };
  } catch (err) {
    await release();
    throw err;
  }
}
