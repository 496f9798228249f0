/**
 * What the pages of an output were last rendered from and left as (a digest of what each is made
 * from, page-keys.ts, and its file's size and time), kept between builds in the content directory,
 * one file per output directory: `{ "outDir": <absolute path>, "pages": { <url>: <stamp> } }`. A
 * build takes them (reads them and leaves the file without stamps) before it renders and keeps the
 * new ones once every page is written: a build that stops half way leaves none, and the next renders
 * every page, never trusting the stamp of a page it did not finish. What it leaves still names the
 * pages (`written`): which files of the output are pages a build wrote stays known.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** The file of `outDir`'s stamps (named by a digest of the path: any path makes a file name). */
const fileFor = (contentDir: string, outDir: string): string =>
  path.join(contentDir, `rendered-pages-${createHash('sha256').update(outDir).digest('hex').slice(0, 16)}.json`);

/** What the last builds left of an output's pages. */
export interface Rendered {
  /** The stamp of each page of the last finished build, by URL (none when unknown). */
  stamps: Map<string, string>;
  /** The URLs of the pages the last finished build wrote, as far as known. */
  pages: Set<string>;
}

/** The stamps and pages of `outDir` (see Rendered); the stamps are taken out of the file. */
export async function takeRendered(contentDir: string, outDir: string): Promise<Rendered> {
  const file = fileFor(contentDir, outDir);
  let kept: { outDir?: unknown; pages?: unknown; written?: unknown };
  try {
    kept = JSON.parse(await fs.readFile(file, 'utf8')) as typeof kept;
  } catch {
    // None, unreadable or not JSON: nothing is known.
    await fs.rm(file, { force: true });
    return { stamps: new Map(), pages: new Set() };
  }
  const ours = kept.outDir === outDir;
  const stamps = new Map(
    ours && typeof kept.pages === 'object' && kept.pages !== null
      ? Object.entries(kept.pages).filter((e): e is [string, string] => typeof e[1] === 'string')
      : [],
  );
  const written = ours && Array.isArray(kept.written) ? kept.written.filter((u) => typeof u === 'string') : [];
  const pages = new Set<string>([...stamps.keys(), ...written]);
  await write(file, { outDir, pages: {}, written: [...pages] });
  return { stamps, pages };
}

/** Keeps the stamps of `outDir`'s pages for the next build (written whole, then put in place). */
export async function keepRendered(
  contentDir: string,
  outDir: string,
  pages: Iterable<[string, string]>,
): Promise<void> {
  await write(fileFor(contentDir, outDir), { outDir, pages: Object.fromEntries(pages) });
}

/** Writes the file whole, then puts it in place. */
async function write(file: string, value: unknown): Promise<void> {
  const partial = `${file}.${process.pid}.tmp`;
  await fs.writeFile(partial, JSON.stringify(value));
  await fs.rename(partial, file);
}
