/**
 * A compile replaces only files it wrote (each starts with GENERATED_HEADER): an output directory
 * or declarations file that is a project's own (`--out src`, `--declaration package.json`) is
 * refused before anything is written.
 */
import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_HEADER } from './emit.js';
import { generatedFiles } from './output.js';
import { FORMER_TYPES, FORMER_TYPES_HEAD, TOP_FILES } from './shared-files.js';

/** The names a compile writes (or wrote) at the top of its output directory. */
const OWN_TOP_FILES: readonly string[] = [...TOP_FILES, FORMER_TYPES];

/** Throws when `out` or `declaration` is not a compile's own. The directory is looked at when `fresh` (no compile's state is there). */
export function refuseForeignFiles(out: string, declaration: string | undefined, fresh: boolean): void {
  const foreign = (file: string): boolean => {
    const start = head(file);
    if (start === undefined) return false;
    const begins = (text: string): boolean => start.subarray(0, Buffer.byteLength(text)).equals(Buffer.from(text));
    return !begins(GENERATED_HEADER) && !(path.basename(file) === FORMER_TYPES && begins(FORMER_TYPES_HEAD));
  };
  // A directory opens for reading on Linux and fails the read with a bare EISDIR that names neither it nor the flag.
  if (declaration !== undefined && isDirectory(declaration))
    throw new Error(
      `${declaration} is a directory: the declarations are written to a file; choose one with --declaration FILE (or none)`,
    );
  if (declaration !== undefined && foreign(declaration))
    throw new Error(
      `${declaration} was not written by content-sync: a compile replaces only its own declarations; choose another --declaration (or dir)`,
    );
  const theirs = fresh ? foreignEntries(out, foreign) : [];
  if (theirs.length)
    throw new Error(
      `${out} holds files content-sync did not write (${theirs.join(', ')}): a compile writes into a new or empty directory or its own output; choose another --out (or dir)`,
    );
}

/** The first bytes of `file`, as many as a header has (undefined when it cannot be opened: missing, nobody's). */
function head(file: string): Buffer | undefined {
  // Only the head is read: the declarations are looked at on every compile, and can be large.
  const start = Buffer.alloc(Math.max(Buffer.byteLength(GENERATED_HEADER), Buffer.byteLength(FORMER_TYPES_HEAD)));
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return start.subarray(0, readSync(fd, start, 0, start.length, 0));
  } finally {
    closeSync(fd);
  }
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What a compile would overwrite in an output directory and did not write, or, in one holding
 * nothing of a compile's, whatever it holds: a project's `src` is refused whatever its files are
 * named. A directory with a compile's files in it (its state lost: a compile killed) is its own
 * output, other files there left alone. Hidden entries (a `.gitkeep`, the compile's lock) are not looked at.
 */
function foreignEntries(out: string, foreign: (file: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(out);
  } catch {
    return []; // missing (the compile creates it) or not a directory (the writer says so)
  }
  const colliding = OWN_TOP_FILES.filter((name) => foreign(path.join(out, name)));
  if (colliding.length || generatedFiles(out).length || OWN_TOP_FILES.some((name) => existsSync(path.join(out, name))))
    return colliding;
  return names
    .filter((name) => !name.startsWith('.'))
    .sort()
    .slice(0, 3);
}
