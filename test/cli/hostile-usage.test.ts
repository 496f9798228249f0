/**
 * The command line against what a user can get wrong: someone else's files as --out or --declaration,
 * base URLs that are no http(s) URL, a sync stopped by a signal, empty or malformed values.
 * Each test runs the real CLI (from source) against the real local service.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCli, spawnCli } from '../helpers/cli.js';
import { LOCK_FILE } from '../../src/snapshot/lock.js';
import { PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let slow: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ latencyMs: 150 });
  slow = await startTestServer({ latencyMs: 3_000 });
  dir = mkdtempSync(path.join(tmpdir(), 'cs-hostile-usage-'));
});
afterAll(async () => {
  await server?.close();
  await slow?.close();
  rmSync(dir, { recursive: true, force: true });
});

const syncArgs = (out: string) => ['sync', '--base-url', server.url, '--token', PUBLIC, '--out', out];

describe("content-sync with other people's files", () => {
  it('sync refuses a directory holding files that are not a snapshot, leaving them untouched', async () => {
    const pub = path.join(dir, 'public');
    mkdirSync(pub);
    const manifest = '{"name":"My PWA","icons":[]}\n';
    writeFileSync(path.join(pub, 'manifest.json'), manifest);
    writeFileSync(path.join(pub, 'index.html'), '<!doctype html>\n');
    const r = await runCli(syncArgs(pub));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a snapshot/);
    expect(readFileSync(path.join(pub, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(readdirSync(pub).sort()).toEqual(['index.html', 'manifest.json']);
  }, 120_000);

  it('sync refuses a space directory that demo wrote, which it would have mixed with the synced space', async () => {
    const space = path.join(dir, 'demo-space');
    expect((await runCli(['demo', '--out', space, '--stories', '10'])).code).toBe(0);
    const listing = readdirSync(space).sort();
    const records = readdirSync(path.join(space, 'stories')).sort();
    const manifest = readFileSync(path.join(space, 'manifest.json'), 'utf8');
    const r = await runCli(syncArgs(space));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a snapshot/);
    expect(readdirSync(space).sort()).toEqual(listing);
    expect(readdirSync(path.join(space, 'stories')).sort()).toEqual(records);
    expect(readFileSync(path.join(space, 'manifest.json'), 'utf8')).toBe(manifest);
  }, 120_000);

  it('compile refuses to overwrite a project file in --out or at --declaration', async () => {
    const snap = path.join(dir, 'snap-for-compile');
    expect((await runCli(syncArgs(snap))).code).toBe(0);
    const src = path.join(dir, 'proj', 'src');
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'index.js'), 'console.log("my app");\n');
    const r = await runCli(['compile', '--snapshot', snap, '--out', src]);
    expect(r.code).not.toBe(0);
    expect(readFileSync(path.join(src, 'index.js'), 'utf8')).toBe('console.log("my app");\n');

    const pkg = path.join(dir, 'proj', 'package.json');
    writeFileSync(pkg, '{"name":"mine"}\n');
    const d = await runCli(['compile', '--snapshot', snap, '--out', path.join(dir, 'mods'), '--declaration', pkg]);
    expect(d.code).not.toBe(0);
    expect(readFileSync(pkg, 'utf8')).toBe('{"name":"mine"}\n');
  }, 120_000);

  it("compile refuses a project's src whose files bear no name the compile writes, writing nothing there", async () => {
    const snap = path.join(dir, 'snap-for-src');
    expect((await runCli(syncArgs(snap))).code).toBe(0);
    const src = path.join(dir, 'vite-app', 'src');
    mkdirSync(path.join(src, 'assets'), { recursive: true });
    writeFileSync(path.join(src, 'main.ts'), 'import "./style.css";\n');
    writeFileSync(path.join(src, 'style.css'), 'body {}\n');
    const r = await runCli(['compile', '--snapshot', snap, '--out', src, '--declaration', 'none']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/did not write \(assets, main\.ts, style\.css\)/);
    expect(readdirSync(src).sort()).toEqual(['assets', 'main.ts', 'style.css']);

    // Its own output, declarations inside, compiles again when its state is gone (a compile killed on the way leaves none).
    const mods = path.join(dir, 'vite-app', 'mods');
    const own = ['compile', '--snapshot', snap, '--out', mods, '--declaration', path.join(mods, 'content.d.ts')];
    expect((await runCli(own)).code).toBe(0);
    rmSync(path.join(mods, '.content-sync-compile.json'));
    expect((await runCli(own)).code).toBe(0);
  }, 120_000);
});

describe('content-sync compile --declaration', () => {
  it('names a directory given as --declaration, and refuses an empty one as a usage error', async () => {
    const snap = path.join(dir, 'snap-for-declaration');
    expect((await runCli(syncArgs(snap))).code).toBe(0);
    const types = path.join(dir, 'types-dir');
    mkdirSync(types);
    const r = await runCli([
      'compile',
      '--snapshot',
      snap,
      '--out',
      path.join(dir, 'decl-mods'),
      '--declaration',
      types,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${types} is a directory`);
    expect(r.stderr).not.toMatch(/EISDIR/);
    expect(readdirSync(types)).toEqual([]);
    const empty = await runCli([
      'compile',
      '--snapshot',
      snap,
      '--out',
      path.join(dir, 'decl-mods'),
      '--declaration',
      '',
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--declaration must name a file/);
  }, 120_000);
});

describe('content-sync flags given an empty value', () => {
  it('sync --events and compile --schema refuse an empty value as a usage error (it was silently ignored)', async () => {
    const events = await runCli([
      'sync',
      '--base-url',
      'http://127.0.0.1:1',
      '--token',
      't',
      '--out',
      path.join(dir, 'ev'),
      '--events',
      '',
    ]);
    expect(events.code).toBe(2);
    expect(events.stderr).toMatch(/--events needs a file/);
    const schema = await runCli([
      'compile',
      '--snapshot',
      path.join(dir, 'none'),
      '--out',
      path.join(dir, 'sc'),
      '--schema',
      '',
    ]);
    expect(schema.code).toBe(2);
    expect(schema.stderr).toMatch(/--schema needs a file/);
  }, 120_000);

  it('serve refuses a slowms longer than a timer holds (it fired after 1 ms)', async () => {
    const r = await runCli([
      'serve',
      '--data',
      path.join(dir, 'none'),
      '--port',
      '0',
      '--faults',
      'slow=1,slowms=3000000000',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/slowms is at most 2147483647/);
  }, 120_000);
});

describe('content-sync base URLs', () => {
  it('sync refuses a base URL that is not http(s) at once, as a usage error naming the flag', async () => {
    const started = performance.now();
    const r = await runCli(['sync', '--base-url', 'ftp://example.com', '--token', 't', '--out', path.join(dir, 'ftp')]);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-url/);
  }, 120_000);

  it('watch --out refuses a base URL that is not a URL when it starts, not at every webhook', async () => {
    const child = spawnCli([
      'watch',
      '--port',
      '0',
      '--secret',
      's',
      '--out',
      path.join(dir, 'w'),
      '--base-url',
      'notaurl',
      '--token',
      't',
      '--',
      process.execPath,
      '-e',
      '0',
    ]);
    const timer = setTimeout(() => child.kill('SIGTERM'), 8_000);
    const r = await collect(child);
    clearTimeout(timer);
    expect(r.stdout).not.toMatch(/listening on/);
    expect(r.code).toBe(2);
  }, 120_000);
});

describe('content-sync --host', () => {
  /** The command's output, stopped after 8 s if it is still running (listening). */
  const run = async (args: string[]) => {
    const child = spawnCli(args);
    const timer = setTimeout(() => child.kill('SIGTERM'), 8_000);
    const r = await collect(child);
    clearTimeout(timer);
    return r;
  };

  it('serve and watch refuse an empty --host, which would listen on every interface', async () => {
    const space = path.join(dir, 'host-space');
    expect((await runCli(['demo', '--out', space, '--stories', '10'])).code).toBe(0);
    const [serve, watch] = await Promise.all([
      run(['serve', '--data', space, '--port', '0', '--admin', '--host', '']),
      run(['watch', '--port', '0', '--secret', 's', '--host', '', '--', process.execPath, '-e', '0']),
    ]);
    for (const r of [serve, watch]) {
      expect(r.stdout).not.toMatch(/listening on/);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--host must not be empty/);
    }
  }, 120_000);
});

