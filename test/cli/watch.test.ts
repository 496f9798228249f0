/**
 * `content-sync watch` in its own process against the real local service:
 * webhook checks, coalescing, one build at a time, clean stop; and
 * `content-sync sync` narrowed by CONTENT_WEBHOOK_PAYLOAD.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestStats, RunningServer } from '../../src/server/index.js';
import { collect, runCli, spawnCli, type CliResult } from '../helpers/cli.js';
import { WriterLock } from '../../src/snapshot/lock.js';
import { openForReading } from '../../src/snapshot/transaction.js';
import { reply, startHostile } from '../client/hostile.js';
import { PUBLIC_TOKEN, SECRET, admin, postWebhook, publishTitle, startService, waitFor } from '../vite/support.js';

/** A build that logs its start, waits for `release` to exist, then logs its end. */
const BUILD_SCRIPT = [
  "const fs = require('node:fs');",
  'const [log, release] = process.argv.slice(1);',
  "fs.appendFileSync(log, `start ${process.pid} ${process.env.CONTENT_WEBHOOK_PAYLOAD ?? ''}\\n`);",
  'const wait = () => fs.existsSync(release) ? fs.appendFileSync(log, `end ${process.pid}\\n`) : setTimeout(wait, 20);',
  'setTimeout(wait, 50);',
].join('\n');

/** The build command (after `--`) that runs BUILD_SCRIPT with its log and release files. */
const build = (log: string, release: string) => ['--', process.execPath, '-e', BUILD_SCRIPT, log, release];

interface Watch {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  done: Promise<CliResult>;
}

