/**
 * The floor of a full compile: the least any compiler that writes a module per story must do,
 * as a plain single-threaded script on the same file system. It reads the stories index, reads
 * and parses every record, and writes two modules per story (the story as its record has it,
 * and one that re-exports it), nothing else.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INDEX_FILES, storyFile } from '../src/snapshot/index.js';

/** Milliseconds the floor takes for the snapshot `snapshot`, writing into `out` (fresh). */
export function compileFloor(snapshot: string, out: string): number {
  const started = performance.now();
  const index = JSON.parse(readFileSync(path.join(snapshot, INDEX_FILES.stories), 'utf8')) as Array<{ id: number }>;
  mkdirSync(path.join(out, 'raw'), { recursive: true });
  mkdirSync(path.join(out, 'stories'), { recursive: true });
  for (const { id } of index) {
    const record = JSON.parse(readFileSync(path.join(snapshot, storyFile(id)), 'utf8')) as {
      published?: { story: unknown };
    };
    const story = record.published?.story;
    if (!story) continue;
    writeFileSync(path.join(out, 'raw', `${id}.js`), `export default ${JSON.stringify(story)};\n`);
    writeFileSync(path.join(out, 'stories', `${id}.js`), `export { default } from '../raw/${id}.js';\n`);
  }
  return performance.now() - started;
}
