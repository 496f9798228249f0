/**
 * `ssrModules: 'external'`: a server build leaves the content modules out of its bundle, writes them
 * beside it (asset URLs pointing at the asset files written there), and Node imports them at run
 * time; the output works wherever it is moved, and a rebuild writes only the modules that changed.
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type InlineConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { capturingLogger, clearContentEnv, project, removeDir, type CapturingLogger } from './support.js';

/** The server entry: every story's title and the image URLs of its content, through the generated index. */
const SERVER = [
  "import { entries, load } from 'content:index';",
  'export async function render() {',
  '  const out = [];',
  "  for (const entry of entries.filter((e) => e.lang === 'default')) {",
  '    const story = await load(entry);',
  '    const text = JSON.stringify(story.content);',
  '    out.push({ id: entry.id, name: story.name, images: [...text.matchAll(/"(\\/assets\\/[^"]+)"/g)].map((m) => m[1]) });',
  '  }',
  '  return out;',
  '}',
  '',
].join('\n');

/** Where the bundle goes: in a sub-folder of the output, so its imports of `content/` must climb. */
const ENTRY_FILE = 'server/entry.js';

function config(root: string, logger: CapturingLogger, widths?: number[]): InlineConfig {
  return {
    root,
    configFile: false,
    customLogger: logger,
    logLevel: 'info',
    plugins: [
      contentSync({
        embedded: { data: 'space', demo: { stories: 20 } },
        assets: 'download',
        ssrModules: 'external',
        ...(widths ? { images: { widths } } : {}),
      }),
    ],
    ssr: { noExternal: true },
    build: {
      ssr: 'server.js',
      outDir: 'out',
      emptyOutDir: false,
      rolldownOptions: { output: { entryFileNames: ENTRY_FILE } },
    },
  };
}

interface Rendered {
  id: number;
  name: string;
  images: string[];
}

