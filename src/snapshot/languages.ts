/**
 * Language variants of a story. A version stores the default-language story
 * whole and, per language, only what differs (see `LanguageOverlay`).
 */
import type { Story } from '../api/index.js';
import { DEFAULT_LANG, type LanguageOverlay, type StoryVersion } from './format.js';
import { sameJson } from './json.js';

/**
 * The story as the service delivers it in `lang` (a language of the space).
 * Fields not translated in `lang` fall back to `fallbackLang` (when given) and
 * then to the default. With field-level translation every story exists in
 * every language: a version without an overlay for `lang` is delivered with
 * the default content under `<lang>/<translated path or full_slug>`.
 */
export function materialize(version: StoryVersion, lang: string = DEFAULT_LANG, fallbackLang?: string): Story {
  if (lang === DEFAULT_LANG) return version.story;
  const overlay = overlayIn(version, lang) ?? untranslated(version.story, lang);
  const fallback = fallbackLang && fallbackLang !== lang ? overlayIn(version, fallbackLang) : undefined;
  const {
    content: fbContent,
    $replace_content: _r,
    ...fbTop
  } = (fallback ?? {}) as LanguageOverlay & { $replace_content?: boolean };
  const { content, $replace_content: replace, ...top } = overlay as LanguageOverlay & { $replace_content?: boolean };
  const merged: Story = {
    ...version.story,
    ...(fallback ? pickContentless(fbTop) : {}),
    ...top,
    lang,
    content: (replace
      ? content
      : { ...version.story.content, ...(fbContent ?? {}), ...(content ?? {}) }) as Story['content'],
  };
  return merged;
}

/**
 * The overlay a version holds for `lang`, if it holds one. Language codes are data: an own key
 * only, so that a language named `constructor` or `toString` does not read what every object has.
 */
export function overlayIn(version: StoryVersion, lang: string): LanguageOverlay | undefined {
  const languages = version.languages;
  return languages && Object.hasOwn(languages, lang) ? languages[lang] : undefined;
}

/** Sets the overlay of `lang` as an own key: an assignment to `__proto__` would change the object's prototype instead. */
export function setOverlay(languages: Record<string, LanguageOverlay>, lang: string, overlay: LanguageOverlay): void {
  Object.defineProperty(languages, lang, { value: overlay, writable: true, enumerable: true, configurable: true });
}

/** The overlay of a story that has no translation in `lang`. */
export function untranslated(story: Story, lang: string): LanguageOverlay {
  const translated = story.translated_slugs?.find((t) => t.lang === lang)?.path;
  return { full_slug: `${lang}/${translated ?? story.full_slug}` };
}

function pickContentless(top: Record<string, unknown>): Record<string, unknown> {
  // A fallback language lends translated fields, never its identity.
  const { full_slug: _f, lang: _l, ...rest } = top;
  return rest;
}

/**
 * The overlay that turns `base` into `variant`, such that
 * `materialize({story: base, languages: {[lang]: overlay}}, lang)` deep-equals
 * `variant`. Used when a synced variant is stored beside its default.
 */
export function overlayOf(base: Story, variant: Story): LanguageOverlay {
  const overlay: Record<string, unknown> = { full_slug: variant.full_slug };
  for (const key of Object.keys(variant)) {
    if (key === 'content' || key === 'full_slug') continue;
    const v = (variant as Record<string, unknown>)[key];
    if (!sameJson(v, (base as Record<string, unknown>)[key], true)) overlay[key] = v;
  }
  const content: Record<string, unknown> = {};
  for (const key of Object.keys(variant.content)) {
    const v = variant.content[key];
    if (!sameJson(v, base.content[key], true)) content[key] = v;
  }
  if (Object.keys(content).length > 0) overlay.content = content;
  return overlay as LanguageOverlay;
}
