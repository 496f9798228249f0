/**
 * For prerenderers that render again only the pages whose content changed:
 * the digest of a generated content module together with every module it
 * imports. A story page's content is its story module (`stories/<id>.js`),
 * which imports the raw module of the story and of each story it embeds
 * whole: when the digest of that module is the one the page was last
 * rendered with, neither the story nor anything it shows from other stories
 * changed. Reading the files (the generated modules, or their copies beside
 * a server bundle with `ssrModules: 'external'`) rather than the compile's
 * bookkeeping makes the answer right however many syncs and compiles ran in
 * between.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The folder of a server build's output that holds the content modules with `ssrModules: 'external'`. */
export const SERVER_CONTENT_DIR = 'content';

/**
 * A static import of a generated module: `import "<spec>"`, `import ... from "<spec>"` or
 * `export ... from "<spec>"`, each on a line of its own before anything else. Dynamic `import()`
 * (the index's loaders) loads on demand, so a module's digest does not take in what it loads that way.
 */
const STATIC_IMPORT = /^(?:import\s*|(?:import|export)\b[^\n"]*\bfrom\s*)"(\.{1,2}\/[^"\n]+)";?\s*$/;

/**
 * The relative specifiers a generated module imports: read from its leading lines up to the first
 * that is neither an import nor a comment, so the content after them (most of a raw module's
 * bytes) is not decoded.
 */
function importsOf(bytes: Buffer): string[] {
  const specs: string[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(10, start);
    const line = bytes.toString('utf8', start, end < 0 ? bytes.length : end).trim();
    const m = STATIC_IMPORT.exec(line);
    if (m) specs.push(m[1]!);
    else if (line !== '' && !line.startsWith('//')) break;
    if (end < 0) break;
    start = end + 1;
  }
  return specs;
}

/** Digests of content modules, each file read once however many modules import it (an author many articles embed). */
export class ModuleDigests {
  readonly #digests = new Map<string, string>();
  /** Files whose digest is being worked out (an import cycle counts the module once, by its path). */
  readonly #open = new Set<string>();

  /**
   * sha256 (hex) of the module at `file` and of the modules it imports, transitively (relative
   * specifiers: generated modules import nothing else). Throws when a file cannot be read.
   */
  of(file: string): string {
    const at = path.resolve(file);
    const known = this.#digests.get(at);
    if (known !== undefined) return known;
    const bytes = readFileSync(at);
    const hash = createHash('sha256').update(bytes);
    this.#open.add(at);
    try {
      for (const spec of importsOf(bytes)) {
        const target = path.resolve(path.dirname(at), spec);
        hash.update(`\0${spec}\0${this.#open.has(target) ? '' : this.of(target)}`);
      }
    } finally {
      this.#open.delete(at);
    }
    const digest = hash.digest('hex');
    this.#digests.set(at, digest);
    return digest;
  }
}
