/**
 * The plugin under each supported Vite major (the repo builds with Vite 8; `vite7`
 * is Vite 7 installed under an alias): a build and a dev server load the content,
 * and the plugin type-checks in a config of either without a cast.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { capturingLogger, clearContentEnv, filesUnder, project, removeDir } from './support.js';
import { VITE_MAJORS } from './vite-majors.js';

const MAIN =
  "import { entries } from 'content:index';\ndocument.querySelector('#app').textContent = entries.map((e) => e.name).join(', ');\n";
describe.each(VITE_MAJORS)('Vite %s', (major, vite) => {
  let root: string;
  beforeAll(async () => {
    clearContentEnv();
    root = await project(MAIN);
  });
  afterAll(() => removeDir(root));

  it('reports its major', () => {
    expect(vite.version.split('.')[0]).toBe(major);
  });

  it('builds a page that imports content, then serves the same modules in dev', async () => {
    const options = { embedded: { data: 'space', demo: { stories: 10 } } };
    const logger = capturingLogger();
    await vite.build({
      root,
      configFile: false,
      customLogger: logger as never,
      logLevel: 'warn',
      plugins: [contentSync(options)],
      build: { outDir: 'dist', emptyOutDir: true },
    });
    expect(logger.text('error')).toBe('');
    expect(logger.text('info')).toMatch(/content-sync: compiled \d+ stories/);
    const built = (
      await Promise.all((await filesUnder(path.join(root, 'dist'))).map((f) => fs.readFile(f, 'utf8')))
    ).join('\n');
    const { entries } = (await import(path.join(root, '.content', 'modules', 'index.js'))) as {
      entries: Array<{ id: number; name: string }>;
    };
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(built).toContain(entry.name);

    const server = await vite.createServer({
      root,
      configFile: false,
      customLogger: capturingLogger() as never,
      server: { port: 0, host: '127.0.0.1', ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      plugins: [contentSync(options)],
    });
    try {
      const story = (await server.ssrLoadModule(`content:stories/${entries[0]!.id}`)) as { default: { name: string } };
      expect(story.default.name).toBe(entries[0]!.name);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('the plugin type', () => {
  it("is assignable to each major's PluginOption and UserConfig plugins", () => {
    const file = fileURLToPath(new URL('./fixtures/plugin-option.ts', import.meta.url));
    expect(existsSync(file)).toBe(true);
    const configPath = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
    const { config } = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath));
    const program = ts.createProgram([file], { ...options, noEmit: true });
    const messages = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]);
    expect(messages).toEqual([]);
  }, 120_000);
});
