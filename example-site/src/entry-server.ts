/**
 * The server entry: renders a page by its URL. The build prerenders every
 * route with it; the dev server renders each request with it.
 */
import { esc } from './html.js';
import { t } from './i18n.js';
import { layout, type Rendered } from './layout.js';
import { loadStory, storyBody, tagBody, tagsBody, titleOf } from './pages.js';
import {
  DEFAULT_LANGUAGE,
  describeRoute,
  findRoute,
  languages,
  NOT_FOUND_URL,
  pageContext,
  refusedRoutes,
  routes,
  type Route,
} from './site.js';

export type { Rendered, Route };
export { describeRoute, NOT_FOUND_URL, refusedRoutes, routes };

/** The language a URL is in, from its first segment. */
function languageOf(pathname: string): string {
  const first = pathname.split('/')[1] ?? '';
  return languages.includes(first) && first !== DEFAULT_LANGUAGE ? first : DEFAULT_LANGUAGE;
}

export async function renderNotFound(pathname: string): Promise<Rendered> {
  const lang = languageOf(pathname);
  const ctx = pageContext(lang);
  return layout(ctx, {
    route: undefined,
    title: t('notFound', lang),
    body: `<h1>${esc(t('notFound', lang))}</h1><p><code>${esc(pathname)}</code></p>`,
    status: 404,
  });
}

export async function renderRoute(route: Route): Promise<Rendered> {
  const ctx = pageContext(route.lang);
  switch (route.kind) {
    case 'story': {
      const story = await loadStory(route.entry);
      const title = titleOf(story);
      return layout(ctx, { route, title, body: storyBody(story, route.entry, ctx) });
    }
    case 'tag':
      return layout(ctx, { route, title: `${t('tags', route.lang)}: ${route.tag}`, body: tagBody(route.tag, ctx) });
    case 'tags':
      return layout(ctx, { route, title: t('tags', route.lang), body: tagsBody(route.lang) });
  }
}

/** The page at a URL path, or the not-found page (status 404). */
export async function render(pathname: string): Promise<Rendered> {
  const route = findRoute(pathname);
  return route ? renderRoute(route) : renderNotFound(pathname);
}

/** Fills the HTML template (index.html after Vite has processed it) with a rendered page. */
export function fillTemplate(template: string, page: Rendered): string {
  // Replaced by functions: a replacement string reads `$$`, `$&` and `$'` in content as patterns.
  return template
    .replace('<!--app-lang-->', () => page.lang)
    .replace('<!--app-head-->', () => page.head)
    .replace('<!--app-html-->', () => page.html);
}
