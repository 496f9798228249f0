/**
 * `vite build` of a page that lists one content type in one language through
 * `content:index/<lang>/<component>`: its bundle carries those entries and not
 * the others; an import of a language or content type the snapshot lacks
 * fails the build with the plugin's message.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type InlineConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSync } from '../../src/index.js';
import { capturingLogger, clearContentEnv, filesUnder, project, removeDir } from './support.js';

interface Entry {
  id: number;
  lang: string;
  component: string;
  full_slug: string;
}

const config = (root: string, offline: boolean): InlineConfig => ({
  root,
  configFile: false,
  customLogger: capturingLogger(),
  logLevel: 'warn',
  plugins: [contentSync({ embedded: { data: 'space', demo: { stories: 40 } }, ...(offline ? { offline: true } : {}) })],
  build: { outDir: 'dist', emptyOutDir: true },
});

describe('a page importing a lean index module', () => {
  let root: string;
  beforeAll(async () => {
    clearContentEnv();
    root = await project(
      "import { entries } from 'content:index/de/article';\ndocument.querySelector('#app').textContent = entries.map((e) => e.full_slug).join(' ');\n",
    );
  });
  afterAll(() => removeDir(root));

  it('ships the entries of that language and content type, not the others', async () => {
    await build(config(root, false));
    const { entries } = (await import(pathToFileURL(path.join(root, '.content', 'modules', 'index.js')).href)) as {
      entries: Entry[];
    };
    // The page's own chunk (the stories' bodies are chunks of their own, loaded on demand).
    const files = (await filesUnder(path.join(root, 'dist'))).filter((f) => f.endsWith('.js'));
    const texts = await Promise.all(files.map((f) => fs.readFile(f, 'utf8')));
    const page = texts.filter((t) => t.includes('#app'));
    expect(page).toHaveLength(1);
    // A string as the minifier may quote it.
    const quoted = (s: string) => new RegExp(`[\`"']${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\`"']`);
    const wanted = entries.filter((e) => e.lang === 'de' && e.component === 'article');
    const others = entries.filter((e) => e.component !== 'article' || e.lang !== 'de');
    expect(wanted.length).toBeGreaterThan(0);
    expect(others.length).toBeGreaterThan(0);
    for (const e of wanted) expect(page[0]).toMatch(quoted(e.full_slug));
    for (const e of others) expect(page[0]).not.toMatch(quoted(e.full_slug));
  });

  it('of a language the snapshot lacks fails the build, naming the import', async () => {
    await fs.writeFile(
      path.join(root, 'main.js'),
      "import { entries } from 'content:index/xx/article';\nconsole.log(entries);\n",
    );
    await expect(build(config(root, true))).rejects.toThrow(
      /unknown import "content:index\/xx\/article".*no such story, language or content type/s,
    );
  });
});
