/**
 * Shared pieces of the sync tests: temporary snapshot directories, reading a
 * snapshot back byte by byte, the control plane over HTTP and a webhook
 * receiver.
 */
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Pacer } from '../../src/client/index.js';
import { generateDemoSpace } from '../../src/demo/index.js';
import { startServer } from '../../src/server/index.js';
import { parseWebhookEvent, type SyncOptions, type WebhookEvent } from '../../src/sync/index.js';
import { random } from '../helpers/random.js';
import { PUBLIC } from '../helpers/server.js';

/**
 * Client options for a service whose rate limits are off: the pacer aims far
 * above the contract's tiers, so requests are not spaced out.
 */
export const unpaced = (): Pick<SyncOptions, 'client'> => ({ client: { pacer: new Pacer({ target: 50 }) } });

const made: string[] = [];

/** A fresh directory under the system's temporary directory. */
export async function tempDir(label = 'sync'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `content-sync-${label}-`));
  made.push(dir);
  return dir;
}

/** Removes every directory `tempDir` made. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
}

/** Every file below a directory, as sorted relative paths. */
export async function walk(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(dir, child)));
    else out.push(child);
  }
  return out.sort();
}

/** Every file of a snapshot (relative path -> text), manifest.json without `synced_at`. */
export async function readTree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const rel of await walk(dir)) {
    let text = await fs.readFile(path.join(dir, rel), 'utf8');
    if (rel === 'manifest.json') {
      const manifest = JSON.parse(text) as Record<string, unknown>;
      delete manifest.synced_at;
      // What a sync of events leaves for the next census (where it takes up), not content.
      delete manifest.last_complete;
      text = JSON.stringify(manifest, null, 2);
    }
    files.set(rel, text);
  }
  return files;
}

/** Modification times of every file of a directory. */
export async function mtimes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const rel of await walk(dir)) out.set(rel, (await fs.stat(path.join(dir, rel))).mtimeMs);
  return out;
}

/** The paths whose bytes differ between two trees (missing on either side included). */
export function treeDiff(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [rel, text] of a) if (b.get(rel) !== text) out.push(rel);
  for (const rel of b.keys()) if (!a.has(rel)) out.push(rel);
  return out.sort();
}

export async function readJsonFile<T = any>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

/** One control-plane call; throws unless 2xx. */
export async function admin(baseUrl: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${baseUrl}/__admin${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /__admin${route} -> ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * A control-plane call the service may refuse (a slug taken, a folder into itself), for randomized
 * tests: what was asked, and the refusal if there was one (it is part of the log).
 */
export async function attemptAdmin(baseUrl: string, method: string, route: string, body?: unknown): Promise<string> {
  const asked = `${method} ${route}${body === undefined ? '' : ` ${JSON.stringify(body)}`}`;
  try {
    await admin(baseUrl, method, route, body);
    return asked;
  } catch (err) {
    return `${asked} (refused: ${(err as Error).message.slice(0, 80)})`;
  }
}

/** Total requests the service counted since start (or the last reset). */
/**
 * A 20-story demo service with the control plane on and a clock moved on by hand (`later()`, an
 * hour), so publications fall before or after a sync's watermark as a test needs them to.
 */
export async function clockedService() {
  let time = Date.parse('2026-01-01T00:00:00Z');
  const clock = () => new Date(time);
  const server = await startServer({
    space: generateDemoSpace({ stories: 20 }),
    clock,
    rateLimit: false,
    admin: true,
    publicToken: PUBLIC,
  });
  /** Creates a story at the root (or under `parent_id`), published unless told otherwise; its id. */
  const create = async (body: Record<string, unknown>, publish = true): Promise<number> => {
    const { story } = await admin(server.url, 'POST', '/stories', { parent_id: 0, ...body });
    if (publish) await admin(server.url, 'POST', `/stories/${story.id}/publish`);
    return story.id;
  };
  return { server, clock, create, later: () => (time += 3_600_000) };
}

export async function serviceRequests(baseUrl: string): Promise<number> {
  const stats = (await admin(baseUrl, 'GET', '/stats')) as { total: number };
  return stats.total;
}

export interface Receiver {
  url: string;
  /** Parsed payloads in arrival order. */
  events: WebhookEvent[];
  /** Hands over what arrived so far and starts a new batch. */
  take(): WebhookEvent[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that answers 202 and keeps the parsed payloads. */
export async function startReceiver(): Promise<Receiver> {
  const events: WebhookEvent[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = parseWebhookEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      if (event) events.push(event);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    events,
    take: () => events.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A small seeded generator (mulberry32, see random), so that a failing sequence can be replayed. */
export class Prng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = random(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }
}
