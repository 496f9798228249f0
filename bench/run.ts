/**
 * `npm run bench`: every benchmark, figures printed side by side.
 * Pass names to run some: `npm run bench -- service`.
 */
import { benchPlugin } from './plugin.js';
import { benchService } from './service.js';
import { benchSync } from './sync.js';
import { benchCompile } from './compile.js';

const suites: Record<string, () => Promise<void>> = {
  service: benchService,
  sync: benchSync,
  plugin: benchPlugin,
  compile: benchCompile,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of wanted.length ? wanted : Object.keys(suites)) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown benchmark "${name}"; choose from ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  await suite();
}
process.exit(0);
