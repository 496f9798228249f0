/**
 * The files at the top of a compile's output besides the stories' modules and
 * the chunks: types, runtime, index, datasources, tags, backlinks. Their names
 * are listed once here; the output guard (foreign-output.ts) reads the same list.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Tag } from '../api/index.js';
import type { DatasourceRecord } from '../snapshot/format.js';
import {
  GENERATED_HEADER,
  backlinksDeclaration,
  backlinksModule,
  datasourcesDeclaration,
  datasourcesModule,
  indexDeclaration,
  indexModule,
  storiesDeclaration,
  tagsDeclaration,
  tagsModule,
} from './emit.js';
import { RUNTIME_FILE, RUNTIME_SOURCE } from './serialize.js';
import { emitTypes, type TypeInferrer } from './types/index.js';

/** The files a compile writes at the top of its output directory, in the order it writes them. */
export const TOP_FILES = [
  'types.js',
  'types.d.ts',
  RUNTIME_FILE,
  'stories.d.ts',
  'index.js',
  'index.d.ts',
  'datasources.js',
  'datasources.d.ts',
  'tags.js',
  'tags.d.ts',
  'backlinks.js',
  'backlinks.d.ts',
] as const;

type TopFile = (typeof TOP_FILES)[number];

/**
 * The inferred types as compiles before types.d.ts wrote them: where it is left, TypeScript resolves
 * `./types.js` to it before types.d.ts. Another's file of that name is refused like the others.
 */
export const FORMER_TYPES = 'types.ts';

/**
 * How a types.ts began before compiles put GENERATED_HEADER in it (the types' own preamble): such a
 * file, left by an older version whose state this one does not read, is a compile's, not the project's.
 */
export const FORMER_TYPES_HEAD = '/**\n * Any component instance ("blok").';

/** A types.ts an earlier compile wrote, as a leftover to remove (a compile with a state removes it as a file it no longer writes). */
export function formerTypes(out: string): string[] {
  return existsSync(path.join(out, FORMER_TYPES)) ? [FORMER_TYPES] : [];
}

/** Each top file with its text (a name without a text, or a text without a name, does not type-check). */
export function sharedFiles(
  model: ReturnType<TypeInferrer['model']>,
  chunkTotal: number,
  languages: readonly string[],
  datasources: readonly DatasourceRecord[],
  tags: readonly Tag[],
  entryFields: readonly string[],
): Array<[TopFile, string]> {
  const storyTypes = new Map<string, string>();
  for (const c of model.components) if (c.contentType && c.storyName) storyTypes.set(c.name, c.storyName);
  const texts: Record<TopFile, string> = {
    // Declarations and an empty module, not a types.ts: a .ts file the app's declarations import is a
    // source of the app's program, which tsc emits (outside a rootDir, unlisted in a composite project).
    'types.js': `${GENERATED_HEADER}export {};\n`,
    'types.d.ts': `${GENERATED_HEADER}${emitTypes(model)}`,
    [RUNTIME_FILE]: RUNTIME_SOURCE,
    'stories.d.ts': storiesDeclaration(chunkTotal),
    'index.js': indexModule(chunkTotal, languages),
    'index.d.ts': indexDeclaration(chunkTotal, storyTypes, languages, entryFields),
    'datasources.js': datasourcesModule(datasources),
    'datasources.d.ts': datasourcesDeclaration(datasources),
    'tags.js': tagsModule(tags),
    'tags.d.ts': tagsDeclaration(tags),
    'backlinks.js': backlinksModule(chunkTotal),
    'backlinks.d.ts': backlinksDeclaration,
  };
  return TOP_FILES.map((name) => [name, texts[name]]);
}
