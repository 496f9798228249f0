/**
 * The service's version 2 resolution and the compiler's agree on the same
 * content, within the API's limits: for every story of a view, in every
 * language and links mode, the stories the compiler embeds for relations are
 * the service's `rels`, and what its links show are the service's `links`.
 *
 * Real parts end to end: the local service answers over HTTP, a sync writes
 * the snapshot, the compiler writes modules, and the modules are read back.
 * Links to folders are the one exception, named where they are compared.
 * The content covers what the two could disagree on: relation targets that are
 * draft-only, unpublished since, missing, or named by numeric id; links to
 * folders, to draft-only and unpublished targets, rich-text link marks, and a
 * story whose draft differs from its published version.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/index.js';
import type { LinksMode } from '../../src/resolve/index.js';
import { sync } from '../../src/sync/index.js';
import { readGenerated } from '../compile/support.js';
import { uuidOf } from '../helpers/fixture-space.js';
import { PREVIEW, startTestServer, type TestServer } from '../helpers/server.js';
import { admin } from '../sync/support.js';

type Json = Record<string, any>;

const RELATIONS = ['page.featured', 'article.author', 'author.articles', 'page.related', 'page.by_id'];
const MODES: readonly LinksMode[] = ['story', 'url', 'link'];
const LANGS = ['default', 'de'];

const multilink = (uuid: string) => ({
  fieldtype: 'multilink',
  linktype: 'story',
  id: uuid,
  url: '',
  cached_url: 'stale/path',
});
const mark = (uuid: string) => ({
  type: 'text',
  text: 'see',
  marks: [{ type: 'link', attrs: { linktype: 'story', uuid, href: '/stale', anchor: 'top' } }],
});

/**
 * What a resolved story shows: the stories it embeds for relations, and what
 * each resolved link shows under `story`, by uuid. Read from the output alone:
 * an embedded story is a story object (id, uuid, full slug, content) met
 * anywhere but under a link's `story`; embedded stories are not walked into.
 */
function resolvedParts(content: unknown): { rels: Map<string, Json>; links: Map<string, Json> } {
  const rels = new Map<string, Json>();
  const links = new Map<string, Json>();
  const isStory = (v: unknown): v is Json =>
    typeof v === 'object' && v !== null && 'uuid' in v && 'full_slug' in v && 'content' in v && 'id' in v;
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (isStory(node)) {
      rels.set(node.uuid, node);
      return;
    }
    const o = node as Json;
    const isLink =
      (o.linktype === 'story' && typeof o.id === 'string') || (o.linktype === 'story' && typeof o.uuid === 'string');
    for (const [key, value] of Object.entries(o)) {
      if (isLink && key === 'story') links.set(value.uuid, value);
      else walk(value);
    }
  };
  walk(content);
  return { rels, links };
}

const byUuid = (list: Json[]) => new Map(list.map((s) => [s.uuid, s]));
/** As JSON carries it: the compiler's objects compared with the service's answers. */
const asJson = (m: Map<string, Json>) => new Map([...m].map(([k, v]) => [k, JSON.parse(JSON.stringify(v))]));

