/**
 * The small files the plugin keeps beside the snapshot between runs (the space directory's origin,
 * the running service): written whole or not at all, renamed into place, so a reader never sees
 * half of one. A write that fails costs the work the file would have saved, nothing more.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` whole (with `mode`, when given); false when it could not. */
export function keepFile(file: string, text: string, mode?: number): boolean {
  const staged = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(staged, text, mode === undefined ? undefined : { mode });
    // A stray staged file of this process's id keeps its own mode: set again.
    if (mode !== undefined) chmodSync(staged, mode);
    renameSync(staged, file);
    return true;
  } catch {
    try {
      rmSync(staged, { force: true });
    } catch {
      // A stray file of this process's id, replaced by its next write.
    }
    return false;
  }
}
