/**
 * What a page's HTML is made from, as one digest per page: the build renders again only the pages
 * whose digest is not the one they were last rendered with. It runs in the prerender workers, over
 * the files they render from (the server bundle and the content modules beside it).
 *
 * - Every page: the server bundle (the site's code), the HTML template, the content modules every
 *   page may read whole (index, backlinks, datasources and tags loaders, runtime), and the stories
 *   index, without the dates a publish changes and no page shows (otherwise one publish would
 *   render every page again: navigation, breadcrumbs, folder and tag lists come from the index).
 * - A story's pages: its story module and every module it imports (its own raw module and those of
 *   the stories it embeds; link targets are in the story module itself), and who links to it. A
 *   page loads no other story (titles come from the index): one that did would add its digest.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { backlinksOf } from 'content:backlinks';
import { entries } from 'content:index';
import { ModuleDigests, SERVER_CONTENT_DIR } from '../src/prerender/index.js';
import type { Route } from './src/entry-server.js';

/** The `.js` files directly in `dir`, in name order. */
const scripts = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .sort();

export class PageKeys {
  readonly #shared: string;
  readonly #content: string;
  readonly #modules = new ModuleDigests();

  /** `serverDir`: the server output (bundle and content modules); `template`: the page template. */
  constructor(serverDir: string, template: string) {
    this.#content = path.join(serverDir, SERVER_CONTENT_DIR);
    const hash = createHash('sha256').update(template);
    for (const [dir, label] of [
      [serverDir, 'bundle'],
      [this.#content, 'content'],
    ] as const)
      for (const name of scripts(dir)) hash.update(`\0${label}/${name}\0`).update(readFileSync(path.join(dir, name)));
    // Without the dates a publish changes and no page shows.
    const shown = entries.map(({ published_at, first_published_at, ...rest }) => rest);
    hash.update('\0index\0').update(JSON.stringify(shown));
    this.#shared = hash.digest('hex');
  }

  /** The digest of the page at a route (or of the not-found page, for undefined). */
  of(route: Route | undefined): string {
    const hash = createHash('sha256')
      .update(this.#shared)
      .update(`\0${route?.kind ?? 'not found'}\0${route?.url}`);
    if (route?.kind === 'story') {
      const module = path.join(this.#content, 'stories', `${route.entry.id}.js`);
      hash.update(`\0${this.#modules.of(module)}\0${JSON.stringify(backlinksOf(route.entry.uuid))}`);
    }
    return hash.digest('hex');
  }
}
