/**
 * `npm run bench`: every benchmark, figures printed side by side.
 * Pass names to run some: `npm run bench -- service`; `sync` is `sync-bound` and `sync-memory`;
 * `compile-floor` is the part of `compile` that compares a full compile with its floor.
 */
import { benchAssets } from './assets.js';
import { benchFleet } from './fleet.js';
import { benchPlugin } from './plugin.js';
import { benchService } from './service.js';
import { benchSync, benchSyncBound, benchSyncMemory } from './sync.js';
import { benchCompile, benchCompileFloor } from './compile.js';
import { benchHostile } from './hostile.js';
import { benchLeanIndex } from './lean-index.js';
import { benchScale } from './scale.js';
import { benchSite } from './site.js';

const suites: Record<string, () => Promise<void>> = {
  service: benchService,
  sync: benchSync,
  'sync-bound': benchSyncBound,
  'sync-memory': benchSyncMemory,
  plugin: benchPlugin,
  compile: benchCompile,
  'compile-floor': benchCompileFloor,
  hostile: benchHostile,
  assets: benchAssets,
  index: benchLeanIndex,
  site: benchSite,
  scale: benchScale,
  fleet: benchFleet,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
// `sync` runs both of its parts; without names, each part runs once (`compile` includes `compile-floor`).
const all = Object.keys(suites).filter((name) => !name.startsWith('sync-') && name !== 'compile-floor');
for (const name of wanted.length ? wanted : all) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown benchmark "${name}"; choose from ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  await suite();
}
process.exit(0);
