/**
 * `content-sync compile` as a command: summary, --json, a directory without a
 * snapshot, and usage errors.
 */
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import { sortedWithModules } from '../../src/compile/output.js';
import { chunkOfId, chunkCount } from '../../src/compile/emit.js';
import { sync } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { fixtureSpace } from '../helpers/fixture-space.js';
import { PUBLIC, startTestServer } from '../helpers/server.js';
import { removeTempDirs, tempDir, unpaced } from '../sync/support.js';

let snapshot: string;
const published = fixtureSpace().stories.filter((r) => r.published);
const stories = published.length;
/**
 * The lean index files of the fixture's two languages: per chunk of the index, one file for each
 * content type it holds, in each language; per language, a module and its declarations for the
 * language and for each content type.
 */
function leanIndexFiles(): number {
  const chunkTotal = chunkCount(stories);
  const inChunks = new Set(
    published.map((r) => `${chunkOfId(r.id, chunkTotal)} ${r.published!.story.content.component}`),
  );
  const components = new Set(published.map((r) => r.published!.story.content.component));
  return 2 * inChunks.size + 2 * 2 * (components.size + 1);
}

beforeAll(async () => {
  const server = await startTestServer();
  try {
    snapshot = await tempDir('compile-cli-snapshot');
    await sync({ baseUrl: server.url, token: PUBLIC, out: snapshot, ...unpaced() });
  } finally {
    await server.close();
  }
}, 60_000);

afterAll(removeTempDirs);