/** Imports the built entry in a plain Node process (no Vite, no test runner in between) and renders. */
async function renderIn(outDir: string): Promise<Rendered[]> {
  const url = pathToFileURL(path.join(outDir, ENTRY_FILE)).href;
  const script = `const m = await import(${JSON.stringify(url)}); console.log(JSON.stringify(await m.render()));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as Rendered[];
}

/** What the plugin reported writing beside the bundle. */
function written(logger: CapturingLogger): { modules: number; assets: number } {
  const match = /content-sync: (\d+) content modules? and (\d+) assets? beside the server bundle/.exec(
    logger.text('info'),
  );
  expect(match, logger.text()).not.toBeNull();
  return { modules: Number(match![1]), assets: Number(match![2]) };
}

describe("a server build with ssrModules: 'external'", () => {
  let root: string;
  let first: CapturingLogger;

  beforeAll(async () => {
    clearContentEnv();
    root = await project('');
    await fs.writeFile(path.join(root, 'server.js'), SERVER);
    first = capturingLogger();
    await build(config(root, first));
  }, 60_000);
  afterAll(() => removeDir(root));

  it('leaves the content out of the bundle and imports it from beside it, relative to the chunk', async () => {
    const bundle = await fs.readFile(path.join(root, 'out', ENTRY_FILE), 'utf8');
    expect(bundle).toContain('"../content/index.js"');
    expect(bundle).not.toContain(path.join(root, 'out')); // no machine path in the imports
    const generated = (await fs.readdir(path.join(root, '.content', 'modules', 'stories'))).length;
    expect(generated).toBeGreaterThan(0);
    expect((await fs.readdir(path.join(root, 'out', 'content', 'stories'))).length).toBe(generated);
    expect(written(first).modules).toBeGreaterThan(generated);
  });

  it('renders every story in Node from the copies, with images at the asset files written beside them', async () => {
    const rendered = await renderIn(path.join(root, 'out'));
    expect(rendered.length).toBeGreaterThan(0);
    const images = rendered.flatMap((r) => r.images);
    expect(images.length).toBeGreaterThan(0);
    // `/assets/<digest>.jpg#WxH&480=<url of the 480 px rendition>...`, as the bundled form gives.
    const files = new Set<string>();
    for (const image of images) {
      const [original, fragment = ''] = image.split('#');
      expect(original).toMatch(/^\/assets\/[0-9a-f]{64}\.\w+$/);
      files.add(original!);
      for (const [, rendition] of fragment.matchAll(/&\d+=([^&]+)/g)) {
        const url = decodeURIComponent(rendition!);
        expect(url).toMatch(/^\/assets\/[0-9a-f]{64}-\d+w\.\w+$/);
        files.add(url);
      }
    }
    expect(
      [...files].some((f) => /-\d+w\./.test(f)),
      'resized renditions',
    ).toBe(true);
    for (const file of files) expect(existsSync(path.join(root, 'out', file)), file).toBe(true);
    expect(written(first).assets).toBe(files.size);
  });

  it('says the copies are ES modules, so Node need not guess from the project (which here has no package.json)', async () => {
    expect(JSON.parse(await fs.readFile(path.join(root, 'out', 'content', 'package.json'), 'utf8'))).toEqual({
      type: 'module',
    });
    // Without syntax detection, Node takes a .js file outside a `"type": "module"` package for CommonJS.
    const url = pathToFileURL(path.join(root, 'out', 'content', 'index.js')).href;
    const script = `const m = await import(${JSON.stringify(url)}); console.log(m.entries.length);`;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--no-experimental-detect-module',
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(Number(stdout)).toBeGreaterThan(0);
  });

  it('works wherever the output is moved', async () => {
    const moved = path.join(root, 'moved', 'elsewhere');
    await fs.mkdir(path.dirname(moved), { recursive: true });
    await fs.cp(path.join(root, 'out'), moved, { recursive: true });
    await fs.rm(path.join(root, '.content', 'modules'), { recursive: true, force: true });
    try {
      expect((await renderIn(moved)).length).toBeGreaterThan(0);
    } finally {
      await fs.rm(path.join(root, 'moved'), { recursive: true, force: true });
    }
  });

  it('writes only what changed on a rebuild over the same output', async () => {
    // The previous test removed the generated modules: this build compiles them all again.
    await build(config(root, capturingLogger()));
    const unchanged = capturingLogger();
    await build(config(root, unchanged));
    expect(written(unchanged)).toEqual({ modules: 0, assets: 0 });

    const story = (await fs.readdir(path.join(root, '.content', 'modules', 'stories')))[0]!;
    const source = path.join(root, '.content', 'modules', 'stories', story);
    const later = new Date(Date.now() + 5_000);
    await fs.utimes(source, later, later);
    const touched = capturingLogger();
    await build(config(root, touched));
    expect(written(touched).modules).toBe(1);
    expect((await renderIn(path.join(root, 'out'))).length).toBeGreaterThan(0);
  }, 60_000);

  it('copies again what other image widths change, and removes the asset files no copy shows any more', async () => {
    const assetsDir = path.join(root, 'out', 'assets');
    const before = await fs.readdir(assetsDir);
    expect(before.some((f) => /-480w\./.test(f))).toBe(true);
    // A file the bundle did not write and the copies never showed: not the plugin's to remove.
    await fs.writeFile(path.join(assetsDir, 'kept.txt'), 'not content');
    const narrower = capturingLogger();
    await build(config(root, narrower, [320]));
    expect(written(narrower).modules).toBeGreaterThan(0);
    const after = await fs.readdir(assetsDir);
    expect(after.filter((f) => /-(480|960|1440|1920)w\./.test(f))).toEqual([]);
    expect(after.some((f) => /-320w\./.test(f))).toBe(true);
    expect(after).toContain('kept.txt');
    // Every image the copies show is there.
    const shown = (await renderIn(path.join(root, 'out'))).flatMap((r) => r.images);
    for (const image of shown) {
      const [original, fragment = ''] = image.split('#');
      expect(existsSync(path.join(root, 'out', original!)), original).toBe(true);
      for (const [, rendition] of fragment.matchAll(/&\d+=([^&]+)/g))
        expect(existsSync(path.join(root, 'out', decodeURIComponent(rendition!))), rendition).toBe(true);
    }
  }, 60_000);

  it('removes them too after a build that failed half-way through copying', async () => {
    const assetsDir = path.join(root, 'out', 'assets');
    const narrow = (await fs.readdir(assetsDir)).filter((f) => /-320w\./.test(f));
    expect(narrow.length).toBeGreaterThan(0);
    // Back to the default widths, with a folder where one of their files must go: that build fails
    // after it has copied some of them.
    await build(config(root, capturingLogger()));
    const wide = (await fs.readdir(assetsDir)).filter((f) => /-480w\./.test(f));
    await build(config(root, capturingLogger(), [320]));
    await fs.mkdir(path.join(assetsDir, wide[0]!));
    await expect(build(config(root, capturingLogger()))).rejects.toThrow();
    await fs.rm(path.join(assetsDir, wide[0]!), { recursive: true });
    await build(config(root, capturingLogger(), [320]));
    expect((await fs.readdir(assetsDir)).filter((f) => /-(480|960|1440|1920)w\./.test(f))).toEqual([]);
  }, 120_000);
});

