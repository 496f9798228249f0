/**
 * Shared pieces of the compile tests: walking an output directory, bytes and
 * modification times of every file, loading a generated module, and the
 * project's TypeScript compiler in build mode over several projects at once.
 */
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CompileOptions } from '../../src/compile/index.js';
import { evaluateModule } from '../../src/compile/serialize.js';
import { walk } from '../sync/support.js';

export const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

export { walk };

/** How the demo space is compiled: its relation fields resolved, links as `url`. */
export const DEMO_RESOLVE: Pick<CompileOptions, 'resolveRelations' | 'resolveLinks'> = {
  resolveRelations: ['article.author', 'article.categories', 'product.related_products'],
  resolveLinks: 'url',
};

/** `content-sync compile` of `snapshot` into `out` with DEMO_RESOLVE, and `extra` flags. */
export const demoCompileArgs = (snapshot: string, out: string, extra: readonly string[] = []): string[] => [
  'compile',
  '--snapshot',
  snapshot,
  '--out',
  out,
  '--resolve-relations',
  DEMO_RESOLVE.resolveRelations!.join(','),
  '--resolve-links',
  DEMO_RESOLVE.resolveLinks!,
  ...extra,
];

export interface FileState {
  text: string;
  mtimeMs: number;
}

/** Every file of a directory: its text and modification time. */
export async function readOutput(dir: string): Promise<Map<string, FileState>> {
  const out = new Map<string, FileState>();
  for (const rel of await walk(dir)) {
    const file = path.join(dir, rel);
    out.set(rel, { text: await fs.readFile(file, 'utf8'), mtimeMs: statSync(file).mtimeMs });
  }
  return out;
}

/** Paths whose bytes differ (or that exist on one side only). */
export function bytesDiff(
  a: ReadonlyMap<string, FileState>,
  b: ReadonlyMap<string, FileState>,
  skip: readonly string[] = [],
): string[] {
  const out = new Set<string>();
  for (const [rel, f] of a) if (b.get(rel)?.text !== f.text) out.add(rel);
  for (const rel of b.keys()) if (!a.has(rel)) out.add(rel);
  return [...out].filter((r) => !skip.includes(r)).sort();
}

/** Paths whose modification time moved (or that exist on one side only). */
export function touched(a: ReadonlyMap<string, FileState>, b: ReadonlyMap<string, FileState>): string[] {
  const out = new Set<string>();
  for (const [rel, f] of a) if (b.get(rel)?.mtimeMs !== f.mtimeMs) out.add(rel);
  for (const rel of b.keys()) if (!a.has(rel)) out.add(rel);
  return [...out].sort();
}

let loads = 0;
/** Imports a generated module afresh (a new URL each time, so no module cache). */
export async function importFresh<T = Record<string, unknown>>(file: string): Promise<T> {
  return (await import(`${pathToFileURL(file).href}?load=${++loads}`)) as T;
}

/**
 * The exports of a generated module as its files are now, imports included
 * (import() would give the raw modules it imports as this process first loaded them).
 */
export function readGenerated<T = Record<string, unknown>>(out: string, rel: string): T {
  return evaluateModule(readFileSync(path.join(out, rel), 'utf8'), (from) =>
    readGenerated(out, path.posix.join(path.posix.dirname(rel), from)),
  ) as T;
}

export interface BuildResult {
  code: number;
  output: string;
  /** Diagnostics by file, relative to the root directory. */
  errors: Map<string, string[]>;
}

/**
 * Writes one tsconfig per project (strict, NodeNext) and a solution that
 * references them all, then runs `tsc -b` once: each project is its own
 * program, so ambient module declarations of different projects do not meet.
 */
export async function buildProjects(
  root: string,
  projects: ReadonlyArray<{ dir: string; include: readonly string[] }>,
): Promise<BuildResult> {
  await fs.writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  for (const p of projects) {
    const config = {
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        types: [],
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        composite: true,
        emitDeclarationOnly: true,
        outDir: `../.tsc-out/${p.dir}`,
        tsBuildInfoFile: `../.tsc-out/${p.dir}.tsbuildinfo`,
        rootDir: '.',
        pretty: false,
      },
      include: p.include,
    };
    await fs.mkdir(path.join(root, p.dir), { recursive: true });
    await fs.writeFile(path.join(root, p.dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  }
  await fs.writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ files: [], references: projects.map((p) => ({ path: `./${p.dir}` })) }),
  );
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [TSC, '-b', 'tsconfig.json', '--pretty', 'false'],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
  const errors = new Map<string, string[]>();
  for (const line of output.split('\n')) {
    const m = /^(.+?)\(\d+,\d+\): error /.exec(line);
    if (!m) continue;
    const file = path.relative(root, path.resolve(root, m[1]!)).split(path.sep).join('/');
    const list = errors.get(file) ?? [];
    list.push(line);
    errors.set(file, list);
  }
  return { code, output, errors };
}
