import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type InlineConfig, type Plugin } from 'vite';
import { contentSync, type ContentSyncApi } from '../src/index.js';

export const siteRoot = path.dirname(fileURLToPath(import.meta.url));

/** The demo space's relation fields: resolved at compile time, so pages get the related stories. */
export const RELATIONS = [
  'article.author',
  'article.categories',
  'author.featured_articles',
  'page.featured_articles',
  'page.featured_products',
  'product.related_products',
];

/** The size of the demo space the site is built over unless told otherwise. */
export const DEFAULT_STORIES = 200;

/** Each demo size has its own content directory: switching sizes regenerates nothing. */
export const contentDirFor = (stories: number): string =>
  stories === DEFAULT_STORIES ? '.content' : `.content-${stories}`;

export interface SiteConfig {
  config: InlineConfig;
  /** The content-sync plugin of this config: its `api.pipeline` reaches the embedded service. */
  content: Plugin<ContentSyncApi>;
}

/**
 * The site's Vite config over a demo space of `stories` stories (default 200). `contentDir` (relative to
 * example-site; default `.content`, `.content-<stories>` for other sizes) holds the demo space, the snapshot
 * and the generated modules. `dev` serves the embedded service's control plane, which posts
 * signed webhooks to the dev server (with a secret the plugin makes), so content edits reach
 * open pages.
 */
export function siteConfig(options: { dev?: boolean; contentDir?: string; stories?: number } = {}): SiteConfig {
  const stories = options.stories ?? DEFAULT_STORIES;
  const dir = options.contentDir ?? contentDirFor(stories);
  const content = contentSync({
    dir,
    embedded: { data: `${dir}/space`, demo: { stories }, admin: options.dev ?? false },
    resolveRelations: RELATIONS,
    resolveLinks: 'url',
    // Navigation, breadcrumbs, folder and tag pages show other stories' titles: the index carries
    // them, so a page loads its own story only.
    entryFields: ['title', 'name'],
    // Images and documents come with the snapshot and are bundled: the built site needs no asset host.
    assets: 'download',
    // The prerender imports the content modules from disk: bundling 20,000 of them is slow.
    ssrModules: 'external',
  });
  return {
    content,
    config: {
      root: siteRoot,
      configFile: false,
      appType: 'custom',
      plugins: [content],
      server: { watch: { ignored: ['**/.content*/**', '**/dist/**'] } },
    },
  };
}

export default defineConfig(siteConfig().config);
