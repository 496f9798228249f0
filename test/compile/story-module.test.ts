/**
 * The two modules of a story: the raw module (the story as the snapshot has
 * it, each language an export over the default) and the story module (the
 * resolved story, written as what resolution changed over the raw modules it
 * imports). Both are imported as real ES modules from files, and read back
 * without importing them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Story } from '../../src/api/index.js';
import { createResolver } from '../../src/compile/resolve/index.js';
import {
  RUNTIME_FILE,
  RUNTIME_SOURCE,
  evaluateModule,
  storyModuleSource,
  type RawRef,
} from '../../src/compile/serialize.js';
import { rawModuleSource } from '../../src/compile/story.js';
import {
  canonicalJson,
  materialize,
  overlayContentTexts,
  versionStoryText,
  type StoryVersion,
} from '../../src/snapshot/index.js';
import { buildRecord } from '../../src/sync/records.js';
import { story, uuid } from './resolve/fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Writes modules (`raw/<id>.js`, `stories/<id>.js`, ...) and the runtime under a fresh directory. */
function writeFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-story-module-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries({ ...files, [RUNTIME_FILE]: RUNTIME_SOURCE })) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** Writes the modules and imports one of them. */
async function importFrom(files: Record<string, string>, rel: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(path.join(writeFiles(files), rel)).href)) as Record<string, unknown>;
}

const readBack = (files: Record<string, string>, rel: string): Record<string, unknown> =>
  evaluateModule(files[rel]!, (from) => readBack(files, path.posix.join(path.posix.dirname(rel), from)));

