/**
 * What the command says to a mistyped flag, a wrong word, and `--version`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREVIEW_TOKEN, DEFAULT_PUBLIC_TOKEN } from '../../src/server/index.js';
import { runCli } from '../helpers/cli.js';

describe('content-sync flags', () => {
  it('suggests the nearest flag, refuses words the options do not know, and prints its version', async () => {
    const [typo, word, unknown, version] = await Promise.all([
      runCli(['compile', '--snapshot', 's', '--out', 'o', '--dpth', '2']),
      runCli(['compile', '--snapshot', 's', '--out', 'o', '--resolve-links', 'href']),
      runCli(['sync', '--zzzzzzzz']),
      runCli(['--version']),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^content-sync: unknown option --dpth \(did you mean --depth\?\)\n/);
    expect(typo.stderr).not.toMatch(/\n\s+at /);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/^content-sync: --resolve-links must be url, story or link \(got "href"\)/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^content-sync: unknown option --zzzzzzzz\n/);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`${pkg.version}\n`);
    // A mistake in a command's flags is one line and where that command's options are, not the whole usage.
    expect(typo.stderr).toBe(
      'content-sync: unknown option --dpth (did you mean --depth?)\nRun `content-sync compile --help` for its options.\n',
    );
  }, 120_000);

  it("gives each command's own options with --help or -h, and the whole usage for an unknown command", async () => {
    const [serve, demo, unknown] = await Promise.all([
      runCli(['serve', '--help']),
      runCli(['demo', '-h']),
      runCli(['frob']),
    ]);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/^usage: content-sync serve --data DIR/);
    for (const flag of ['--port', '--latency', '--no-rate-limit', '--faults', '--admin', '--webhook-url'])
      expect(serve.stdout).toContain(flag);
    // The tokens a client needs to read the service it starts.
    expect(serve.stdout).toContain(`(default ${DEFAULT_PUBLIC_TOKEN})`);
    expect(serve.stdout).toContain(`(default ${DEFAULT_PREVIEW_TOKEN})`);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toMatch(/^usage: content-sync demo --out DIR/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^content-sync: unknown command "frob"\n\nusage: content-sync <command>/);
    // The secret may come from CONTENT_WEBHOOK_SECRET, as the README's command reference says.
    expect(unknown.stderr).toContain('[--webhook-url URL [--webhook-secret S]]');
  }, 120_000);
});
