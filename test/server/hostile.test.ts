import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW, PUBLIC, startTestServer, type TestServer } from '../helpers/server.js';
import { uuidOf } from '../helpers/fixture-space.js';
import { random as prng } from '../helpers/random.js';

const LONG = 'a'.repeat(100 * 1024);
const LONG_MIXED = '%E2%9C%93'.repeat(2_000) + 'x'.repeat(50_000);

const NUMBERS = [
  '0',
  '1',
  '-1',
  '-0',
  '1.5',
  '0.0001',
  '1e3',
  '1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '+5',
  ' 7',
  '%201',
  '99999999999999999999999',
  '9007199254740993',
  '000000000000000000001',
  '',
  '1,2',
  '1%2C2',
  '2%00',
  '-99999999999',
];

const STRINGS = [
  '',
  'x',
  '%',
  '%%',
  '%zz',
  '%00',
  '%C0%AF',
  '%C0%AE%C0%AE%2F',
  '%FF%FE',
  '%E2%9C',
  '%F0%9F%98%80',
  '%D7%A9%D7%9C%D7%95%D7%9D',
  '%E2%80%AE%E2%80%8Frtl',
  '+',
  '%2B',
  'a+b',
  '*',
  '**',
  '.',
  '..',
  '../..',
  '%2E%2E%2F',
  '/',
  '//',
  '%2F',
  'blog/',
  'blog/*',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '[object Object]',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  'a,b,,c,',
  ',,,',
  'content.title',
  'content.__proto__.x',
  "'; DROP TABLE stories;--",
  '<script>',
  '\\',
  '%5C',
  '$where',
  '(a|b)*c',
  '((((((((((a))))))))))',
  '.*.*.*.*.*.*.*.*.*.*!',
  'first-post',
  uuidOf(12),
  `${uuidOf(12)},${uuidOf(16)}`,
  'de',
  'default',
  '[default]',
  'draft',
  'published',
  'story',
  'url',
  'link',
  'article.author',
  'page.featured,article.author',
  'a.b.c',
  'title:asc',
  'content.rating:desc:int',
  'position:asc:float:extra',
  ':',
  'asc',
  'é',
  '%E9',
  'x'.repeat(3000),
];

const OPERATORS = [
  'in',
  'not_in',
  'like',
  'not_like',
  'is',
  'all_in_array',
  'in_array',
  'any_in_array',
  'gt_date',
  'lt_date',
  'gt_int',
  'lt_int',
  'gt_float',
  'lt_float',
  'regex',
  'eq',
  '',
  '__proto__',
  'constructor',
  'IN',
  'in ',
  '%00',
];

const FIELDS = [
  'title',
  'component',
  'rating',
  'content.seo.title',
  'seo.title',
  'author',
  'categories',
  'published',
  '__proto__',
  'constructor',
  'a.b.c.d',
  '',
  '..',
  'x%5By',
];

const PARAMS = [
  'page',
  'per_page',
  'level',
  'cv',
  'by_ids',
  'excluding_ids',
  'in_workflow_stages',
  'from_release',
  'resolve_level',
  'resolve_links_level',
  'sort_by',
  'search_term',
  'starts_with',
  'by_slugs',
  'excluding_slugs',
  'by_uuids',
  'by_uuids_ordered',
  'resolve_relations',
  'resolve_links',
  'resolve_assets',
  'language',
  'fallback_lang',
  'version',
  'with_tag',
  'excluding_fields',
  'excluding_story_fields',
  'is_startpage',
  'first_published_at_gt',
  'published_at_lt',
  'updated_at_gt',
  'datasource',
  'dimension',
  'find_by',
  'content_type',
  'only_variants',
  '__proto__',
  'constructor',
  'prototype',
  'token',
  'unknown_param',
  '',
  '%00',
  'page%5B%5D',
  'per_page[]',
];

const NUMERIC_PARAMS = new Set([
  'page',
  'per_page',
  'level',
  'cv',
  'by_ids',
  'excluding_ids',
  'in_workflow_stages',
  'from_release',
  'resolve_level',
  'resolve_links_level',
]);