describe('content-sync compile', () => {
  it('compiles a snapshot and prints a one-line summary; a second run is incremental and writes nothing', async () => {
    const out = path.join(await tempDir('compile-cli-out'), 'content');
    const r = await runCli([
      'compile',
      '--snapshot',
      snapshot,
      '--out',
      out,
      '--resolve-relations',
      'article.author',
      '--resolve-links',
      'url',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const m =
      /^compiled (\d+) stories \((\d+) modules, full\) into (.+): (\d+) files written, 0 deleted in \d+\.\ds\n$/.exec(
        r.stdout,
      );
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBe(stories);
    expect(Number(m![2])).toBe(stories * 2);
    expect(m![3]).toBe(out);
    // A module and a raw module per story, twelve shared files, four files per chunk of the index, and the lean index files.
    expect(Number(m![4])).toBe(2 * stories + 12 + 4 * chunkCount(stories) + leanIndexFiles());
    for (const f of [
      'index.js',
      'index.d.ts',
      'types.d.ts',
      'runtime.js',
      'stories.d.ts',
      'datasources.js',
      'tags.js',
      'backlinks.js',
      '.content-sync-compile.json',
    ]) {
      expect(existsSync(path.join(out, f)), f).toBe(true);
    }

    const again = await runCli([
      'compile',
      '--snapshot',
      snapshot,
      '--out',
      out,
      '--resolve-relations',
      'article.author',
      '--resolve-links',
      'url',
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/\(\d+ modules, incremental\) into .*: 0 files written, 0 deleted in/);
  });

  it('--json prints a machine-readable summary', async () => {
    const out = await tempDir('compile-cli-json');
    const r = await runCli(['compile', '--snapshot', snapshot, '--out', out, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ ok: true, mode: 'full', stories, modules: stories * 2, deleted: [], warnings: [] });
    expect(summary.written).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'types.d.ts', 'stories.d.ts']));
    // Every file, each once, sorted.
    const written = summary.written as string[];
    expect(written).toEqual([...new Set(written)].sort());
    expect(written.filter((f) => /^(raw|stories)\/\d+\.js$/.test(f))).toHaveLength(2 * stories);
    expect(Number.isInteger(summary.durationMs)).toBe(true);

    const incremental = JSON.parse(
      (await runCli(['compile', '--snapshot', snapshot, '--out', out, '--json'])).stdout,
    ) as Record<string, unknown>;
    expect(incremental).toMatchObject({ ok: true, mode: 'incremental', stories, written: [], deleted: [] });
    const full = JSON.parse(
      (await runCli(['compile', '--snapshot', snapshot, '--out', out, '--json', '--full'])).stdout,
    ) as Record<string, unknown>;
    expect(full).toMatchObject({ ok: true, mode: 'full', stories, deleted: [] });
  });

  it('a directory without a snapshot: exit 1 and a message that says what to do', async () => {
    const empty = await tempDir('compile-cli-empty');
    const r = await runCli(['compile', '--snapshot', empty, '--out', path.join(empty, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${empty} holds no snapshot`);
    expect(r.stderr).toContain('content-sync sync');
    expect(existsSync(path.join(empty, 'out'))).toBe(false);

    const missing = path.join(empty, 'does-not-exist');
    const r2 = await runCli(['compile', '--snapshot', missing, '--out', path.join(empty, 'out')]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(missing);
    expect(r2.stderr).toContain('content-sync sync');
  });

  it.skipIf(!existsSync('/dev/full'))(
    'a module it cannot write (the disk full) fails naming the file, not only the error',
    async () => {
      const out = await tempDir('compile-cli-full');
      expect((await runCli(['compile', '--snapshot', snapshot, '--out', out])).code).toBe(0);
      // A write into /dev/full fails as a full disk does: ENOSPC, a message without a path.
      const module = path.join(out, 'stories', `${published[0]!.id}.js`);
      await fs.rm(module);
      await fs.symlink('/dev/full', module);
      const r = await runCli(['compile', '--snapshot', snapshot, '--out', out, '--full']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot write ${module}: ENOSPC`);
    },
  );

  it('usage errors exit 2: a bad --resolve-links, a missing --out', async () => {
    const out = await tempDir('compile-cli-usage');
    const r = await runCli(['compile', '--snapshot', snapshot, '--out', out, '--resolve-links', 'everything']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resolve-links must be url, story or link (got "everything")');
    expect(existsSync(path.join(out, 'index.js'))).toBe(false);

    const noOut = await runCli(['compile', '--snapshot', snapshot]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('compile needs --out DIR');
  });
});

describe('content-sync compile --schema', () => {
  it('refuses a file that is no component schema export (one component, say), naming it, instead of typing as if it were empty', async () => {
    const dir = await tempDir('compile-cli-schema');
    const out = path.join(dir, 'modules');
    // A component as `storyblok components pull --separate-files` writes each one.
    const one = path.join(dir, 'hero.json');
    await fs.writeFile(one, JSON.stringify({ name: 'hero', is_root: false, schema: { headline: { type: 'text' } } }));
    const r = await runCli(['compile', '--snapshot', snapshot, '--out', out, '--schema', one]);
    expect(r.stderr).toContain(`--schema ${one}: it holds one component ("hero")`);
    expect(r.code).toBe(2);
    expect(existsSync(path.join(out, 'index.js'))).toBe(false);
    // The plugin's option goes through compile() itself.
    await expect(compile({ snapshot, out, schema: { version: 1 } })).rejects.toThrow(
      /schema: it holds no list of components/,
    );
    // A list of components, bare or under "components", is one.
    const list = path.join(dir, 'components.json');
    await fs.writeFile(
      list,
      JSON.stringify([{ name: 'hero', is_root: false, schema: { headline: { type: 'text' } } }]),
    );
    const ok = await runCli(['compile', '--snapshot', snapshot, '--out', out, '--schema', list]);
    expect(ok.code).toBe(0);
    expect(readFileSync(path.join(out, 'types.d.ts'), 'utf8')).toContain('export type HeroBlok = {');
  });
});

describe('compile() from a script', () => {
  it('refuses a depth the plugin and --depth refuse (over 10), before writing anything', async () => {
    // Each level embeds the related stories of the last: at depth 1,000 a related space of 2,425
    // stories ran the process out of memory after a minute and a half.
    const out = path.join(await tempDir('compile-depth'), 'modules');
    const deep = { snapshot, out, resolveRelations: ['article.author'], depth: 11 };
    await expect(compile(deep)).rejects.toThrow('depth must be an integer from 0 to 10, got 11');
    expect(existsSync(out)).toBe(false);
    expect((await compile({ ...deep, depth: 10 })).stories).toBe(stories);
  });

  it('refuses options a script without types can pass, naming them, before writing anything', async () => {
    const out = path.join(await tempDir('compile-untyped'), 'modules');
    const untyped = (o: Record<string, unknown>) => compile(o as unknown as Parameters<typeof compile>[0]);
    await expect(untyped({ snapshot, out, resolveLinks: 'urls' })).rejects.toThrow(
      "resolveLinks must be 'url', 'story' or 'link', got urls",
    );
    await expect(untyped({ snapshot })).rejects.toThrow('compile needs out');
    await expect(untyped({ out })).rejects.toThrow('compile needs snapshot');
    expect(existsSync(out)).toBe(false);
  });
});

describe('the files a full compile lists', () => {
  it('are in the order sort() gives their paths, whatever the number of digits of the story ids', () => {
    const others = ['types.d.ts', 'chunks/entries-0.js', 'stories.d.ts', 'runtime.js', 'backlinks.js'];
    for (const ids of [
      [12, 10, 11],
      [9, 100, 10, 1, 99, 1000],
      [610000104, 610000105],
    ]) {
      const all = [...others, ...ids.flatMap((id) => [`raw/${id}.js`, `stories/${id}.js`])];
      expect(sortedWithModules([...others], ids)).toEqual(all.sort());
    }
  });
});
