/**
 * `vite build --watch`: each build the watcher makes syncs what changed since the last one, as a
 * build started anew does; the watcher closed, the embedded service stops.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentSyncApi, contentSync } from '../../src/index.js';
import { capturingLogger, clearContentEnv, filesUnder, project, removeDir } from './support.js';

const MAIN =
  "import { entries, load } from 'content:index';\nfor (const e of entries) load(e).then((s) => console.log(s.content.title));\n";

/** What a watching build reports: its next build's end (or error). */
interface Watching {
  on(event: 'event', listener: (event: { code: string; error?: unknown; result?: { close(): unknown } }) => void): void;
  off(event: 'event', listener: (event: { code: string }) => void): void;
  close(): Promise<void>;
}

/** Resolves when the watcher's next build has ended; rejects with its error. */
function nextBuild(watcher: Watching): Promise<void> {
  return new Promise((resolve, reject) => {
    const listener = (event: { code: string; error?: unknown; result?: { close(): unknown } }) => {
      if (event.code === 'BUNDLE_END') void event.result?.close();
      if (event.code !== 'END' && event.code !== 'ERROR') return;
      watcher.off('event', listener);
      if (event.code === 'ERROR') reject(event.error);
      else resolve();
    };
    watcher.on('event', listener);
  });
}

async function builtText(root: string): Promise<string> {
  const files = await filesUnder(path.join(root, 'dist'));
  return (await Promise.all(files.map((f) => fs.readFile(f, 'utf8')))).join('\n');
}

describe('a watching build (vite build --watch)', () => {
  let root: string;
  let watcher: Watching | undefined;

  beforeAll(async () => {
    clearContentEnv();
    root = await project(MAIN);
  });
  afterAll(async () => {
    await watcher?.close();
    await removeDir(root);
  });

  it('syncs again at each build: a story edited in the embedded space directory reaches the next one', async () => {
    const logger = capturingLogger();
    watcher = (await build({
      root,
      configFile: false,
      customLogger: logger,
      logLevel: 'warn',
      plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 10 } } })],
      build: { outDir: 'dist', emptyOutDir: true, watch: {} },
    })) as unknown as Watching;
    await nextBuild(watcher);
    const storiesDir = path.join(root, 'space', 'stories');
    const file = path.join(storiesDir, (await fs.readdir(storiesDir)).sort()[0]!);
    const record = JSON.parse(await fs.readFile(file, 'utf8'));
    record.published.story.content.title = 'Edited while the build watched';
    await fs.writeFile(file, JSON.stringify(record));
    expect(await builtText(root)).not.toContain('Edited while the build watched');

    // A source file changed: the watcher builds again.
    const rebuilt = nextBuild(watcher);
    await fs.appendFile(path.join(root, 'main.js'), '// edited\n');
    await rebuilt;
    expect(logger.text()).toContain('the space directory changed: fetching one story or datasource');
    expect(await builtText(root)).toContain('Edited while the build watched');
  }, 60_000);
});

describe('a watching build closed', () => {
  let root: string;

  beforeAll(async () => {
    clearContentEnv();
    root = await project(MAIN);
  });
  afterAll(() => removeDir(root));

  it('stops its embedded service, which would keep the process alive for good', async () => {
    const plugin = contentSync({ embedded: { data: 'space', demo: { stories: 10 } } });
    const watcher = (await build({
      root,
      configFile: false,
      customLogger: capturingLogger(),
      logLevel: 'warn',
      plugins: [plugin],
      build: { outDir: 'dist', watch: {} },
    })) as unknown as Watching;
    await nextBuild(watcher);
    const service = (plugin.api as ContentSyncApi).pipeline?.server;
    expect(service).toBeDefined();
    await expect(fetch(`${service!.url}/v2/cdn/spaces/me`)).resolves.toBeDefined();
    await watcher.close();
    await expect(fetch(`${service!.url}/v2/cdn/spaces/me`)).rejects.toThrow();
    expect(existsSync(path.join(root, '.content', 'service.json'))).toBe(false);
  }, 60_000);
});