const ENDPOINTS = [
  '/v1/cdn/stories',
  '/v2/cdn/stories',
  '/v1/cdn/stories/blog/first-post',
  '/v2/cdn/stories/blog/first-post',
  '/v2/cdn/stories/home',
  '/v1/cdn/stories/de/home',
  '/v2/cdn/stories/12',
  `/v2/cdn/stories/${uuidOf(12)}`,
  '/v1/cdn/spaces/me',
  '/v2/cdn/spaces/me',
  '/v1/cdn/datasources',
  '/v2/cdn/datasources',
  '/v1/cdn/datasource_entries',
  '/v2/cdn/datasource_entries',
  '/v1/cdn/tags',
  '/v2/cdn/tags',
];

const ODD_PATHS = [
  '/v2/cdn/stories/..',
  '/v2/cdn/stories/../stories',
  '/v2/cdn/../cdn/stories',
  '/v2/cdn/stories//blog//first-post',
  '//v2/cdn/stories',
  '/v2//cdn/stories',
  '/v2/cdn/stories/blog%2Ffirst-post',
  '/v2/cdn/stories/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '/v2/cdn/stories/%',
  '/v2/cdn/stories/%zz',
  '/v2/cdn/stories/%00',
  '/v2/cdn/stories/%C0%AF',
  '/v1/cdn/stories/%F0%9F%98%80',
  '/v2/cdn/stories/blog/',
  '/v2/cdn/stories/[default]/home',
  '/v2/cdn/stories/de/',
  '/v2/cdn/stories/__proto__',
  '/v2/cdn/stories/constructor',
  '/v2/cdn/stories/',
  '/v2/cdn/spaces/me/',
  '/v2/cdn/spaces/../spaces/me',
  '/v2/cdn/datasource_entries/',
  '/v2/cdn/tags/%2F',
  '/v3/cdn/stories',
  '/v2/cdn',
  '/v2/cdn/',
  '/',
  '/favicon.ico',
  '/v2/cdn/stories/é',
  `/v2/cdn/stories/${'x'.repeat(5000)}`,
  `/v2/cdn/stories/${LONG}`,
];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function filterKey(rand: () => number): string {
  switch (Math.floor(rand() * 12)) {
    case 0:
      return 'filter_query[a';
    case 1:
      return 'filter_query]]';
    case 2:
      return 'filter_query[a][b][c][d]';
    case 3:
      return `filter_query[__or][${pick(rand, ['x', '', '0', '-1', '__proto__'])}]${rand() < 0.5 ? `[${pick(rand, FIELDS)}][${pick(rand, OPERATORS)}]` : ''}`;
    case 4:
      return 'filter_query';
    case 5:
      return `filter_query[${pick(rand, FIELDS)}]`;
    case 6:
      return `filter_query%5B${pick(rand, FIELDS)}%5D%5B${pick(rand, OPERATORS)}%5D`;
    case 7:
      return `filter_query[__or][][${pick(rand, FIELDS)}][${pick(rand, OPERATORS)}]`;
    case 8:
      return `filter_query[[${pick(rand, FIELDS)}]][${pick(rand, OPERATORS)}]`;
    default:
      return `filter_query[${pick(rand, FIELDS)}][${pick(rand, OPERATORS)}]`;
  }
}

function value(rand: () => number, key: string): string {
  const r = rand();
  if (r < 0.004) return LONG;
  if (r < 0.008) return LONG_MIXED;
  if (NUMERIC_PARAMS.has(key) && r < 0.7) return pick(rand, NUMBERS);
  if (r < 0.2) return pick(rand, NUMBERS);
  return pick(rand, STRINGS);
}