describe('content-sync signals', () => {
  /**
   * The sync holds its snapshot's lock (taken after the CLI handles signals): a fixed wait was
   * shorter than the start of the CLI on a loaded machine, and the signal killed it unhandled.
   */
  const syncUnderWay = async (out: string): Promise<void> => {
    const until = Date.now() + 60_000;
    while (!existsSync(path.join(out, LOCK_FILE))) {
      if (Date.now() > until) throw new Error(`no sync took the lock of ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('sync stopped by SIGTERM ends as 143 and leaves no staging behind', async () => {
    const out = path.join(dir, 'term');
    const child = spawnCli(['sync', '--base-url', slow.url, '--token', PUBLIC, '--out', out]);
    const done = collect(child);
    await syncUnderWay(out);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(143);
    expect(existsSync(path.join(out, '.txn'))).toBe(false);
  }, 120_000);

  it('sync stopped by SIGINT exits 130', async () => {
    const out = path.join(dir, 'int');
    const child = spawnCli(['sync', '--base-url', slow.url, '--token', PUBLIC, '--out', out]);
    const done = collect(child);
    await syncUnderWay(out);
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
  }, 120_000);
});

describe('content-sync small things', () => {
  it('serve --data and compile --snapshot naming a file say so (not ENOTDIR of a file of their own)', async () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a directory\n');
    const served = await runCli(['serve', '--data', file, '--port', '0']);
    expect(served.code).not.toBe(0);
    expect(served.stderr).toContain(`${file} is a file, not a snapshot or space directory`);
    const compiled = await runCli(['compile', '--snapshot', file, '--out', path.join(dir, 'out-of-a-file')]);
    expect(compiled.code).not.toBe(0);
    expect(compiled.stderr).toContain(`${file} is a file, not a snapshot or space directory`);
    expect(readFileSync(file, 'utf8')).toBe('not a directory\n');
  });

  it('serve refuses an empty token (which would lock every reader out)', async () => {
    const data = path.join(dir, 'space');
    expect((await runCli(['demo', '--out', data, '--stories', '10'])).code).toBe(0);
    const child = spawnCli(['serve', '--data', data, '--port', '0', '--public-token', '']);
    const timer = setTimeout(() => child.kill('SIGTERM'), 8_000);
    const r = await collect(child);
    clearTimeout(timer);
    expect(r.code).toBe(2);
  }, 120_000);

  it('a malformed CONTENT_REDIS_LEASE_MS is named as the variable, not as a flag', async () => {
    const r = await runCli(syncArgs(path.join(dir, 'lease')), { CONTENT_REDIS_LEASE_MS: 'abc' });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('--CONTENT_REDIS_LEASE_MS');
    expect(r.stderr).toContain('CONTENT_REDIS_LEASE_MS');
  }, 120_000);

  it('store -h prints its help', async () => {
    const r = await runCli(['store', '-h']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: content-sync store prune/);
  }, 120_000);
});
