import { generateDemoSpace } from './src/demo/index.js';
import { startServer, parseFaultSpec } from './src/server/index.js';
import { sync } from './src/sync/index.js';
import { snapshotContent, tempDir, removeDir } from './test/helpers/snapshot-files.js';
const data = generateDemoSpace({ stories: 200 });
const ref = await startServer({ space: generateDemoSpace({ stories: 200 }), rateLimit: false });
const d0 = await tempDir('x');
let t = performance.now();
const r0 = await sync({ baseUrl: ref.url, token: 'local-public-token', out: d0 });
console.log('clean', r0.requests, r0.retries, Math.round(performance.now() - t));
const base = await snapshotContent(d0);
for (const seed of [1, 2, 3]) {
  const s = await startServer({ space: generateDemoSpace({ stories: 200 }), rateLimit: false, faults: parseFaultSpec(`429=0.1,500=0.03,502=0.03,503=0.03,504=0.02,reset=0.03,truncate=0.03,slow=0.02,slowms=300,seed=${seed}`) });
  const d = await tempDir('x');
  t = performance.now();
  try {
    const r = await sync({ baseUrl: s.url, token: 'local-public-token', out: d });
    console.log('seed', seed, r.requests, r.retries, r.throttled, Math.round(performance.now() - t), JSON.stringify(await snapshotContent(d)) === JSON.stringify(base));
  } catch (e) { console.log('seed', seed, 'FAILED', (e as Error).message, Math.round(performance.now() - t)); }
  await s.close(); await removeDir(d);
}
for (const [n, seed] of [[200, 1], [50, 2], [10, 3]] as const) {
  const s = await startServer({ space: generateDemoSpace({ stories: n }), rateLimit: false, faults: parseFaultSpec(`429=0.5,seed=${seed}`) });
  const d = await tempDir('x');
  t = performance.now();
  try {
    const r = await sync({ baseUrl: s.url, token: 'local-public-token', out: d });
    console.log('storm', n, r.requests, r.retries, r.throttled, Math.round(performance.now() - t));
  } catch (e) { console.log('storm', n, 'FAILED', (e as Error).message, Math.round(performance.now() - t)); }
  await s.close(); await removeDir(d);
}
await ref.close(); await removeDir(d0);
