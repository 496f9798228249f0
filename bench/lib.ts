/**
 * Shared pieces of the benchmarks: a service in its own process (so that
 * the load generator does not share its event loop), a keep-alive HTTP load
 * loop, percentiles and cached demo spaces.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import http from 'node:http';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATA = path.join(ROOT, 'bench', '.data');
const CLI = path.join(ROOT, 'src', 'cli', 'run.ts');

export interface CliOptions {
  /** Node flags after `--import tsx` (e.g. another `--import`). */
  node?: string[];
  /** A command that runs node (e.g. `['time', '-v']`). */
  wrap?: string[];
  env?: NodeJS.ProcessEnv;
}

export function cli(args: string[], options: CliOptions = {}): ChildProcess {
  return script(CLI, args, options);
}

/** A TypeScript script in its own node process. */
export function script(file: string, args: string[], options: CliOptions = {}): ChildProcess {
  return node(['--import', 'tsx', ...(options.node ?? []), file, ...args], options);
}

/** A node process with these arguments (after `options.wrap`), its output piped. */
function node(args: string[], options: CliOptions): ChildProcess {
  const command = [...(options.wrap ?? []), process.execPath, ...args];
  return spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
}

/** Runs the command line to its end. */
export async function runCli(
  args: string[],
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return finished(cli(args, options));
}

let built = false;

/**
 * The CLI as it is installed (`bin/content-sync.js` over `dist/`, compiled
 * from the current sources first, once a run) in its own node process: what
 * users run, without the TypeScript loader the other commands go through.
 * `options.node`: node flags; `options.wrap`: a command that runs node.
 */
export async function runBuiltCli(
  args: string[],
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!built) {
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')],
      { cwd: ROOT, stdio: 'inherit' },
    );
    built = true;
  }
  return finished(node([...(options.node ?? []), path.join(ROOT, 'bin', 'content-sync.js'), ...args], options));
}

/** Waits for a child process to end; its output, whole. */
export async function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => out.push(c));
  child.stderr!.on('data', (c: Buffer) => err.push(c));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

/** A demo space of `stories` stories, generated once and kept under bench/.data. */
export async function demoSpace(stories: number): Promise<string> {
  const dir = path.join(DATA, `demo-${stories}`);
  if (existsSync(path.join(dir, 'manifest.json'))) return dir;
  const child = cli(['demo', '--out', dir, '--stories', String(stories)]);
  child.stderr!.pipe(process.stderr);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`demo generation failed (${code})`);
  return dir;
}

export interface ServedSpace {
  url: string;
  /** What the service printed about loading the space (stderr lines). */
  log: string[];
  stop(): Promise<void>;
}

export async function serve(dir: string, extra: string[] = []): Promise<ServedSpace> {
  const child = cli([
    'serve',
    '--data',
    dir,
    '--port',
    '0',
    '--public-token',
    'bench-public',
    '--preview-token',
    'bench-preview',
    ...extra,
  ]);
  const log: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => log.push(l));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${log.join('\n')}`)));
  });
  return {
    url,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function get(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A JSON request (the control plane); rejects on a status other than 2xx. */
export function json<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300)
            reject(new Error(`${method} ${new URL(url).pathname}: ${status} ${text.slice(0, 200)}`));
          else resolve(JSON.parse(text) as T);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Sends requests from `next()` with `concurrency` in flight for `ms`; returns count and statuses. */
export async function load(
  next: () => string,
  concurrency: number,
  ms: number,
): Promise<{ requests: number; seconds: number; statuses: Map<number, number> }> {
  const statuses = new Map<number, number>();
  let requests = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const { status } = await get(next());
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        requests++;
      }
    }),
  );
  return { requests, seconds: (performance.now() - started) / 1000, statuses };
}

export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await fn();
  return [value, performance.now() - t];
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** The system's load averages (1, 5 and 15 minutes), printed beside figures that other work on the machine moves. */
export const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
