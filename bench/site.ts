/**
 * The example site at scale, as `npm run example -- --stories N` builds it: cold (no demo space,
 * snapshot, modules or output: every phase from the demo to the last page) and warm (the same
 * content again), each with its phases, against the targets of 90 s cold and 45 s warm for
 * 10,000 stories on a 2-core machine. `npm run bench -- site`; `SITE_STORIES=N` for another size.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { contentDirFor, siteRoot } from '../example-site/vite.config.js';
import { fmt, loadavg } from './lib.js';

const TARGETS = { cold: 90, warm: 45 };

interface SiteBuild {
  pages: number;
  durationMs: number;
  phases: Array<{ name: string; ms: number }>;
}

/**
 * The example site's build, loaded at run time: the site is typed against its generated modules,
 * which exist only once it has synced, so it is type-checked on its own (see test/e2e).
 */
async function siteBuilder(): Promise<
  (options: { stories: number; outDir: string; logLevel: 'silent' }) => Promise<SiteBuild>
> {
  const module = (await import(pathToFileURL(path.join(siteRoot, 'site-build.ts')).href)) as {
    buildSite: (options: { stories: number; outDir: string; logLevel: 'silent' }) => Promise<SiteBuild>;
  };
  return module.buildSite;
}

export async function benchSite(): Promise<void> {
  const stories = Number(process.env.SITE_STORIES ?? 10_000);
  const outDir = path.join(os.tmpdir(), `content-sync-bench-site-${stories}`);
  await fs.rm(path.join(siteRoot, contentDirFor(stories)), { recursive: true, force: true });
  await fs.rm(outDir, { recursive: true, force: true });
  console.log(`\n## The example site over ${stories.toLocaleString('en-US')} stories (${os.cpus().length} cores)`);
  const buildSite = await siteBuilder();
  try {
    for (const run of ['cold', 'warm'] as const) {
      const result = await buildSite({ stories, outDir, logLevel: 'silent' });
      const seconds = result.durationMs / 1000;
      const phases = result.phases.map((p) => `${p.name} ${fmt(p.ms / 1000)}`).join(', ');
      console.log(
        `${run}: ${result.pages} pages in ${fmt(seconds)} s (target ${TARGETS[run]} s at 10,000 stories): ${phases}; load ${loadavg()}`,
      );
    }
  } finally {
    await fs.rm(outDir, { recursive: true, force: true });
  }
}
