/**
 * What the published package holds: the license its manifest names, its entry points built, and no
 * source maps pointing at sources it does not ship.
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { writeDemoSpace } from '../../src/demo/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  license: string;
  files: string[];
  exports: Record<string, { types: string; default: string }>;
};

describe('the package', () => {
  it('ships a LICENSE that is the license package.json names', async () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    // Scripts off: the list comes from `files`, without building.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
    });
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    const files = packed!.files.map((f) => f.path);
    expect(files).toContain('LICENSE');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
  }, 60_000);

  it('installs without scripts: npm warns of a package whose manifest has one an install may run', () => {
    const scripts = Object.keys((pkg as { scripts?: Record<string, string> }).scripts ?? {});
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts).not.toContain(hook);
    // The build runs when the package is packed (and before the tests), not when it is installed.
    expect(scripts).toContain('prepack');
  });

  it('exports entry points that are built (by `npm pack` and `npm test`) and load in Node', async () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './image', './prerender', './server']);
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      expect(existsSync(path.join(ROOT, target.default)), subpath).toBe(true);
      expect(existsSync(path.join(ROOT, target.types)), subpath).toBe(true);
    }
    const prerender = (await import(pathToFileURL(path.join(ROOT, pkg.exports['./prerender']!.default)).href)) as {
      ModuleDigests: unknown;
      SERVER_CONTENT_DIR: unknown;
    };
    expect(typeof prerender.ModuleDigests).toBe('function');
    // The folder the README tells prerenderers to read the content modules from (`<outDir>/content/`).
    expect(prerender.SERVER_CONTENT_DIR).toBe('content');
  });

  it('loads in a project without "type": "module": its vite.config.ts, and require() of every entry', async () => {
    // `npm init` writes no "type": Vite bundles such a project's vite.config.ts to CommonJS and
    // requires the plugin, which Node (20.19 on, the engines floor) loads only through a condition
    // that require() matches.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'package-cjs-'));
    try {
      await fs.mkdir(path.join(dir, 'node_modules'));
      await fs.symlink(ROOT, path.join(dir, 'node_modules', 'vite-plugin-content-sync'));
      await fs.symlink(path.join(ROOT, 'node_modules', 'vite'), path.join(dir, 'node_modules', 'vite'));
      await fs.writeFile(path.join(dir, 'package.json'), '{ "name": "app", "private": true }\n');
      await fs.writeFile(
        path.join(dir, 'vite.config.ts'),
        "import { defineConfig } from 'vite';\nimport { contentSync } from 'vite-plugin-content-sync';\nexport default defineConfig({ plugins: [contentSync({ offline: true })] });\n",
      );
      const subpaths = Object.keys(pkg.exports).map((s) => `vite-plugin-content-sync${s.slice(1)}`);
      await fs.writeFile(
        path.join(dir, 'entries.cjs'),
        `for (const s of ${JSON.stringify(subpaths)}) console.log(s, Object.keys(require(s)).length > 0);\n`,
      );
      await fs.writeFile(
        path.join(dir, 'config.mjs'),
        "import { loadConfigFromFile } from 'vite';\nconst r = await loadConfigFromFile({ command: 'build', mode: 'production' });\nconsole.log(r.config.plugins.flat().map((p) => p.name).join(','));\n",
      );
      const run = promisify(execFile);
      const required = await run(process.execPath, ['entries.cjs'], { cwd: dir });
      expect(required.stdout).toBe(subpaths.map((s) => `${s} true\n`).join(''));
      const config = await run(process.execPath, ['config.mjs'], {
        cwd: dir,
        env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
      });
      expect(config.stdout.trim()).toBe('vite-plugin-content-sync');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('serves a space directory through the /server entry as the README shows', async () => {
    const server = (await import(pathToFileURL(path.join(ROOT, pkg.exports['./server']!.default)).href)) as {
      readSpaceDirectory(dir: string): Promise<unknown>;
      startServer(options: { space: unknown; assetUrls: 'self'; port: number }): Promise<{
        url: string;
        close(): Promise<void>;
      }>;
      DEFAULT_PUBLIC_TOKEN: string;
    };
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'package-server-'));
    try {
      await writeDemoSpace(dir, { stories: 10 });
      const running = await server.startServer({
        space: await server.readSpaceDirectory(dir),
        assetUrls: 'self',
        port: 0,
      });
      try {
        const res = await fetch(`${running.url}/v2/cdn/stories?token=${server.DEFAULT_PUBLIC_TOKEN}&per_page=100`);
        expect(res.status).toBe(200);
        const text = await res.text();
        expect((JSON.parse(text) as { stories: unknown[] }).stories.length).toBeGreaterThan(5);
        // Asset URLs at the service's own origin.
        expect(text).toContain(`${running.url}/f/`);
      } finally {
        await running.close();
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("shows editors each plugin option's doc comment and default, from the declarations it ships", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'package-options-'));
    try {
      const file = path.join(dir, 'config.ts');
      const declarations = path.join(ROOT, 'dist', 'vite', 'options.js');
      const text = `import type { ContentSyncOptions } from ${JSON.stringify(declarations)};\nexport const o: ContentSyncOptions = { depth: 2, webhook: { coalesceMs: 5 }, embedded: { data: 'x', admin: true } };\n`;
      await fs.writeFile(file, text);
      const service = ts.createLanguageService({
        getScriptFileNames: () => [file],
        getScriptVersion: () => '1',
        getScriptSnapshot: (f) => {
          const t = ts.sys.readFile(f);
          return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t);
        },
        getCurrentDirectory: () => dir,
        getCompilationSettings: () => ({
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          skipLibCheck: true,
        }),
        getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
        fileExists: ts.sys.fileExists,
        readFile: ts.sys.readFile,
      });
      const hover = (word: string) => {
        const info = service.getQuickInfoAtPosition(file, text.indexOf(`${word}:`));
        return {
          doc: ts.displayPartsToString(info?.documentation),
          default: ts.displayPartsToString(info?.tags?.find((t) => t.name === 'default')?.text),
        };
      };
      expect(hover('depth')).toEqual({ doc: expect.stringContaining('How deep'), default: '1' });
      expect(hover('coalesceMs')).toEqual({ doc: expect.stringContaining('handled together'), default: '0' });
      expect(hover('admin')).toEqual({ doc: expect.stringContaining('control plane'), default: 'false' });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('builds no source maps that would need the sources it does not ship', () => {
    const file = path.join(ROOT, 'tsconfig.build.json');
    const { config } = ts.readConfigFile(file, (p) => ts.sys.readFile(p));
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
    expect(pkg.files).not.toContain('src');
    expect(Boolean(options.sourceMap) && !options.inlineSources).toBe(false);
    expect(Boolean(options.declarationMap)).toBe(false);
  });
});
