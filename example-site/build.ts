/**
 * `npm run example [-- --stories N]`: builds the example site against the embedded local
 * Content Delivery Service over an N-story demo space (default 200). No network, no account, no
 * token to set: the service runs in this process on a free loopback port.
 *
 * Every published story, in every language of the space, becomes
 * `dist/<full_slug>/index.html` (a folder's start page at the folder's path,
 * the home story at `/` and `/<lang>/`), plus a page per tag. Prints where the time went.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type BuildResult, buildSite } from './site-build.js';
import { DEFAULT_STORIES } from './vite.config.js';

function storiesArg(): number {
  const { values } = parseArgs({ options: { stories: { type: 'string' } } });
  if (values.stories === undefined) return DEFAULT_STORIES;
  const stories = Number(values.stories);
  // The demo generator checks the range and says it.
  if (!Number.isInteger(stories)) throw new Error(`--stories takes a whole number, not "${values.stories}"`);
  return stories;
}

/** What a warm build did not redo: pages whose content did not change, files left with the same bytes. */
function reuse(result: BuildResult): string {
  const notes: string[] = [];
  if (result.rendered < result.pages) notes.push(`${result.rendered} rendered, the others' content unchanged`);
  if (result.rewritten < result.rendered)
    notes.push(`${result.rendered - result.rewritten} rendered to the same bytes`);
  return notes.length ? ` (${notes.join('; ')})` : '';
}

try {
  const result = await buildSite({ logLevel: 'info', stories: storiesArg() });
  const out = path.relative(process.cwd(), result.outDir) || '.';
  console.log(
    `\nBuilt ${result.pages} pages in ${(result.durationMs / 1000).toFixed(1)}s into ${out}/${reuse(result)}`,
  );
  for (const phase of result.phases) console.log(`  ${phase.name.padEnd(14)} ${(phase.ms / 1000).toFixed(1)}s`);
  console.log(`Preview: npx vite preview --outDir ${out}   (then open the URL it prints)`);
} catch (err) {
  console.error(`example build failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
