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

export interface SiteConfig {
  config: InlineConfig;
  /** The content-sync plugin of this config: its `api.pipeline` reaches the embedded service. */
  content: Plugin<ContentSyncApi>;
}

/**
 * The site's Vite config. `contentDir` (relative to example-site) holds the
 * demo space, the snapshot and the generated modules. `dev` serves the embedded service's control plane
 * and has it post signed webhooks to the dev server, so content edits reach
 * open pages.
 */
export function siteConfig(options: { dev?: boolean; webhookSecret?: string; contentDir?: string } = {}): SiteConfig {
  const dir = options.contentDir ?? '.content';
  const content = contentSync({
    dir,
    embedded: { data: `${dir}/space`, demo: { stories: 200 }, admin: options.dev ?? false },
    resolveRelations: RELATIONS,
    resolveLinks: 'url',
    // Images and documents come with the snapshot and are bundled: the built site needs no asset host.
    assets: 'download',
    ...(options.dev ? { webhook: { secret: options.webhookSecret ?? 'example-dev-secret' } } : {}),
  });
  return {
    content,
    config: {
      root: siteRoot,
      configFile: false,
      appType: 'custom',
      plugins: [content],
      server: { watch: { ignored: ['**/.content/**', '**/dist/**'] } },
    },
  };
}

export default defineConfig(siteConfig().config);
