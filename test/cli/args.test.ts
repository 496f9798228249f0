/**
 * What the command says to a mistyped flag, a wrong word, and `--version`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
  }, 120_000);
});
