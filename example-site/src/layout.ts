/** The frame around every page: head, navigation, breadcrumbs, language switcher, footer. */
import type { StoryEntry } from 'content:index';
import { attrs, esc } from './html.js';
import { languageName, t } from './i18n.js';
import {
  alternates,
  breadcrumbs,
  homeUrl,
  htmlLang,
  languageRoot,
  topNavigation,
  urlOf,
  type PageContext,
  type Route,
} from './site.js';

export interface Rendered {
  status: number;
  lang: string;
  head: string;
  html: string;
}

function navigation(ctx: PageContext, current: string): string {
  const { lang } = ctx;
  const home = homeUrl(lang);
  const items = [
    ...(home ? [{ url: home, name: t('home', lang) }] : []),
    ...topNavigation(lang).flatMap((e) => {
      const url = urlOf(e);
      return url ? [{ url, name: ctx.title(e) }] : [];
    }),
    { url: `${languageRoot(lang)}tags/`, name: t('tags', lang) },
  ];
  const links = items.map(
    (i) =>
      `<li><a${attrs({ href: i.url, 'aria-current': i.url === current ? 'page' : undefined })}>${esc(i.name)}</a></li>`,
  );
  return `<nav class="main-nav" aria-label="Main"><ul>${links.join('')}</ul></nav>`;
}

function languageSwitcher(route: Route | undefined, lang: string): string {
  const options = route ? alternates(route) : [];
  const links = options.map(
    (o) =>
      `<li><a${attrs({ href: o.url, hreflang: htmlLang(o.lang), lang: htmlLang(o.lang), 'aria-current': o.lang === lang ? 'true' : undefined })}>${esc(languageName(o.lang))}</a></li>`,
  );
  return `<nav class="languages" aria-label="${esc(t('language', lang))}"><ul>${links.join('')}</ul></nav>`;
}

function crumbs(ctx: PageContext, entry: StoryEntry | undefined): string {
  if (!entry) return '';
  const chain = breadcrumbs(entry);
  if (chain.length === 0) return '';
  const crumb = (e: StoryEntry) => {
    const url = urlOf(e);
    return url ? `<a href="${esc(url)}">${esc(ctx.title(e))}</a>` : esc(ctx.title(e));
  };
  return `<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>${chain.map((e) => `<li>${crumb(e)}</li>`).join('')}</ol></nav>`;
}

export function layout(
  ctx: PageContext,
  options: { route: Route | undefined; title: string; description?: string; body: string; status?: number },
): Rendered {
  const { route } = options;
  const { lang } = ctx;
  const url = route?.url ?? '';
  const alternateLinks = route
    ? alternates(route)
        .map((a) => `<link rel="alternate" hreflang="${esc(htmlLang(a.lang))}" href="${esc(a.url)}">`)
        .join('')
    : '';
  const head = `<title>${esc(options.title)} · Demo site</title>${options.description ? `<meta name="description" content="${esc(options.description)}">` : ''}${alternateLinks}`;
  const home = homeUrl(lang);
  // Linked to the home page only when the site has one: no link leads to the not-found page.
  const brand = home ? `<a class="brand" href="${esc(home)}">Demo site</a>` : '<span class="brand">Demo site</span>';
  const html = `<header class="site-header">${brand}${navigation(ctx, url)}${languageSwitcher(route, lang)}</header>
${crumbs(ctx, route?.kind === 'story' ? route.entry : undefined)}
<main>${options.body}</main>
<footer class="site-footer"><a href="${esc(languageRoot(lang))}tags/">${esc(t('tags', lang))}</a></footer>`;
  return { status: options.status ?? 200, lang: htmlLang(lang), head, html };
}
