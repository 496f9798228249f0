/**
 * Child processes of the framework tests: a command run to its end (its
 * output kept for the error when it fails) and a dev server run until closed
 * (its URL read from what it prints). Every child leads its own process
 * group, so closing one also ends what it started (esbuild, workers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** The last lines of a process's output, for an error that says what went wrong. */
class Tail {
  #lines: string[] = [];
  constructor(readonly max = 60) {}
  push(chunk: Buffer | string): void {
    this.#lines.push(...String(chunk).split('\n'));
    if (this.#lines.length > this.max) this.#lines.splice(0, this.#lines.length - this.max);
  }
  get text(): string {
    return this.#lines.join('\n');
  }
}

function start(command: string, args: readonly string[], options: RunOptions): { child: ChildProcess; output: Tail } {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = new Tail();
  child.stdout!.on('data', (d: Buffer) => output.push(d));
  child.stderr!.on('data', (d: Buffer) => output.push(d));
  return { child, output };
}

/** Ends a child and its process group: SIGTERM, then SIGKILL after a grace period. */
async function stop(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // The group is gone already.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Runs `command` to its end; rejects with the command, its exit and the tail of its output unless it exits 0. */
export async function run(command: string, args: readonly string[], options: RunOptions): Promise<string> {
  const { child, output } = start(command, args, options);
  const all: string[] = [];
  child.stdout!.on('data', (d: Buffer) => all.push(String(d)));
  child.stderr!.on('data', (d: Buffer) => all.push(String(d)));
  const timeoutMs = options.timeoutMs ?? 300_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stop(child);
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  }).finally(() => clearTimeout(timer));
  if (code !== 0) {
    const why = timedOut ? `did not finish within ${timeoutMs / 1000} s` : `exited with ${code}`;
    throw new Error(`\`${[command, ...args].join(' ')}\` in ${options.cwd} ${why}:\n${output.text}`);
  }
  return all.join('');
}

export interface DevServer {
  /** The origin the server printed, e.g. http://127.0.0.1:5173 */
  url: string;
  /** What it printed so far (its last lines). */
  output(): string;
  close(): Promise<void>;
}

// eslint-disable-next-line no-control-regex
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes start with ESC.
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Starts a dev server and resolves once it prints a loopback URL after `Local`
 * (Vite's and Astro's banner); rejects with its output if it exits first or
 * prints none within `timeoutMs`.
 */
export async function startDevServer(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<DevServer> {
  const { child, output } = start(command, args, options);
  const printed: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `\`${[command, ...args].join(' ')}\` printed no Local URL within ${(options.timeoutMs ?? 120_000) / 1000} s:\n${output.text}`,
          ),
        ),
      options.timeoutMs ?? 120_000,
    );
    const look = (d: Buffer) => {
      printed.push(String(d).replace(ANSI, ''));
      const found = /Local\S*\s+(http:\/\/(?:127\.0\.0\.1|localhost):\d+)/.exec(printed.join(''));
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`\`${[command, ...args].join(' ')}\` exited with ${code} before printing its URL:\n${output.text}`),
      );
    });
  }).catch(async (err: unknown) => {
    await stop(child);
    throw err;
  });
  return { url, output: () => output.text, close: () => stop(child) };
}

/** A loopback port free at the time of asking, for a server that takes no port 0. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