/** One hostile request target: a path and a raw query string, not normalized. */
function hostileTarget(rand: () => number, cv: number): string {
  const path = rand() < 0.1 ? pick(rand, ODD_PATHS) : pick(rand, ENDPOINTS);
  const parts: string[] = [];
  const tokenChoice = rand();
  if (tokenChoice < 0.6) parts.push(`token=${PUBLIC}`);
  else if (tokenChoice < 0.9) parts.push(`token=${PREVIEW}`, 'version=draft');
  else if (tokenChoice < 0.95) parts.push(`token=${PUBLIC}`, `token=${PREVIEW}`);
  // Mostly the current cv, so that v2 requests pass the redirect and reach the handlers.
  if (rand() < 0.8) parts.push(`cv=${cv}`);
  const count = 1 + Math.floor(rand() * 5);
  for (let i = 0; i < count; i++) {
    const key = rand() < 0.35 ? filterKey(rand) : pick(rand, PARAMS);
    const v = value(rand, key);
    const repeat = rand() < 0.15 ? 2 + Math.floor(rand() * 3) : 1;
    for (let k = 0; k < repeat; k++) parts.push(rand() < 0.05 ? key : `${key}=${v}`);
  }
  if (rand() < 0.05) parts.push('&&=&=x&');
  for (let i = parts.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  // Spaces cannot travel raw in a request line; everything else goes as generated.
  return `${path}?${parts.join('&')}`.replaceAll(' ', rand() < 0.5 ? '%20' : '+');
}

interface Outcome {
  target: string;
  status: number;
  contentType: string;
  body: string;
}

/** Sends the raw target with node:http, so nothing rewrites the path or the query. A
 * redirect of a long URL carries it in `Location`, so response heads may be long too. */
function send(agent: http.Agent, port: number, target: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: target, method: 'GET', agent, maxHeaderSize: 1024 * 1024 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            target,
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function pool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

function problem(o: Outcome): string | undefined {
  if (o.status >= 500) return `status ${o.status}`;
  if (!/application\/json/.test(o.contentType)) return `content-type "${o.contentType}"`;
  try {
    JSON.parse(o.body);
  } catch {
    return `body is not JSON: ${o.body.slice(0, 80)}`;
  }
  return undefined;
}

const short = (target: string) =>
  target.length > 300 ? `${target.slice(0, 300)}... (${target.length} chars)` : target;

describe('hostile query strings', () => {
  let server: TestServer;
  let agent: http.Agent;

  beforeAll(async () => {
    server = await startTestServer({ rateLimit: false });
    agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  it('3,600 generated requests: never a 5xx, never a non-JSON body, the server stays up', async () => {
    const rand = prng(20240601);
    const cv = server.service.store.space.version;
    const targets = Array.from({ length: 3_600 }, () => hostileTarget(rand, cv));
    for (const p of ODD_PATHS) targets.push(`${p}?token=${PUBLIC}&cv=${cv}`);

    const failures: string[] = [];
    const outcomes = await pool(targets, 16, async (target) => {
      try {
        const o = await send(agent, server.port, target);
        const why = problem(o);
        if (why) failures.push(`${why}: GET ${short(target)}`);
        return o;
      } catch (err) {
        failures.push(`request failed (${(err as Error).message}): GET ${short(target)}`);
        return undefined;
      }
    });
    expect(failures.slice(0, 15), `${failures.length} of ${targets.length} failed`).toEqual([]);

    // The generator reached the handlers, not only the error paths.
    const statuses = new Set(outcomes.map((o) => o?.status));
    expect(statuses).toContain(200);
    expect(statuses).toContain(422);

    const normal = await server.api('/v2/cdn/stories/blog/first-post');
    expect(normal.status).toBe(200);
    expect(normal.body.story.id).toBe(12);
  });

  it('a filter nesting __or thousands of levels deep is refused as any malformed filter, on v1 and v2', async () => {
    const cv = server.service.store.space.version;
    for (const [api, level] of [
      ['v1', '[__or][]'],
      ['v2', '[__or][0]'],
    ] as const) {
      const deep = `/${api}/cdn/stories?token=${PUBLIC}&cv=${cv}&filter_query${level.repeat(6_000)}[title][in]=a`;
      const answer = await send(agent, server.port, deep);
      expect(answer.status, api).toBe(422);
      expect(JSON.parse(answer.body).error).toMatch(/__or nested more than 32 levels deep/);
      // As deep as a query ever goes: answered.
      const usual = `/${api}/cdn/stories?token=${PUBLIC}&cv=${cv}&filter_query${level.repeat(32)}[title][in]=a`;
      expect((await send(agent, server.port, usual)).status, api).toBe(200);
    }
  });

  it('requests the HTTP parser refuses still get a JSON error', async () => {
    const rawByte = await send(agent, server.port, `/v2/cdn/stories/\u00e9?token=${PUBLIC}`);
    expect(rawByte.status).toBe(400);
    expect(JSON.parse(rawByte.body)).toEqual({ error: expect.any(String) });

    const tooLong = await send(
      agent,
      server.port,
      `/v2/cdn/stories?token=${PUBLIC}&search_term=${'b'.repeat(300 * 1024)}`,
    ).catch((err: Error) => err);
    // The service answers before it has read the whole request, so the socket may also be reset under the client.
    if (!(tooLong instanceof Error)) {
      expect(tooLong.status).toBe(431);
      expect(JSON.parse(tooLong.body)).toEqual({ error: expect.stringMatching(/larger than/) });
    }
    expect((await server.api('/v2/cdn/spaces/me')).status).toBe(200);
  });
});