describe('raw modules', () => {
  const version: StoryVersion = {
    story: story(1, {
      component: 'page',
      title: 'Hello',
      body: [{ component: 'text', _uid: 'b1', text: 'Hi' }],
      hero: { filename: 'a.jpg' },
    }),
    // fr replaces the content whole; it has no overlay in it, which gets the default content under its prefix.
    languages: {
      de: { full_slug: 'de/seite', lang: 'de', name: 'Seite', content: { title: 'Hallo' } },
      fr: { full_slug: 'fr/page', content: { component: 'page', title: 'Bonjour' }, $replace_content: true },
    } as StoryVersion['languages'],
  };
  const languages = ['default', 'de', 'fr', 'it'];
  const materialized = languages.map((l) => [l === 'default' ? 'default' : l, materialize(version, l)] as const);

  it('each language is the default story with its overlay, equal to the materialized story, key order included', async () => {
    const source = rawModuleSource(version, languages, materialized);
    // The default is written once; the languages name only what differs.
    expect(source.match(/"a\.jpg"/g)).toHaveLength(1);
    // Each language sets its lang once, whether its overlay carries one (de) or not.
    expect(source.match(/\["lang"\]/g)).toHaveLength(3);
    const files = { 'raw/1.js': source };
    for (const mod of [await importFrom(files, 'raw/1.js'), readBack(files, 'raw/1.js')]) {
      for (const [name, expected] of materialized) {
        expect(JSON.stringify(mod[name])).toBe(JSON.stringify(expected));
      }
    }
  });

  it("from a record as sync writes it: the default language and the translations are the record's text, the module the same", async () => {
    const draft: StoryVersion = {
      story: { ...version.story, name: 'Draft', content: { ...version.story.content, title: 'Draft' } },
      // A translation that sets an object and a string.
      languages: {
        ...version.languages,
        de: { ...version.languages!.de!, content: { hero: { filename: 'b.jpg', alt: 'Bild' }, title: 'Entwurf' } },
      },
    };
    const record = canonicalJson(buildRecord(version, draft));
    // As a compile has the versions: parsed from that text (keys in its order).
    const parsed = JSON.parse(record) as Record<'published' | 'draft', StoryVersion>;
    for (const key of ['published', 'draft'] as const) {
      const v = parsed[key];
      const text = versionStoryText(record, key)!;
      expect(JSON.parse(text)).toEqual(v.story);
      // As the record has it, lines and indents included.
      expect(record).toContain(`"story": ${text}`);
      const m = languages.map((l) => [l === 'default' ? 'default' : l, materialize(v, l)] as const);
      const source = rawModuleSource(v, languages, m, { record, version: key });
      expect(source).toContain(`const $0 = ${text};\n`);
      // What each translation sets in the content, as the record has it too.
      for (const lang of ['de', 'fr']) {
        const overlay = v.languages![lang]!;
        const texts = overlayContentTexts(
          record,
          key,
          lang,
          overlay.content as Record<string, unknown>,
          lang === 'fr',
        )!;
        expect(texts.map((t) => JSON.parse(t) as unknown)).toEqual(
          lang === 'fr' ? [overlay.content] : Object.values(overlay.content!),
        );
        for (const t of texts) expect(source).toContain(t);
      }
      if (key === 'draft')
        expect(source).toContain('{\n            "alt": "Bild",\n            "filename": "b.jpg"\n          }');
      const files = { 'raw/1.js': source };
      for (const mod of [await importFrom(files, 'raw/1.js'), readBack(files, 'raw/1.js')]) {
        for (const [name, expected] of m) expect(JSON.stringify(mod[name])).toBe(JSON.stringify(expected));
      }
    }
  });

  it('a record laid out otherwise gives no text (its story is serialized)', () => {
    const record = buildRecord(version, undefined);
    expect(versionStoryText(canonicalJson(record), 'published')).toBeDefined();
    // Not indented by two spaces; compact; no such version; a key after the story; a story that is not an object.
    expect(versionStoryText(JSON.stringify(record, null, 4), 'published')).toBeUndefined();
    expect(versionStoryText(JSON.stringify(record), 'published')).toBeUndefined();
    expect(versionStoryText(canonicalJson(record), 'draft')).toBeUndefined();
    expect(
      versionStoryText(canonicalJson({ ...record, published: { ...version, zz: 1 } }), 'published'),
    ).toBeUndefined();
    expect(versionStoryText(canonicalJson({ ...record, published: { story: 'x' } }), 'published')).toBeUndefined();
    // Translations: not indented by two spaces; a language without an overlay; an empty content; a key the text lacks.
    const de = version.languages!.de!.content as Record<string, unknown>;
    expect(overlayContentTexts(canonicalJson(record), 'published', 'de', de, false)).toEqual(['"Hallo"']);
    expect(overlayContentTexts(JSON.stringify(record, null, 4), 'published', 'de', de, false)).toBeUndefined();
    expect(overlayContentTexts(canonicalJson(record), 'published', 'it', de, false)).toBeUndefined();
    const empty = {
      ...record,
      published: { ...version, languages: { ...version.languages, de: { lang: 'de', content: {} } } },
    };
    expect(overlayContentTexts(canonicalJson(empty), 'published', 'de', {}, false)).toBeUndefined();
    expect(overlayContentTexts(canonicalJson(record), 'published', 'de', { ...de, zz: 1 }, false)).toBeUndefined();
    expect(overlayContentTexts(canonicalJson(record), 'draft', 'de', de, false)).toBeUndefined();
    // A draft without a story: the published version's is not taken for it.
    expect(versionStoryText(canonicalJson({ ...record, draft: { languages: {} } }), 'draft')).toBeUndefined();
  });

  it('a "__proto__" key anywhere is written so that it stays an own property', async () => {
    const odd: StoryVersion = {
      story: story(2, JSON.parse('{"component":"page","__proto__":{"x":1}}') as Record<string, unknown>),
    };
    const m = [['default', materialize(odd, 'default')] as const, ['de', materialize(odd, 'de')] as const];
    const files = { 'raw/2.js': rawModuleSource(odd, ['default', 'de'], m) };
    const mod = await importFrom(files, 'raw/2.js');
    const content = (mod.default as Story).content as Record<string, unknown>;
    expect(Object.hasOwn(content, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
    expect(JSON.stringify(mod.de)).toBe(JSON.stringify(m[1]![1]));
  });
});

describe('story modules', () => {
  const author = story(10, { component: 'author', name: 'Ada' });
  const other = story(11, { component: 'author', name: 'Grace' });
  const linked = story(12, { component: 'page', title: 'Linked' });
  const article = story(1, {
    component: 'article',
    title: 'On engines',
    author: author.uuid,
    reviewers: [other.uuid, author.uuid, 'not-a-story'],
    body: [
      { component: 'text', _uid: 'p1', text: 'First' },
      {
        component: 'cta',
        _uid: 'p2',
        link: { fieldtype: 'multilink', linktype: 'story', id: linked.uuid, cached_url: 'old/path', url: '' },
      },
      {
        component: 'cta',
        _uid: 'p3',
        link: { fieldtype: 'multilink', linktype: 'story', id: linked.uuid, cached_url: 'old/path', url: '' },
      },
    ],
  });
  const all = [article, author, other, linked];
  const lookup = {
    byUuid: (u: string) => all.find((s) => s.uuid === u),
    byId: (id: number) => all.find((s) => s.id === id),
  };
  const raws = new Map<object, RawRef>(all.map((s) => [s, { from: `../raw/${s.id}.js`, name: 'default' }]));
  const rawFiles = Object.fromEntries(all.map((s) => [`raw/${s.id}.js`, `export default ${JSON.stringify(s)};\n`]));

  it('imports the raw stories it embeds and writes only what resolution changed; the import equals the resolved story', async () => {
    const resolved = createResolver(
      { relations: ['article.author', 'article.reviewers'], links: 'url' },
      lookup,
    ).resolve(article).story;
    const source = storyModuleSource([['default', resolved]], raws);
    expect(source).toMatch(/^import \{ default as \$\d+ \} from "\.\.\/raw\/10\.js";$/m);
    expect(source).not.toContain('Ada');
    expect(source).not.toContain('First');
    const files = { ...rawFiles, 'stories/1.js': source };
    for (const mod of [await importFrom(files, 'stories/1.js'), readBack(files, 'stories/1.js')]) {
      const got = mod.default as Story;
      expect(JSON.stringify(got)).toBe(JSON.stringify(resolved));
      const content = got.content as unknown as {
        reviewers: Story[];
        author: Story;
        body: Array<{ link: { story: object } }>;
      };
      // One target, one object: the author embedded twice, the link shape used twice.
      expect(content.reviewers[1]).toBe(content.author);
      expect(content.body[1]!.link.story).toBe(content.body[2]!.link.story);
    }
  });

  it('a story nothing changes is its raw export', () => {
    const resolved = createResolver({ relations: ['article.author'] }, lookup).resolve(author).story;
    expect(storyModuleSource([['default', resolved]], raws)).toBe(
      'import { default as $0 } from "../raw/10.js";\nexport default $0;\n',
    );
  });

  it('reading back a module that is not one this compiler wrote fails', () => {
    expect(() => evaluateModule('export default 1;\nconsole.log("x");\n', () => ({}))).toThrow(
      /not a module this compiler wrote/,
    );
    expect(() => evaluateModule('import { x as $0 } from "../raw/1.js";\nexport default $0;\n', () => ({}))).toThrow(
      /unexpected import/,
    );
  });
});

describe('what a page that imports one language bundles', () => {
  it('that language, the default it builds on and the stories it embeds, not the other languages', async () => {
    const author: StoryVersion = {
      story: story(10, { component: 'author', name: 'Ada' }),
      languages: {
        de: { full_slug: 'de/ada', content: { bio: 'AUTHOR-DE' } },
        fr: { full_slug: 'fr/ada', content: { bio: 'AUTHOR-FR' } },
      },
    };
    const article: StoryVersion = {
      story: story(1, { component: 'article', title: 'ARTICLE-DEFAULT', author: uuid(10) }),
      languages: {
        de: { full_slug: 'de/artikel', content: { title: 'ARTICLE-DE' } },
        fr: { full_slug: 'fr/article', content: { title: 'ARTICLE-FR' } },
      },
    };
    const languages = ['default', 'de', 'fr'];
    const files: Record<string, string> = {};
    const raws = new Map<object, RawRef>();
    const byLang = new Map<string, Story[]>();
    for (const [id, version] of [
      [10, author],
      [1, article],
    ] as const) {
      const materialized = languages.map((l) => [l, materialize(version, l)] as const);
      files[`raw/${id}.js`] = rawModuleSource(version, languages, materialized);
      for (const [l, s] of materialized) {
        raws.set(s, { from: `../raw/${id}.js`, name: l });
        byLang.set(l, [...(byLang.get(l) ?? []), s]);
      }
    }
    const exports = languages.map((l) => {
      const [a, own] = byLang.get(l)!;
      const lookup = { byUuid: (u: string) => [a!, own!].find((s) => s.uuid === u), byId: () => undefined };
      return [l, createResolver({ relations: ['article.author'] }, lookup).resolve(own!).story] as const;
    });
    files['stories/1.js'] = storyModuleSource(exports, raws);
    files['entry.js'] = "import { de } from './stories/1.js';\nconsole.log(JSON.stringify(de));\n";
    const dir = writeFiles(files);
    const { build } = await import('vite');
    const result = (await build({
      root: dir,
      logLevel: 'silent',
      configFile: false,
      build: {
        write: false,
        minify: true,
        lib: { entry: path.join(dir, 'entry.js'), formats: ['es'], fileName: 'page' },
      },
    })) as Array<{ output: Array<{ code?: string }> }>;
    const code = result[0]!.output[0]!.code!;
    expect(code).toContain('ARTICLE-DE');
    expect(code).toContain('AUTHOR-DE');
    // The default is what the German variant is written over; French is nowhere.
    expect(code).toContain('ARTICLE-DEFAULT');
    expect(code).not.toContain('FR');
  }, 30_000);
});
