/**
 * `content-sync compile`: types and modules from a snapshot.
 */
import { promises as fs } from 'node:fs';
import v8 from 'node:v8';
import { compile, type CompileResult, entryFieldsProblem, schemaProblem } from '../compile/index.js';
import { ContentView, LinkMode, RELATION_PATTERN } from '../vite/options.js';
import { UsageError, choice, integer, parse } from './args.js';
import { count } from '../text/index.js';

const HELP = `usage: content-sync compile --snapshot DIR --out DIR [options]

  --snapshot DIR          a snapshot written by \`content-sync sync\`
  --out DIR               where the modules and types go
  --version V             published (default when the snapshot has it) or draft
  --resolve-relations L   comma-separated component.field list (API syntax)
  --detect-relations      also resolve uuid fields that name stories of the snapshot
  --resolve-links M       url, story or link
  --depth N               how deep resolved stories are resolved themselves (default 1)
  --keep-unresolved       keep a relation's uuid where its target is missing or
                          unpublished (default: left out, named in the warning)
  --entry-fields L        comma-separated content fields copied into each
                          story's index entries (entry.fields)
  --schema FILE           a component schema export to merge into the types
  --declaration FILE      where the declarations of every content: import go
                          (default: content.d.ts beside --out; none: not written)
  --full                  regenerate everything
  --threads N             threads of a full compile (default: one per core
                          from 2,000 stories on, at most 8; 1: this one only)
  --json                  print a machine-readable summary`;

export async function compileCommand(argv: string[]): Promise<number> {
  // A compile allocates much short-lived data: by default V8 lets the heap grow to several
  // times what is live before collecting, and gives each thread 16 MB semi-spaces. This process
  // only compiles, so keep both tighter; the worker threads it starts take the same settings. A
  // 100,000-story compile in two threads peaks at 430-460 MB (V8's defaults: above 510 MB); with
  // the heap growing by half instead of three quarters, near 420 MB, but it collects about half a
  // second longer.
  v8.setFlagsFromString('--heap-growing-percent=75');
  v8.setFlagsFromString('--max-semi-space-size=8');
  const { values } = parse(argv, {
    snapshot: { type: 'string' },
    out: { type: 'string' },
    version: { type: 'string' },
    'resolve-relations': { type: 'string' },
    'detect-relations': { type: 'boolean' },
    'resolve-links': { type: 'string' },
    depth: { type: 'string' },
    'keep-unresolved': { type: 'boolean' },
    'entry-fields': { type: 'string' },
    schema: { type: 'string' },
    declaration: { type: 'string' },
    full: { type: 'boolean' },
    threads: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const snapshot = values.snapshot as string | undefined;
  const out = values.out as string | undefined;
  if (!snapshot) throw new UsageError('compile needs --snapshot DIR');
  if (!out) throw new UsageError('compile needs --out DIR');
  if (values.declaration === '') throw new UsageError('--declaration must name a file (or none: not written)');
  const version = choice(ContentView, values.version as string | undefined, 'version');
  const links = choice(LinkMode, values['resolve-links'] as string | undefined, 'resolve-links');
  const relations = (values['resolve-relations'] as string | undefined)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const r of relations ?? [])
    if (!RELATION_PATTERN.test(r)) throw new UsageError(`--resolve-relations: "${r}" is not component.field`);
  const entryFields = (values['entry-fields'] as string | undefined)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const fieldsProblem = entryFieldsProblem(entryFields ?? []);
  if (fieldsProblem) throw new UsageError(`--entry-fields: ${fieldsProblem}`);
  let schema: unknown;
  if (values.schema === '')
    throw new UsageError('--schema needs a file (a component schema export); it was given an empty value');
  if (values.schema) {
    try {
      schema = JSON.parse(await fs.readFile(values.schema as string, 'utf8'));
    } catch (err) {
      throw new UsageError(`--schema ${String(values.schema)}: ${(err as Error).message}`);
    }
    const problem = schemaProblem(schema);
    if (problem) throw new UsageError(`--schema ${String(values.schema)}: ${problem}`);
  }
  // On a terminal, a line that says how far a long compile is (standard error; erased at the end).
  const tty = process.stderr.isTTY && !values.json;
  let last = 0;
  let result: CompileResult;
  try {
    result = await compile({
      snapshot,
      out,
      ...(version ? { view: version } : {}),
      ...(relations ? { resolveRelations: relations } : {}),
      detectRelations: Boolean(values['detect-relations']),
      ...(links ? { resolveLinks: links } : {}),
      depth: integer(values.depth as string | undefined, 'depth', 1, 0, 10),
      keepUnresolved: Boolean(values['keep-unresolved']),
      ...(entryFields ? { entryFields } : {}),
      ...(schema !== undefined ? { schema } : {}),
      ...(values.declaration !== undefined
        ? { declaration: values.declaration === 'none' ? false : (values.declaration as string) }
        : {}),
      full: Boolean(values.full),
      ...(values.threads !== undefined ? { threads: integer(values.threads as string, 'threads', 1, 1, 64) } : {}),
      onProgress: (done, total) => {
        if (!tty) return;
        const now = performance.now();
        if (now - last < 100) return;
        last = now;
        process.stderr.write(
          `\r\x1b[Kcompiling: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} stories`,
        );
      },
    });
  } finally {
    if (tty) process.stderr.write('\r\x1b[K');
  }
  for (const w of result.warnings) console.error(`warning: ${w}`);
  if (values.json) {
    console.log(JSON.stringify({ ok: true, ...result, durationMs: Math.round(result.durationMs) }));
  } else {
    console.log(
      `compiled ${count(result.stories, 'story', 'stories')} (${count(result.modules, 'module')}, ${result.mode}${result.fullBecause ? `: ${result.fullBecause}` : ''}) into ${out}: ` +
        `${count(result.written.length, 'file')} written, ${result.deleted.length} deleted in ${(result.durationMs / 1000).toFixed(1)}s`,
    );
  }
  return 0;
}
