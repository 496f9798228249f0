import { execFile } from 'node:child_process';
import { promises as fs, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Story } from '../../../src/api/index.js';
import { realdata } from '../../helpers/realdata.js';

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

export function readReal(path: string): any {
  return realdata(path);
}

/** The stories a recorded response holds (`story`, `stories`, and resolved `rels`). */
export function storiesOf(json: any): Story[] {
  const out: Story[] = [];
  if (json.story) out.push(json.story);
  if (Array.isArray(json.stories)) out.push(...json.stories);
  if (Array.isArray(json.rels)) out.push(...json.rels);
  return out;
}

let uid = 0;
/** A minimal story around content (for fixtures that hold content only). */
export function story(content: Record<string, unknown>, extra: Record<string, unknown> = {}): Story {
  uid++;
  const hex = uid.toString(16).padStart(12, '0');
  return {
    id: uid,
    uuid: `00000000-0000-4000-8000-${hex}`,
    name: `s${uid}`,
    slug: `s${uid}`,
    full_slug: `s${uid}`,
    created_at: '2024-01-01T00:00:00.000Z',
    published_at: '2024-01-01T00:00:00.000Z',
    first_published_at: '2024-01-01T00:00:00.000Z',
    lang: 'default',
    content: { _uid: `c-${hex}`, ...content } as Story['content'],
    position: 0,
    is_startpage: false,
    parent_id: 0,
    group_id: `g-${hex}`,
    alternates: [],
    tag_list: [],
    ...extra,
  } as Story;
}

export interface TscResult {
  code: number;
  output: string;
  /** Diagnostics by file (relative to the project directory). */
  errors: Map<string, string[]>;
}

/** Writes `files` into a temp dir and runs `tsc --strict --noEmit` over them. */
export async function runTsc(files: Record<string, string>): Promise<TscResult> {
  const dir = mkdtempSync(join(tmpdir(), 'types-check-'));
  try {
    for (const [name, text] of Object.entries(files)) {
      const path = join(dir, name);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    }
    const roots = Object.keys(files).filter((f) => f.endsWith('.ts'));
    const args = [
      TSC,
      '--strict',
      '--noEmit',
      '--target',
      'ES2022',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--noUncheckedIndexedAccess',
      '--exactOptionalPropertyTypes',
      '--pretty',
      'false',
      ...roots,
    ];
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      });
    });
    const errors = new Map<string, string[]>();
    for (const line of output.split('\n')) {
      const m = /^(.+?)\(\d+,\d+\): error /.exec(line);
      if (!m) continue;
      const list = errors.get(m[1]!) ?? [];
      list.push(line);
      errors.set(m[1]!, list);
    }
    return { code, output, errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `tsc --noEmit -p <dir>` over a project already on disk (its own tsconfig.json); diagnostics as text. */
export function tscProject(dir: string): Promise<{ code: number; output: string }> {
  return tscIn(dir, ['--noEmit', '-p', dir]);
}

/**
 * Runs tsc --strict (bundler resolution, library files checked) over `<root>/main.ts` holding `main`,
 * with the content declarations at `declarations` (relative to root); its diagnostics.
 */
export async function checkMain(root: string, main: string, declarations: string | string[]): Promise<string> {
  await fs.writeFile(path.join(root, 'main.ts'), main);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: [],
  };
  await fs.writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, include: ['main.ts', ...[declarations].flat()] }),
  );
  return (await tscProject(root)).output;
}

/** Runs `tsc -b <dir>` (a build, emitting what the project's tsconfig.json says); diagnostics as text. */
export function tscBuild(dir: string): Promise<{ code: number; output: string }> {
  return tscIn(dir, ['-b', dir]);
}

function tscIn(dir: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, ...args, '--pretty', 'false'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

/** An app as create-vite makes one (bundler resolution, strict) whose tsconfig includes `src` and `.content/content.d.ts`, nothing else. */
export async function bundlerApp(root: string, files: Record<string, string>): Promise<void> {
  await fs.mkdir(path.join(root, 'src'), { recursive: true });
  await fs.writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const compilerOptions = {
    target: 'es2023',
    module: 'esnext',
    moduleResolution: 'bundler',
    lib: ['ES2023', 'DOM'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    noUncheckedIndexedAccess: true,
    types: [],
  };
  await fs.writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, include: ['src', '.content/content.d.ts'] }),
  );
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(root, 'src', name), text);
}

/**
 * One tsc run over the app at `root`, whose sources are `src/main.ts` and `src/wrong<i>.ts` for each
 * of `wrong`: everything but the wrong files must check clean, and each wrong file must fail.
 */
export async function expectOnlyWrongFail(root: string, wrong: readonly string[]): Promise<void> {
  const { output } = await tscProject(root);
  const errors = output.split('\n').filter((line) => /\): error /.test(line));
  expect(errors.filter((line) => !/^src\/wrong\d+\.ts\(/.test(line))).toEqual([]);
  for (let i = 0; i < wrong.length; i++)
    expect(output, wrong[i]).toMatch(new RegExp(`src/wrong${i}\\.ts\\(\\d+,\\d+\\): error`));
}
