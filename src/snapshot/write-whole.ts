/**
 * A file written whole or not at all: staged beside it and renamed into place, so a reader (tsc,
 * an editor, another process) never sees half of one.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` whole (with `mode`, when given); throws what failed, leaving no staged file. */
export function writeWhole(file: string, text: string, mode?: number): void {
  // The process id and a nonce: threads of one process share the id.
  const staged = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(staged, text, mode === undefined ? undefined : { mode });
    // The umask narrows the mode a file is created with: set it as asked.
    if (mode !== undefined) chmodSync(staged, mode);
    renameSync(staged, file);
  } catch (err) {
    rmSync(staged, { force: true });
    throw err;
  }
}
