/**
 * What serve's log says of its webhook URL: a receiver's secret rides in its query (a build hook's
 * `?secret=`) or user info, and the log goes to terminals and CI logs. The real command, a real
 * receiver on loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, verifyWebhook } from '../../src/server/index.js';
import { writeSpaceDirectory } from '../../src/snapshot/index.js';
import { collect, spawnCli } from '../helpers/cli.js';
import { fixtureSpace } from '../helpers/fixture-space.js';

const HOOK_SECRET = 'hook-query-secret-5e1a';
const SIGNING_SECRET = 'signing-secret-from-env-77d0';
let dir: string;
let data: string;
let receiver: http.Server;
let hook: string;
const kept: Array<{ body: string; signature: string }> = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'content-sync-serve-hook-'));
  data = path.join(dir, 'space');
  await writeSpaceDirectory(data, fixtureSpace());
  // A receiver that refuses every webhook at /hook, so that serve logs each one, and keeps those at /ok.
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!req.url?.startsWith('/ok')) return res.writeHead(500).end();
      kept.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['webhook-signature']) });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Resolves with the first match of `pattern` in what `stream` says. */
function said(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<RegExpExecArray> {
  let seen = '';
  return new Promise((resolve) => {
    const onData = (d: Buffer) => {
      seen += d.toString('utf8');
      const m = pattern.exec(seen);
      if (m) {
        stream.off('data', onData);
        resolve(m);
      }
    };
    stream.on('data', onData);
  });
}

/** What a serve that must refuse its flags printed; one that started listening instead fails the test (and is stopped). */
async function exitsBeforeListening(child: ReturnType<typeof spawnCli>) {
  const done = collect(child);
  const first = await Promise.race([
    done.then(() => 'exited'),
    said(child.stdout, /listening on/).then(() => 'started'),
  ]);
  if (first === 'started') child.kill('SIGTERM');
  const r = await done;
  expect(first).toBe('exited');
  return r;
}

describe('serve --webhook-url', () => {
  it('logs a refused webhook without the query of its URL', async () => {
    const child = spawnCli([
      'serve',
      '--data',
      data,
      '--port',
      '0',
      '--admin',
      '--webhook-url',
      `${hook}?secret=${HOOK_SECRET}`,
      '--webhook-secret',
      's',
    ]);
    const done = collect(child);
    try {
      const [, base] = await said(child.stdout, /listening on (http:\S+)\n/);
      const refused = said(child.stderr, /webhook unpublished .*answered 500\n/);
      expect((await fetch(`${base}/__admin/stories/12/unpublish`, { method: 'POST' })).status).toBe(200);
      expect((await refused)[0]).toContain(`${hook}?…`);
    } finally {
      child.kill('SIGTERM');
    }
    const result = await done;
    expect(result.stderr).toMatch(/answered 500/);
    expect(result.stderr).not.toContain(HOOK_SECRET);
  });

  it('refuses a URL with a user name and password (no webhook could carry them), naming neither', async () => {
    const child = spawnCli([
      'serve',
      '--data',
      data,
      '--port',
      '0',
      '--webhook-url',
      hook.replace('http://', `http://hooks:${HOOK_SECRET}@`),
      '--webhook-secret',
      's',
    ]);
    const r = await exitsBeforeListening(child);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--webhook-url holds a user name or password/);
    expect(r.stderr + r.stdout).not.toContain(HOOK_SECRET);
  });

  it('refuses an empty URL (a --webhook-url "$HOOK" with HOOK unset), which would post nothing without a word', async () => {
    const child = spawnCli(['serve', '--data', data, '--port', '0', '--webhook-url', ''], {
      CONTENT_WEBHOOK_SECRET: SIGNING_SECRET,
    });
    const r = await exitsBeforeListening(child);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--webhook-url must not be empty/);
  });

  it('signs with CONTENT_WEBHOOK_SECRET, as the README says secrets are given (a flag is seen by every user in ps)', async () => {
    const child = spawnCli(
      ['serve', '--data', data, '--port', '0', '--admin', '--webhook-url', hook.replace('/hook', '/ok')],
      { CONTENT_WEBHOOK_SECRET: SIGNING_SECRET },
    );
    const done = collect(child);
    try {
      const first = await Promise.race([done.then(() => undefined), said(child.stdout, /listening on (http:\S+)\n/)]);
      expect(first, 'serve exited before listening').toBeDefined();
      const posted = await fetch(`${first![1]}/__admin/stories/12/unpublish`, { method: 'POST' });
      expect(posted.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    // serve delivers what it sent before it stops.
    expect(kept).toHaveLength(1);
    expect(verifyWebhook(kept[0]!.body, SIGNING_SECRET, kept[0]!.signature)).toBe(true);
  });
});

describe('the service started in a process, posting to a URL with a password', () => {
  it('logs the failed webhook without the password fetch quotes', async () => {
    const lines: string[] = [];
    const server = await startServer({
      space: fixtureSpace(),
      admin: true,
      webhook: { url: hook.replace('http://', `http://hooks:${HOOK_SECRET}@`), secret: 's' },
      log: (line) => lines.push(line),
    });
    try {
      expect((await fetch(`${server.url}/__admin/stories/12/unpublish`, { method: 'POST' })).status).toBe(200);
      await server.service.settled();
    } finally {
      await server.close();
    }
    expect(lines.join('\n')).toMatch(/webhook unpublished to .* failed/);
    expect(lines.join('\n')).not.toContain(HOOK_SECRET);
  });
});
