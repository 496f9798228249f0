/**
 * The project's own unit tests, run by Vitest with the project's Vite config (a server of Vite's in
 * middleware mode): they import content modules like pages do, while the project's dev server may
 * run beside them.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ViteDevServer } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeEnv } from '../frameworks/fixture-app.js';
import {
  capturingLogger,
  clearContentEnv,
  devServer,
  embeddedService,
  project,
  removeDir,
  waitFor,
} from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs');
const OPTIONS = { embedded: { data: 'space', demo: { stories: 12 } } };

/** The project's Vite config, with the plugin of this repository's source, and a unit test importing content. */
async function unitTests(root: string, test = CONTENT_TEST): Promise<void> {
  const plugin = JSON.stringify(path.join(REPO, 'src', 'index.ts'));
  await fs.writeFile(
    path.join(root, 'vite.config.mts'),
    `import { contentSync } from ${plugin};\n` +
      `export default { plugins: [contentSync(${JSON.stringify(OPTIONS)})], test: { include: ['*.test.js'] } };\n`,
  );
  await fs.writeFile(path.join(root, 'content.test.js'), test);
}

const CONTENT_TEST =
  "import { test, expect } from 'vitest';\nimport { entries } from 'content:index';\n" +
  "test('content', () => expect(entries.length).toBeGreaterThan(0));\n";

/** `vitest run` in `root` as a child process; its exit code and output. */
async function vitestRun(root: string): Promise<{ code: number; output: string }> {
  const args = [VITEST, 'run', '--root', root];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, {
      cwd: root,
      env: nodeEnv(process.execPath),
      timeout: 60_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('vitest run with the embedded option', () => {
  let root: string | undefined;
  let server: ViteDevServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await removeDir(root);
  });

  it("runs while the project's dev server runs, syncing from its service and leaving it serving", async () => {
    clearContentEnv();
    root = await project('');
    ({ server } = await devServer(root, capturingLogger(), OPTIONS));
    await unitTests(root);

    const { code, output } = await vitestRun(root);
    expect(output).not.toMatch(/already serves/);
    expect(code, output).toBe(0);
    // The dev server's service is still the project's, for its next build or test run.
    const entry = JSON.parse(await fs.readFile(path.join(root, '.content', 'service.json'), 'utf8'));
    expect(entry).toMatchObject({ pid: process.pid, url: embeddedService(server).url });
  }, 60_000);
});

describe('vitest watch with the embedded option', () => {
  let root: string | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
    child = undefined;
    await removeDir(root);
  });

  it('runs the tests again when content they import changes in the space directory', async () => {
    clearContentEnv();
    root = await project('');
    const dir = root;
    // Each run of the test writes the name it imported of the first story, where this test reads it.
    await unitTests(
      dir,
      "import { writeFileSync } from 'node:fs';\nimport { test } from 'vitest';\nimport { entries } from 'content:index';\n" +
        "test('content', () => {\n  const [first] = entries.filter((e) => e.lang === 'default').sort((a, b) => a.id - b.id);\n" +
        "  writeFileSync('seen.json', JSON.stringify({ id: first.id, name: first.name }));\n});\n",
    );
    child = spawn(process.execPath, [VITEST, 'watch', '--root', dir], {
      cwd: dir,
      env: nodeEnv(process.execPath),
      detached: true,
      stdio: 'ignore',
    });
    const seen = async () => JSON.parse(await fs.readFile(path.join(dir, 'seen.json'), 'utf8').catch(() => 'null'));
    const { id } = await waitFor('the first run', seen, 30_000);

    const file = path.join(dir, 'space', 'stories', `${id}.json`);
    const record = JSON.parse(await fs.readFile(file, 'utf8'));
    record.published.story.name = 'Edited on disk';
    await fs.writeFile(`${file}.tmp`, JSON.stringify(record));
    await fs.rename(`${file}.tmp`, file);
    await waitFor('a run that imports the edit', async () => (await seen()).name === 'Edited on disk', 20_000);
  }, 60_000);
});
