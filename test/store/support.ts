/**
 * Real servers for the store tests, on loopback: an S3-compatible server (s3rver, in-process,
 * the real AWS SDK client talks to it over HTTP), Debian's redis-server, and the demo space
 * served by the local service.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { generateDemoSpace } from '../../src/demo/index.js';
import { writeSpaceDirectory } from '../../src/snapshot/index.js';
import { spawnCli } from '../helpers/cli.js';
import { type FleetOptions, fleetSync } from '../../src/store/index.js';
import { unpaced } from '../sync/support.js';
import { type RunningServer, startServer } from '../../src/server/index.js';

export const BUCKET = 'snapshots';
export const TOKEN = 'fleet-token';

export interface TestS3 {
  endpoint: string;
  /** The environment a builder needs to reach it (the SDK's standard variables). */
  env: Record<string, string>;
  /** Keys created so far, in order (from the server's event notifications). */
  created: string[];
  server: S3rver;
  close(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const address = (await server.run()) as AddressInfo;
  const created: string[] = [];
  server.on('event', (e: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => {
    for (const r of e.Records)
      if (r.eventName.startsWith('ObjectCreated')) created.push(decodeURIComponent(r.s3.object.key));
  });
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    // s3rver's built-in credentials.
    env: {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: endpoint,
    },
    created,
    server,
    close: async () => {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

export interface CuttingProxy {
  endpoint: string;
  /** Downloads broken off so far. */
  cut(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy to the S3 server at `endpoint` that breaks off the first `cuts` object downloads
 * (GET .../objects/...): their headers and a few bytes of body pass, then the connection drops
 * (`drop`) or stays open with nothing more on it (`stall`).
 */
export async function cuttingProxy(
  endpoint: string,
  cuts: number,
  how: 'drop' | 'stall' = 'drop',
): Promise<CuttingProxy> {
  const target = new URL(endpoint);
  let cut = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    let cutting = false;
    let stalled = false;
    client.on('data', (chunk: Buffer) => {
      if (cut < cuts && /^GET \S*\/objects\//m.test(chunk.toString('latin1'))) {
        cut++;
        cutting = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (stalled) return;
      if (!cutting) return void client.write(chunk);
      const headers = chunk.indexOf('\r\n\r\n');
      client.write(chunk.subarray(0, headers < 0 ? chunk.length : headers + 4 + 10));
      if (how === 'stall') stalled = true;
      else {
        client.destroy();
        upstream.destroy();
      }
    });
    client.on('close', () => upstream.destroy());
    // A stalled download stays open whatever the server does: only the client's timeout ends it.
    upstream.on('close', () => stalled || client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => cut,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Sets the store's environment for in-process builders; returns a function that restores it. */
export function useEnv(env: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** The demo space served with its control plane (rate limits off unless asked). */
export function serveDemo(
  stories: number,
  options: { latencyMs?: number; rateLimit?: boolean } = {},
): Promise<RunningServer> {
  return startServer({
    space: generateDemoSpace({ stories, seed: 7 }),
    publicToken: TOKEN,
    rateLimit: options.rateLimit ?? false,
    admin: true,
    latencyMs: options.latencyMs ?? 0,
    assetUrls: 'self',
  });
}

export interface TestRedis {
  url: string;
  /** Sends the server a signal (SIGSTOP pauses it: connections stay open and nothing answers; SIGCONT resumes it). */
  signal(signal: NodeJS.Signals): void;
  close(): Promise<void>;
}

/** A port free a moment ago (redis-server takes no port 0; another process could take it first, which fails the start loudly). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Debian's redis-server on a free loopback port, without persistence. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('Ready to accept connections')) resolve();
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    signal: (signal) => child.kill(signal),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The arguments of `content-sync sync` from `service` into `out`. */
/**
 * Environment for a CLI run in which the AWS SDK and the Redis client cannot be imported
 * (fixtures/without-optional.mjs), proving a feature never loaded them or refused clearly.
 */
export const WITHOUT_OPTIONAL = {
  NODE_OPTIONS: `--import ${fileURLToPath(new URL('./fixtures/without-optional.mjs', import.meta.url))}`,
};

export const syncArgs = (service: RunningServer, out: string): string[] => [
  'sync',
  '--base-url',
  service.url,
  '--token',
  TOKEN,
  '--out',
  out,
];

/** A builder syncing `service` into `out` through the fleet options given, its warnings kept. */
export async function runBuilder(service: RunningServer, out: string, options: Partial<FleetOptions>) {
  const warnings: string[] = [];
  const result = await fleetSync({
    baseUrl: service.url,
    token: TOKEN,
    out,
    log: (m) => warnings.push(m),
    ...unpaced(),
    ...options,
  });
  return { ...result, out, warnings };
}

/** The demo space served with its rate limits by `content-sync serve` in a process of its own. */
export async function serveDemoProcess(stories: number): Promise<{ url: string; close(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-served-'));
  await writeSpaceDirectory(dir, generateDemoSpace({ stories, seed: 7 }));
  const child = spawnCli(['serve', '--data', dir, '--port', '0', '--public-token', TOKEN, '--admin']);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`serve exited (${code})`)));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
