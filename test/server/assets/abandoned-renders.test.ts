/**
 * A client that leaves before its rendition's turn (a page navigated away from while its images
 * waited) costs no render: the image service drops work nobody waits for, instead of holding the
 * next page's images behind it.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetReferences } from '../../../src/api/assets.js';
import { generateDemoSpace } from '../../../src/demo/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let photo: string;

beforeAll(async () => {
  server = await startTestServer({ space: generateDemoSpace({ stories: 10 }), assetUrls: 'self' });
  const { body } = await server.api('/v2/cdn/stories', { per_page: '100' });
  const urls = (body.stories as Array<{ content: unknown }>).flatMap((s) => assetReferences(s.content));
  photo = urls.map((r) => r.url).find((u) => u.endsWith('.jpg'))!;
  expect((await fetch(`${photo}/m/10x0`)).status).toBe(200); // the stand-in original, drawn once
});
afterAll(() => server.close());

/** Resolves once `condition` holds, checking at each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

/** A heavy rendition of width `w` (a blur over millions of pixels). */
const heavy = (w: number) => `${photo}/m/${w}x0/filters:blur(150):format(png)`;

describe('renders nobody waits for', () => {
  it('are dropped when their turn comes, and the work the clients still wait for is done', async () => {
    const assets = server.service.assets;
    const before = assets.renders;
    // Two renders the clients wait for take both of the image queue's places.
    const kept = [3990, 3991].map((w) => fetch(heavy(w)).then((r) => r.status));
    await until(() => assets.imageWork.running === 2);
    // Eight more queue behind them, and their clients leave.
    const left = [3980, 3981, 3982, 3983, 3984, 3985, 3986, 3987].map((w) => {
      const req = http.get(heavy(w));
      req.on('error', () => undefined);
      return req;
    });
    await until(() => assets.imageWork.waiting === 8);
    for (const req of left) req.destroy();

    expect(await Promise.all(kept)).toEqual([200, 200]);
    await until(() => assets.imageWork.running + assets.imageWork.waiting === 0);
    expect(assets.renders - before).toBe(2);
    // The service answers the next request at once, and a rendition asked for again is made.
    expect((await fetch(`${photo}/m/200x0`)).status).toBe(200);
    expect((await fetch(heavy(3980))).status).toBe(200);
  });
});
