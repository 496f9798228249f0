/**
 * A fleet of 12 builders started at once on one token, against the rate-limited local service
 * (3,000-story demo, 40 ms latency), each a `content-sync sync` process of its own:
 *   - with a store (s3rver, in this process) and Redis (Debian's redis-server): requests the API
 *     saw against one direct sync's, 429s, wall time, and every snapshot against the direct one;
 *   - without them: the requests, 429s and wall time of 12 plain syncs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { snapshotDigests } from '../src/store/files.js';
import { cli, demoSpace, finished, json, type ServedSpace, serve } from './lib.js';

const BUILDERS = 12;
const STORIES = 3000;
const LATENCY_MS = 40;
const TOKEN = 'bench-public';

interface Stats {
  total: number;
  by_status: Record<string, number>;
}

/** A snapshot's files by digest, its manifest without the time it was synced. */
async function fingerprint(dir: string): Promise<string> {
  const digests = await snapshotDigests(dir);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  delete manifest.synced_at;
  digests.set('manifest.json', JSON.stringify(manifest));
  return JSON.stringify([...digests]);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise<void>((resolve) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => d.includes('Ready to accept') && resolve());
  });
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** `BUILDERS` syncs started at once into fresh directories: wall time, what the service counted, the snapshots. */
async function fleet(s: ServedSpace, root: string, extra: string[], env: NodeJS.ProcessEnv) {
  await new Promise((r) => setTimeout(r, 1100)); // The service's bucket refills.
  await json('POST', `${s.url}/__admin/stats/reset`);
  const outs = Array.from({ length: BUILDERS }, (_, i) => path.join(root, `b${i}`));
  const started = performance.now();
  const results = await Promise.all(
    outs.map((out) => finished(cli(['sync', '--base-url', s.url, '--token', TOKEN, '--out', out, ...extra], { env }))),
  );
  const wallMs = performance.now() - started;
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length) throw new Error(`${failed.length} builder(s) failed: ${failed[0]!.stderr}`);
  const stats = await json<Stats>('GET', `${s.url}/__admin/stats`);
  return { wallMs, stats, outs, results };
}

export async function benchFleet(): Promise<void> {
  const dir = await demoSpace(STORIES);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-fleet-bench-'));
  const s = await serve(dir, ['--admin', '--latency', String(LATENCY_MS)]);
  const redis = await startRedis();
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: path.join(root, 's3'),
    configureBuckets: [{ name: 'bench' }],
  });
  const { port } = (await s3.run()) as AddressInfo;
  const env = {
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
  };
  try {
    await new Promise((r) => setTimeout(r, 1100));
    await json('POST', `${s.url}/__admin/stats/reset`);
    const reference = path.join(root, 'direct');
    const startedOne = performance.now();
    const one = await finished(cli(['sync', '--base-url', s.url, '--token', TOKEN, '--out', reference]));
    const oneMs = performance.now() - startedOne;
    if (one.code !== 0) throw new Error(`the direct sync failed: ${one.stderr}`);
    const oneStats = await json<Stats>('GET', `${s.url}/__admin/stats`);
    const expected = await fingerprint(reference);
    console.log(
      `fleet: one direct sync of ${STORIES} stories (--latency ${LATENCY_MS}): ${oneStats.total} requests, ${oneStats.by_status['429'] ?? 0} 429s, ${(oneMs / 1000).toFixed(1)} s`,
    );

    const shared = await fleet(
      s,
      path.join(root, 'shared'),
      ['--store', 's3://bench/fleet', '--redis', redis.url],
      env,
    );
    const same = (await Promise.all(shared.outs.map(fingerprint))).filter((f) => f === expected).length;
    const followers = shared.results.filter((r) => /another builder synced it/.test(r.stdout)).length;
    console.log(
      `fleet: ${BUILDERS} builders with store + Redis: ${shared.stats.total} requests (${(shared.stats.total / oneStats.total).toFixed(2)}x one sync), ` +
        `${shared.stats.by_status['429'] ?? 0} 429s, ${followers} took the syncer's snapshot, ${same}/${BUILDERS} snapshots identical to the direct sync, ` +
        `wall ${(shared.wallMs / 1000).toFixed(1)} s (${(shared.wallMs / oneMs).toFixed(2)}x one direct sync)`,
    );

    const alone = await fleet(s, path.join(root, 'alone'), [], {});
    const sameAlone = (await Promise.all(alone.outs.map(fingerprint))).filter((f) => f === expected).length;
    console.log(
      `fleet: ${BUILDERS} builders without them: ${alone.stats.total} requests (${(alone.stats.total / oneStats.total).toFixed(2)}x one sync), ` +
        `${alone.stats.by_status['429'] ?? 0} 429s, ${sameAlone}/${BUILDERS} snapshots identical, wall ${(alone.wallMs / 1000).toFixed(1)} s (${(alone.wallMs / oneMs).toFixed(2)}x one direct sync)`,
    );
  } finally {
    await s.stop();
    await s3.close();
    redis.child.kill('SIGTERM');
    await fs.rm(root, { recursive: true, force: true });
  }
}
