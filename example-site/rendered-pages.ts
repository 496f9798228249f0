/**
 * What the pages of an output were last rendered from and left as (a digest of what each is made
 * from, page-keys.ts, and its file's size and time), kept between builds in the content directory,
 * one file per output directory: `{ "outDir": <absolute path>, "pages": { <url>: <stamp> } }`. A
 * build takes them (reads and removes the file) before it renders and keeps the new ones once every
 * page is written: a build that stops half way leaves none, and the next renders every page, never
 * trusting the stamp of a page it did not finish.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** The file of `outDir`'s stamps (named by a digest of the path: any path makes a file name). */
const fileFor = (contentDir: string, outDir: string): string =>
  path.join(contentDir, `rendered-pages-${createHash('sha256').update(outDir).digest('hex').slice(0, 16)}.json`);

/** The stamps of `outDir`'s pages by URL, none when there are none for it (or they cannot be read); the file is removed. */
export async function takeRendered(contentDir: string, outDir: string): Promise<Map<string, string>> {
  const file = fileFor(contentDir, outDir);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return new Map();
  }
  await fs.rm(file, { force: true });
  try {
    const kept = JSON.parse(text) as { outDir?: unknown; pages?: unknown };
    if (kept.outDir !== outDir || typeof kept.pages !== 'object' || kept.pages === null) return new Map();
    return new Map(Object.entries(kept.pages).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return new Map();
  }
}

/** Keeps the stamps of `outDir`'s pages for the next build (written whole, then put in place). */
export async function keepRendered(
  contentDir: string,
  outDir: string,
  pages: Iterable<[string, string]>,
): Promise<void> {
  const file = fileFor(contentDir, outDir);
  const partial = `${file}.${process.pid}.tmp`;
  await fs.writeFile(partial, JSON.stringify({ outDir, pages: Object.fromEntries(pages) }));
  await fs.rename(partial, file);
}