describe('the service (v2) and the compiler resolve alike', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer({ admin: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'content-sync-differential-'));
    const create = async (slug: string, content: Json, publish: 'publish' | 'draft' | 'withdraw') => {
      const { story } = await admin(server.url, 'POST', '/stories', { name: slug, slug, parent_id: 0, content });
      if (publish !== 'draft') await admin(server.url, 'POST', `/stories/${story.id}/publish`);
      if (publish === 'withdraw') await admin(server.url, 'POST', `/stories/${story.id}/unpublish`);
      return story as { id: number; uuid: string };
    };
    const drafted = await create('drafted', { component: 'article', title: 'Draft only', author: uuidOf(16) }, 'draft');
    const withdrawn = await create(
      'withdrawn',
      { component: 'author', name: 'Gone', articles: [uuidOf(12)] },
      'withdraw',
    );
    const missing = '99999999-0000-4000-8000-000000000000';
    const hub = await create(
      'hub',
      {
        component: 'page',
        featured: [uuidOf(12), drafted.uuid, withdrawn.uuid, missing, uuidOf(12)],
        related: withdrawn.uuid,
        by_id: ['14', 16],
        links: [
          multilink(uuidOf(1)),
          multilink(drafted.uuid),
          multilink(withdrawn.uuid),
          multilink(uuidOf(13)),
          multilink(missing),
        ],
        text: {
          type: 'doc',
          content: [{ type: 'paragraph', content: [mark(drafted.uuid), mark(uuidOf(5)), mark(uuidOf(10))] }],
        },
      },
      'publish',
    );
    // The hub's draft differs from its published version.
    await admin(server.url, 'PUT', `/stories/${hub.id}`, {
      content: { component: 'page', featured: [uuidOf(13), drafted.uuid], links: [multilink(drafted.uuid)] },
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const view of ['published', 'draft'] as const) {
    it(`in the ${view} view, every story, language and links mode`, async () => {
      const snapshot = path.join(dir, `snapshot-${view}`);
      // Both views, as a site that previews drafts syncs them: the index then says which stories are published.
      await sync({ baseUrl: server.url, token: PREVIEW, out: snapshot, views: ['published', 'draft'] });
      let compared = 0;
      let expected = 0;
      for (const mode of MODES) {
        const out = path.join(dir, `out-${view}-${mode}`);
        await compile({ snapshot, out, view, resolveRelations: RELATIONS, resolveLinks: mode, depth: 1 });
        const list = await server.api('/v2/cdn/stories', { version: view, per_page: '100' }, PREVIEW);
        expect(list.status).toBe(200);
        expected += list.body.stories.length * LANGS.length;
        for (const { id } of list.body.stories as Json[]) {
          const module = readGenerated<Json>(out, `stories/${id}.js`);
          for (const lang of LANGS) {
            const answer = await server.api(
              `/v2/cdn/stories/${id}`,
              {
                version: view,
                resolve_relations: RELATIONS.join(','),
                resolve_links: mode,
                ...(lang === 'default' ? {} : { language: lang }),
              },
              PREVIEW,
            );
            expect(answer.status).toBe(200);
            expect(answer.body).not.toHaveProperty('rel_uuids');
            expect(answer.body).not.toHaveProperty('link_uuids');
            const compiled = module[lang];
            expect(compiled, `story ${id} in ${lang}`).toBeDefined();
            const parts = resolvedParts(compiled.content);
            const where = `story ${id} (${lang}), links ${mode}, ${view} view`;
            expect(asJson(parts.rels), `${where}: relations`).toEqual(byUuid(answer.body.rels));
            // The delivery API never delivers folders, so a synced snapshot has none: the compiler
            // names links to folders as missing targets. The service reaches them through its space.
            const storyLinks = (answer.body.links as Json[]).filter((l) => !server.service.store.folderByUuid(l.uuid));
            expect(asJson(parts.links), `${where}: links`).toEqual(byUuid(storyLinks));
            compared++;
          }
        }
      }
      // Every story of the view (11 published, 14 in drafts), each language, each mode.
      expect(compared).toBe(expected);
      expect(expected).toBeGreaterThanOrEqual(MODES.length * LANGS.length * 11);
    }, 60_000);
  }

  it('the hub, in the draft view, reaches what only drafts show', async () => {
    const answer = await server.api(
      '/v2/cdn/stories/hub',
      { version: 'draft', resolve_relations: RELATIONS.join(','), resolve_links: 'link' },
      PREVIEW,
    );
    const rels = (answer.body.rels as Json[]).map((s) => s.name).sort();
    expect(rels).toEqual(['Jane', 'Second post', 'Third post', 'drafted', 'withdrawn']);
    expect((answer.body.links as Json[]).map((l) => [l.name, l.published])).toEqual([
      ['drafted', false],
      ['Shoes', false],
      ['Home', true],
    ]);
  });
});