async function startWatch(args: string[]): Promise<Watch> {
  const child = spawnCli(['watch', '--port', '0', '--secret', SECRET, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = collect(child);
  const url = await waitFor(
    'watch to listen',
    () =>
      /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ??
      (child.exitCode !== null ? Promise.reject(new Error(stderr)) : undefined),
  );
  return { child, url, stderr: () => stderr, done };
}

const count = (text: string, re: RegExp) => (text.match(new RegExp(re.source, 'gm')) ?? []).length;

/**
 * The lines the builds wrote: every start is followed by its own end before the
 * next start; with `finished`, the last build has ended too.
 */
async function builds(log: string, finished = true): Promise<{ starts: number; lines: string[] }> {
  const lines = existsSync(log) ? (await fs.readFile(log, 'utf8')).trim().split('\n').filter(Boolean) : [];
  let open: string | undefined;
  for (const line of lines) {
    const [kind, pid] = line.split(' ');
    if (kind === 'start') {
      expect(open, `a build started while build ${open} was running:\n${lines.join('\n')}`).toBeUndefined();
      open = pid;
    } else {
      expect(pid).toBe(open);
      open = undefined;
    }
  }
  if (finished) expect(open).toBeUndefined();
  return { starts: lines.filter((l) => l.startsWith('start')).length, lines };
}

const published = (id: number, slug: string) =>
  JSON.stringify({ text: 'published', action: 'published', space_id: 4242, story_id: id, full_slug: slug });

describe('content-sync watch', () => {
  let service: RunningServer;
  let dir: string;
  let out: string;

  beforeAll(async () => {
    service = await startService();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-watch-'));
    out = path.join(dir, 'snapshot');
    const first = await runCli(['sync', '--base-url', service.url, '--token', PUBLIC_TOKEN, '--out', out]);
    expect(first.code, first.stderr).toBe(0);
  });

  afterAll(async () => {
    await service?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** A watch syncing from `url` into the snapshot, whose builds (released at once) log to `<name>.log`. */
  async function syncingWatch(url: string, name: string): Promise<{ w: Watch; log: string }> {
    const log = path.join(dir, `${name}.log`);
    const release = path.join(dir, `${name}.release`);
    await fs.writeFile(release, '');
    const w = await startWatch(['--base-url', url, '--token', PUBLIC_TOKEN, '--out', out, ...build(log, release)]);
    return { w, log };
  }

  it('checks webhooks, coalesces a burst into at most two builds, syncs what they name, and stops on SIGTERM', async () => {
    const { w, log } = await syncingWatch(service.url, 'burst');
    try {
      expect(w.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(
        (await postWebhook(`${w.url}/any/path`, published(12, 'blog/first-post'), { signature: 'bad' })).status,
      ).toBe(401);
      expect((await postWebhook(`${w.url}/`, published(12, 'blog/first-post'), { signature: null })).status).toBe(401);
      expect(await postWebhook(`${w.url}/hook`, '{"not json')).toMatchObject({ status: 400 });
      expect(
        (await postWebhook(`${w.url}/hook`, JSON.stringify({ action: 'published', space_id: 1, story_id: 'x' })))
          .status,
      ).toBe(400);
      expect((await postWebhook(`${w.url}/hook`, JSON.stringify({ text: 'x'.repeat(70_000) }))).status).toBe(413);
      expect((await fetch(w.url)).status).toBe(405);
      expect(await builds(log)).toMatchObject({ starts: 0 });

      await publishTitle(service, 12, 'Alpha news via watch');
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => postWebhook(`${w.url}/hook`, published(12, 'blog/first-post'))),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));

      await waitFor('the runs to finish', () => /idle: waiting for webhooks/.test(w.stderr()));
      const { starts, lines } = await builds(log);
      expect(starts).toBeGreaterThanOrEqual(1);
      expect(starts).toBeLessThanOrEqual(2);
      // The build gets the payloads of its run.
      expect(JSON.parse(lines[0]!.split(' ').slice(2).join(' '))[0]).toMatchObject({
        action: 'published',
        story_id: 12,
      });
      // The snapshot holds the published change.
      expect(await fs.readFile(path.join(out, 'stories', '12.json'), 'utf8')).toContain('Alpha news via watch');

      const err = w.stderr();
      expect(count(err, /webhook accepted: published story 12 \(blog\/first-post\)$/)).toBe(10);
      expect(count(err, /synced space 4242 .*: incremental: 1 story written/)).toBeGreaterThanOrEqual(1);
      expect(count(err, /build \d+ started: /)).toBe(starts);
      expect(count(err, /build \d+ ended: exit code 0 in [\d.]+s$/)).toBe(starts);
      expect(count(err, /webhook refused: .*\(401\)$/)).toBe(2);
    } finally {
      w.child.kill('SIGTERM');
    }
    const end = await w.done;
    expect(end.code).toBe(0);
    expect(end.signal).toBeNull();
    expect(end.stderr).toMatch(/SIGTERM: stopping/);
    expect(end.stderr).toMatch(/stopped\s*$/);
    expect(end.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('queues exactly one more run for webhooks arriving during a build, never two builds at once', async () => {
    const log = path.join(dir, 'queue.log');
    const release = path.join(dir, 'queue.release');
    const w = await startWatch(['--coalesce-ms', '20', ...build(log, release)]);
    try {
      expect((await postWebhook(`${w.url}/`, published(13, 'blog/second-post'))).status).toBe(202);
      await waitFor('the first build to start', async () => (await builds(log, false)).starts === 1);
      for (const id of [12, 14, 16]) {
        expect((await postWebhook(`${w.url}/`, published(id, `s/${id}`))).status).toBe(202);
      }
      await waitFor(
        'the webhooks to be queued',
        () => /one more run queued/.test(w.stderr()) && count(w.stderr(), /webhook accepted/) === 4,
      );
      // The first build is still waiting for the release file.
      expect((await builds(log, false)).lines.filter((l) => l.startsWith('end'))).toHaveLength(0);
      await fs.writeFile(release, '');
      await waitFor('the runs to finish', () => /idle: waiting for webhooks/.test(w.stderr()));
      const { starts, lines } = await builds(log);
      expect(starts).toBe(2);
      // The queued run carries the three events that arrived during the first build.
      const second = JSON.parse(lines[2]!.split(' ').slice(2).join(' ')) as Array<{ story_id: number }>;
      expect(second.map((e) => e.story_id).sort()).toEqual([12, 14, 16]);
    } finally {
      w.child.kill('SIGTERM');
    }
    expect((await w.done).code).toBe(0);
  });

  it('runs the build after more webhooks than an environment variable holds, passing each webhook once', async () => {
    const log = path.join(dir, 'many.log');
    const release = path.join(dir, 'many.release');
    await fs.writeFile(release, '');
    const w = await startWatch(['--coalesce-ms', '50', '--max-bytes', '1000000', ...build(log, release)]);
    try {
      // A bulk publish: 1,500 stories (about 200 KiB of payloads, over the 128 KiB Linux allows one
      // variable), then the same story told of twice.
      const bulk = Array.from({ length: 1500 }, (_, i) => JSON.parse(published(100_000 + i, `bulk/story-${i}`)));
      expect((await postWebhook(`${w.url}/`, JSON.stringify(bulk))).status).toBe(202);
      await waitFor('the build to end', () => /build 1 ended|run failed/.test(w.stderr()));
      expect(w.stderr()).toMatch(/build 1 ended: exit code 0/);
      expect(w.stderr()).toMatch(/the payloads of 1500 webhooks are over 100 KiB.*CONTENT_WEBHOOK_PAYLOAD is \[\]/);
      // Given as naming nothing: a sync given it checks every change.
      expect((await builds(log)).lines[0]).toMatch(/^start \d+ \[\]$/);

      await postWebhook(`${w.url}/`, published(12, 'blog/first-post'));
      await postWebhook(`${w.url}/`, published(12, 'blog/first-post'));
      await waitFor('the second build to end', () => /build 2 ended/.test(w.stderr()));
      const payload = JSON.parse((await builds(log)).lines[2]!.split(' ').slice(2).join(' '));
      expect(payload).toEqual([JSON.parse(published(12, 'blog/first-post'))]);
    } finally {
      w.child.kill('SIGTERM');
    }
    expect((await w.done).code).toBe(0);
  });

  it('gives the build after a failed one the webhooks of the failed one too', async () => {
    const log = path.join(dir, 'failing.log');
    const failed = path.join(dir, 'failing.once');
    // Fails the first time (its own sync met the service down, say), then succeeds.
    const script = [
      "const fs = require('node:fs');",
      'const [log, failed] = process.argv.slice(1);',
      "fs.appendFileSync(log, `start ${process.pid} ${process.env.CONTENT_WEBHOOK_PAYLOAD ?? ''}\\nend ${process.pid}\\n`);",
      "if (!fs.existsSync(failed)) { fs.writeFileSync(failed, ''); process.exit(1); }",
    ].join('\n');
    const w = await startWatch(['--coalesce-ms', '0', '--', process.execPath, '-e', script, log, failed]);
    try {
      expect((await postWebhook(`${w.url}/`, published(13, 'blog/second-post'))).status).toBe(202);
      await waitFor('the first build to fail', () => /build 1 ended: exit code 1/.test(w.stderr()));
      expect((await postWebhook(`${w.url}/`, published(14, 'blog/third-post'))).status).toBe(202);
      await waitFor('the second build to end', () => /build 2 ended: exit code 0/.test(w.stderr()));
      const { lines } = await builds(log);
      const second = JSON.parse(lines[2]!.split(' ').slice(2).join(' ')) as Array<{ story_id: number }>;
      expect(second.map((e) => e.story_id)).toEqual([13, 14]);
    } finally {
      w.child.kill('SIGTERM');
    }
    expect((await w.done).code).toBe(0);
  });

  it('starts a build during a steady stream of webhooks, at most the maximum wait after the first', async () => {
    const log = path.join(dir, 'stream.log');
    const release = path.join(dir, 'stream.release');
    await fs.writeFile(release, '');
    // One webhook every 100 ms keeps a 200 ms coalescing window open for ever; the maximum
    // wait (2 s by default) closes it.
    const w = await startWatch(['--coalesce-ms', '200', ...build(log, release)]);
    try {
      const streamEnd = Date.now() + 8000;
      let sent = 0;
      while (Date.now() < streamEnd && (await builds(log, false)).starts === 0) {
        expect((await postWebhook(`${w.url}/`, published(12, 'blog/first-post'))).status).toBe(202);
        sent++;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect((await builds(log, false)).starts, `no build started during ${sent} webhooks`).toBeGreaterThanOrEqual(1);
    } finally {
      w.child.kill('SIGTERM');
    }
    expect((await w.done).code).toBe(0);
  });

  it('fetches what a failed sync was told of with the next run, whatever that one is told of', async () => {
    let refusing = false;
    const proxy = await startHostile(service.url, async (_req, res, forward) => {
      if (refusing)
        return reply(res, { status: 401, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') });
      reply(res, await forward());
    });
    const { w, log } = await syncingWatch(proxy.url, 'failed');
    try {
      await publishTitle(service, 13, 'Beta, whose first sync failed');
      refusing = true;
      expect((await postWebhook(`${w.url}/hook`, published(13, 'blog/second-post'))).status).toBe(202);
      await waitFor('the failed sync', () =>
        /sync failed: .*the next sync fetches what this one was asked for/.test(w.stderr()),
      );
      refusing = false;
      await publishTitle(service, 14, 'Gamma, told of after');
      expect((await postWebhook(`${w.url}/hook`, published(14, 'blog/third-post'))).status).toBe(202);
      await waitFor('the build after the next sync', async () => (await builds(log, false)).starts === 1);
      expect(await fs.readFile(path.join(out, 'stories', '13.json'), 'utf8')).toContain(
        'Beta, whose first sync failed',
      );
      expect(await fs.readFile(path.join(out, 'stories', '14.json'), 'utf8')).toContain('Gamma, told of after');
      // The build is told of both.
      const { lines } = await builds(log, false);
      const payload = JSON.parse(lines[0]!.split(' ').slice(2).join(' ')) as Array<{ story_id: number }>;
      expect(payload.map((e) => e.story_id)).toEqual([13, 14]);
    } finally {
      w.child.kill('SIGTERM');
      await w.done;
      await proxy.close();
    }
  });

  it('gives the build after a refused event the webhooks of the run it failed, and syncs every change', async () => {
    const { w, log } = await syncingWatch(service.url, 'refused');
    try {
      await publishTitle(service, 15, 'Delta, beside a refused event');
      // One batch: a story id the service refuses (a 422 from by_ids) and a real change.
      const refused = JSON.stringify({ action: 'published', space_id: 4242, story_id: 1234567890123456 });
      await Promise.all([postWebhook(`${w.url}/hook`, refused), postWebhook(`${w.url}/hook`, published(15, 's/15'))]);
      await waitFor('the failed sync', () => /sync failed: .*422.*the next sync reads every change/.test(w.stderr()));
      expect((await builds(log, false)).starts).toBe(0);
      expect((await postWebhook(`${w.url}/hook`, published(16, 's/16'))).status).toBe(202);
      await waitFor('the build after the next sync', async () => (await builds(log, false)).starts === 1);
      expect(await fs.readFile(path.join(out, 'stories', '15.json'), 'utf8')).toContain(
        'Delta, beside a refused event',
      );
      const { lines } = await builds(log, false);
      const payload = JSON.parse(lines[0]!.split(' ').slice(2).join(' ')) as Array<{ story_id: number }>;
      expect(payload.map((e) => e.story_id).sort()).toEqual([1234567890123456, 15, 16].sort());
    } finally {
      w.child.kill('SIGTERM');
      await w.done;
    }
  });

  it('says whom a sync waits for, and stops at once on SIGTERM while it waits', async () => {
    const { w } = await syncingWatch(service.url, 'locked');
    // Another writer of the snapshot (a dev server's sync, say) holds it.
    const lock = await WriterLock.take(out);
    try {
      expect((await postWebhook(`${w.url}/hook`, published(12, 'blog/first-post'))).status).toBe(202);
      await waitFor('the wait to be told', () =>
        new RegExp(`waiting for process ${process.pid} to finish writing`).test(w.stderr()),
      );
      const asked = performance.now();
      w.child.kill('SIGTERM');
      const end = await w.done;
      expect(performance.now() - asked).toBeLessThan(5_000);
      expect(end.code).toBe(0);
      expect(end.stderr).toMatch(/sync stopped: stopping; the snapshot is unchanged and 1 webhook not built/);
    } finally {
      await lock.release();
    }
  });

  it('stops at once on SIGTERM while its commit waits for a compile reading the snapshot, committing nothing', async () => {
    const { w, log } = await syncingWatch(service.url, 'read');
    // A compile of another process (a dev server's, say) reads the snapshot: a commit waits for it.
    const reading = await openForReading(out);
    try {
      await publishTitle(service, 14, 'Gamma, held back by a reader');
      expect((await postWebhook(`${w.url}/hook`, published(14, 'blog/third-post'))).status).toBe(202);
      // The plan is written just before the commit waits for the readers.
      await waitFor('the commit to wait for the reader', () => existsSync(path.join(out, '.txn', 'plan.json')));
      const asked = performance.now();
      w.child.kill('SIGTERM');
      const end = await Promise.race([w.done, new Promise<undefined>((r) => setTimeout(r, 8_000))]);
      expect(end, 'watch still running 8 s after SIGTERM').toBeDefined();
      expect(performance.now() - asked).toBeLessThan(5_000);
      expect(end!.code).toBe(0);
      expect(end!.stderr).toMatch(/sync stopped: stopping; the snapshot is unchanged and 1 webhook not built/);
      expect(await fs.readFile(path.join(out, 'stories', '14.json'), 'utf8')).not.toContain('held back by a reader');
      expect((await builds(log)).starts).toBe(0);
    } finally {
      w.child.kill('SIGKILL');
      await reading.close();
    }
  });

  it('refuses to start without a build command or a secret', async () => {
    const noCommand = await runCli(['watch', '--port', '0', '--secret', 's']);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toMatch(/build command after --/);
    const noSecret = await runCli(['watch', '--port', '0', '--', 'true'], { CONTENT_WEBHOOK_SECRET: '' });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/--secret/);
  });
});

describe('content-sync sync with CONTENT_WEBHOOK_PAYLOAD', () => {
  let service: RunningServer;
  let dir: string;

  beforeAll(async () => {
    service = await startService();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'content-sync-payload-'));
    const first = await runCli(['sync', '--base-url', service.url, '--token', PUBLIC_TOKEN, '--out', dir]);
    expect(first.code, first.stderr).toBe(0);
  });

  afterAll(async () => {
    await service?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('syncs only what the payload names', async () => {
    await publishTitle(service, 14, 'Gamma, from a build hook');
    await admin(service, 'POST', 'stats/reset');
    const r = await runCli(['sync', '--base-url', service.url, '--token', PUBLIC_TOKEN, '--out', dir, '--json'], {
      CONTENT_WEBHOOK_PAYLOAD: JSON.stringify({
        text: 'x',
        action: 'published',
        space_id: 4242,
        story_id: 14,
        full_slug: 'blog/third-post',
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ ok: true, mode: 'incremental', changed: { stories: [14], removed: [] } });
    expect(r.stderr).toMatch(/CONTENT_WEBHOOK_PAYLOAD names 1 change/);
    // spaces/me, the story in each of its 2 languages, the tags: no listings, no census.
    const stats = await admin<RequestStats>(service, 'GET', 'stats');
    expect(stats.total).toBe(summary.requests);
    expect(summary.requests).toBe(4);
    expect(await fs.readFile(path.join(dir, 'stories', '14.json'), 'utf8')).toContain('Gamma, from a build hook');
  });

  it('syncs every change when the payload names no story or datasource (an asset event)', async () => {
    await publishTitle(service, 14, 'Gamma, after an asset event');
    const r = await runCli(['sync', '--base-url', service.url, '--token', PUBLIC_TOKEN, '--out', dir, '--json'], {
      CONTENT_WEBHOOK_PAYLOAD: JSON.stringify({ text: 'x', action: 'replaced', space_id: 4242, asset_id: 7 }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/CONTENT_WEBHOOK_PAYLOAD names no story or datasource: syncing every change/);
    // Found by the census a sync without events runs, though no event named it.
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ ok: true, mode: 'incremental', changed: { stories: [14], removed: [] } });
    expect(await fs.readFile(path.join(dir, 'stories', '14.json'), 'utf8')).toContain('Gamma, after an asset event');
  });

  it('refuses a payload that is not JSON, naming the variable', async () => {
    const r = await runCli(['sync', '--base-url', service.url, '--token', PUBLIC_TOKEN, '--out', dir], {
      CONTENT_WEBHOOK_PAYLOAD: '{oops',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CONTENT_WEBHOOK_PAYLOAD: /);
  });
});
