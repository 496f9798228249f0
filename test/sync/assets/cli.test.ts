/**
 * `content-sync sync --assets` against `content-sync serve`: the asset URLs
 * the served space delivers point at the service, and the sync downloads them,
 * through the faults `--faults` injects into asset downloads (and API answers).
 */
import { afterAll, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readAssetIndex, sha256 } from '../../../src/snapshot/index.js';
import { collect, runCli, spawnCli } from '../../helpers/cli.js';
import { removeTempDirs, tempDir } from '../support.js';

afterAll(removeTempDirs);

it('serve delivers its own asset URLs, and sync --assets downloads every one of them through injected faults; bad flags are usage errors', async () => {
  const space = await tempDir('cli-assets-space');
  const out = await tempDir('cli-assets-out');
  expect((await runCli(['demo', '--out', space, '--stories', '20'])).code).toBe(0);
  const faults = '503=0.1,reset=0.05,truncate=0.1,seed=5';
  const server = spawnCli(['serve', '--data', space, '--port', '0', '--no-rate-limit', '--faults', faults]);
  const done = collect(server);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      server.stdout.on('data', (d: Buffer) => {
        seen += d.toString();
        const m = /listening on (\S+)/.exec(seen);
        if (m) resolve(m[1]!);
      });
      server.on('close', () => reject(new Error(`serve ended: ${seen}`)));
    });
    const result = await runCli([
      'sync',
      '--base-url',
      url,
      '--token',
      'local-public-token',
      '--out',
      out,
      '--assets',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      assets: { referenced: number; downloaded: number; retries: number };
    };
    const index = (await readAssetIndex(out))!;
    expect(summary.assets.downloaded).toBe(Object.keys(index.files).length);
    expect(summary.assets.referenced).toBeGreaterThan(5);
    // Faults hit the downloads, and retries got every file whole (named by the digest of its bytes).
    expect(summary.assets.retries).toBeGreaterThan(0);
    for (const file of Object.values(index.files))
      expect(sha256(await fs.readFile(path.join(out, file.file)))).toBe(file.sha256);
    for (const file of Object.values(index.files)) expect(file.url.startsWith(`${url}/f/`)).toBe(true);

    // A full sync asks after every held file: none changed, none downloaded.
    const full = await runCli([
      'sync',
      '--base-url',
      url,
      '--token',
      'local-public-token',
      '--out',
      out,
      '--assets',
      '--full',
    ]);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain(
      `assets: ${summary.assets.referenced} referenced, 0 downloaded (0 B), 0 removed, ${summary.assets.referenced} confirmed unchanged`,
    );

    const usage = await runCli([
      'sync',
      '--base-url',
      url,
      '--token',
      't',
      '--out',
      out,
      '--asset-host',
      'https://x.example',
    ]);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain('need --assets');
  } finally {
    server.kill('SIGTERM');
    await done;
  }
}, 180_000);