describe("a server build with ssrModules: 'external' in a folder whose name holds a double quote", () => {
  let tmp: string;

  beforeAll(async () => {
    clearContentEnv();
    tmp = await project('');
  });
  afterAll(() => removeDir(tmp));

  it('imports the content relative to the chunk all the same, so that the output can move', async () => {
    // The bundler writes the quote escaped (`\"`) in the import specifiers.
    const root = path.join(tmp, 'say "cheese"');
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, 'server.js'), SERVER);
    await build(config(root, capturingLogger()));
    const bundle = await fs.readFile(path.join(root, 'out', ENTRY_FILE), 'utf8');
    expect(bundle).toContain('"../content/index.js"');
    expect(bundle).not.toContain('/out/content/'); // no machine path in the imports
    const moved = path.join(tmp, 'moved');
    await fs.rename(path.join(root, 'out'), moved);
    expect((await renderIn(moved)).length).toBeGreaterThan(0);
  }, 60_000);
});

describe("a server build with ssrModules: 'external' and assets at the output's root (build.assetsDir '')", () => {
  let root: string;

  beforeAll(async () => {
    clearContentEnv();
    root = await project('');
    await fs.writeFile(path.join(root, 'server.js'), SERVER.replace('\\/assets\\/[^"]+', '\\/+[0-9a-f]{64}[^"]*'));
  });
  afterAll(() => removeDir(root));

  it('shows each image at the file written there, as the bundle names its own (`/<file>`, not `//<file>`: another host)', async () => {
    const base = config(root, capturingLogger(), [480]);
    await build({ ...base, build: { ...base.build, assetsDir: '' } });
    const images = (await renderIn(path.join(root, 'out'))).flatMap((r) => r.images);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      const [original, fragment = ''] = image.split('#');
      expect(original).toMatch(/^\/[0-9a-f]{64}\.\w+$/);
      expect(existsSync(path.join(root, 'out', original!)), original).toBe(true);
      for (const [, rendition] of fragment.matchAll(/&\d+=([^&]+)/g))
        expect(decodeURIComponent(rendition!)).toMatch(/^\/[0-9a-f]{64}-480w\.\w+$/);
    }
  }, 60_000);

  it('makes again the copies an earlier version kept with `//<file>`, though their modules did not change', async () => {
    // The output as versions before the fix left it: copies showing `//<file>`, and their stamp.
    const copies = path.join(root, 'out', 'content');
    let altered = 0;
    for (const file of await fs.readdir(copies, { recursive: true })) {
      if (!file.endsWith('.js')) continue;
      const copy = path.join(copies, file);
      const text = await fs.readFile(copy, 'utf8');
      const old = text.replace(/"\/([0-9a-f]{64})/g, '"//$1');
      if (old !== text) altered++;
      await fs.writeFile(copy, old);
    }
    expect(altered).toBeGreaterThan(0);
    const stampFile = path.join(copies, '.content-sync.json');
    const stamp = JSON.parse(await fs.readFile(stampFile, 'utf8')) as { key: string };
    const { copies: _, ...oldKey } = JSON.parse(stamp.key) as Record<string, unknown>;
    await fs.writeFile(stampFile, JSON.stringify({ ...stamp, key: JSON.stringify(oldKey) }));
    const base = config(root, capturingLogger(), [480]);
    await build({ ...base, build: { ...base.build, assetsDir: '' } });
    const images = (await renderIn(path.join(root, 'out'))).flatMap((r) => r.images);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image.split('#')[0]).toMatch(/^\/[0-9a-f]{64}\.\w+$/);
  }, 60_000);
});
