import { mkdtemp, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSpaceDirectory } from '../../src/snapshot/index.js';
import { collect, runCli, spawnCli } from '../helpers/cli.js';
import { fixtureSpace } from '../helpers/fixture-space.js';

let dir: string;
let data: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'content-sync-cli-'));
  data = path.join(dir, 'space');
  await writeSpaceDirectory(data, fixtureSpace());
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The first line serve prints on standard output. */
function listeningLine(child: ReturnType<typeof spawnCli>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (d: string) => {
      seen += d;
      const nl = seen.indexOf('\n');
      if (nl !== -1) {
        child.stdout.off('data', onData);
        resolve(seen.slice(0, nl));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)));
  });
}

describe('content-sync serve', () => {
  it('prints one line "listening on http://127.0.0.1:<port>", serves, and ends with 0 on SIGTERM', async () => {
    const child = spawnCli(['serve', '--data', data, '--port', '0', '--public-token', 'cli-token', '--admin']);
    const done = collect(child);
    try {
      const line = await listeningLine(child);
      const m = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
      expect(m, line).not.toBeNull();
      const base = m![1]!;
      expect(Number(m![2])).toBeGreaterThan(0);

      const space = await fetch(`${base}/v2/cdn/spaces/me?token=cli-token`);
      expect(space.status).toBe(200);
      const { space: s } = (await space.json()) as { space: { id: number; version: number } };
      expect(s.id).toBe(4242);
      const story = await fetch(`${base}/v2/cdn/stories/blog/first-post?token=cli-token&cv=${s.version}`);
      expect(story.status).toBe(200);
      expect(((await story.json()) as { story: { id: number } }).story.id).toBe(12);
      expect((await fetch(`${base}/__admin/stats`)).status).toBe(200);
      expect((await fetch(`${base}/v2/cdn/spaces/me?token=local-public-token`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    const result = await done;
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  it('takes its tokens from CONTENT_PUBLIC_TOKEN and CONTENT_PREVIEW_TOKEN, off the command line', async () => {
    const env = { CONTENT_PUBLIC_TOKEN: 'env-public', CONTENT_PREVIEW_TOKEN: 'env-preview' };
    const child = spawnCli(['serve', '--data', data, '--port', '0'], env);
    const done = collect(child);
    try {
      const base = /^listening on (\S+)$/.exec(await listeningLine(child))![1]!;
      const status = async (query: string) => (await fetch(`${base}/v2/cdn/stories/blog/first-post?${query}`)).status;
      expect(await status('token=env-public')).toBe(200);
      expect(await status('token=env-public&version=draft')).toBe(401);
      expect(await status('token=env-preview&version=draft')).toBe(200);
      expect(await status('token=local-public-token')).toBe(401);
      expect(await status('token=local-preview-token&version=draft')).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await done).code).toBe(0);
  });

  it("bad flags exit 2 with what is wrong and where serve's options are, on stderr", async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--data', 'x', '--bogus'], /unknown option --bogus/],
      [['serve', '--port', '0'], /serve needs --data DIR/],
      [['serve', '--data', 'x', '--port', 'abc'], /--port must be a whole number/],
      [['serve', '--data', 'x', '--webhook-url', 'not a url', '--webhook-secret', 's'], /--webhook-url is not a URL/],
      [['serve', '--data', 'x', '--faults', 'explode=0.5'], /--faults: unknown kind "explode"/],
    ];
    // Each run starts a Node process: run them side by side.
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      const what = `content-sync ${args.join(' ')}`;
      expect(result.code, what).toBe(2);
      expect(result.stderr, what).toMatch(message);
      expect(result.stderr, what).toMatch(/\nRun `content-sync serve --help` for its options\.\n$/);
      expect(result.stdout, what).toBe('');
    });
  });

  it('serve --data /nonexistent exits 1 with a clear message', async () => {
    const missing = path.join(dir, 'nonexistent');
    const result = await runCli(['serve', '--data', missing, '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^content-sync serve: /);
    expect(result.stderr).toContain(missing);
    expect(result.stderr.split('\n').filter((l) => l !== '').length).toBeLessThanOrEqual(3);
  });

  it('serve and watch on a port in use exit 1 naming the port and the flag that picks another', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      for (const args of [
        ['serve', '--data', data, '--port', port],
        ['watch', '--port', port, '--secret', 'x', '--', 'true'],
      ]) {
        const result = await runCli(args);
        expect(result.code, args[0]).toBe(1);
        expect(result.stderr, args[0]).toMatch(
          new RegExp(`^content-sync ${args[0]}: port ${port} is in use .*--port 0 for any free one`),
        );
      }
    } finally {
      taken.close();
    }
  });
});
