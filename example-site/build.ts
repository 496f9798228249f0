/**
 * `npm run example`: builds the example site against the embedded local
 * Content Delivery Service over the demo space. No network, no account, no
 * token to set: the service runs in this process on a free loopback port.
 *
 * Every published story, in every language of the space, becomes
 * `dist/<full_slug>/index.html` (a folder's start page at the folder's path,
 * the home story at `/` and `/<lang>/`), plus a page per tag.
 */
import path from 'node:path';
import { buildSite } from './site-build.js';

try {
  const result = await buildSite({ logLevel: 'info' });
  const out = path.relative(process.cwd(), result.outDir) || '.';
  console.log(`\nBuilt ${result.pages} pages in ${(result.durationMs / 1000).toFixed(1)}s into ${out}/`);
  console.log(`Preview: npx vite preview --outDir ${out}   (then open the URL it prints)`);
} catch (err) {
  console.error(`example build failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
