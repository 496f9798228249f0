/** The site's own words in each language of the space. */
const WORDS = {
  by: { default: 'By', de: 'Von', fr: 'Par' },
  categories: { default: 'Categories', de: 'Kategorien', fr: 'Catégories' },
  tags: { default: 'Tags', de: 'Schlagwörter', fr: 'Étiquettes' },
  taggedWith: { default: 'Tagged', de: 'Verschlagwortet mit', fr: 'Étiqueté' },
  color: { default: 'Colour', de: 'Farbe', fr: 'Couleur' },
  colors: { default: 'Colours', de: 'Farben', fr: 'Couleurs' },
  country: { default: 'Country', de: 'Land', fr: 'Pays' },
  category: { default: 'Category', de: 'Kategorie', fr: 'Catégorie' },
  price: { default: 'Price', de: 'Preis', fr: 'Prix' },
  variants: { default: 'Variants', de: 'Varianten', fr: 'Variantes' },
  related: { default: 'Related products', de: 'Ähnliche Produkte', fr: 'Produits associés' },
  manual: { default: 'Manual (PDF)', de: 'Anleitung (PDF)', fr: 'Manuel (PDF)' },
  featuredArticles: { default: 'Featured articles', de: 'Ausgewählte Artikel', fr: 'Articles à la une' },
  featuredProducts: { default: 'Featured products', de: 'Ausgewählte Produkte', fr: 'Produits à la une' },
  referencedBy: { default: 'Referenced by', de: 'Verweise von', fr: 'Référencé par' },
  inThisSection: { default: 'In this section', de: 'In diesem Bereich', fr: 'Dans cette rubrique' },
  home: { default: 'Home', de: 'Startseite', fr: 'Accueil' },
  language: { default: 'Language', de: 'Sprache', fr: 'Langue' },
  notFound: { default: 'Page not found', de: 'Seite nicht gefunden', fr: 'Page introuvable' },
  website: { default: 'Website', de: 'Webseite', fr: 'Site web' },
  readingTime: { default: 'min read', de: 'Min. Lesezeit', fr: 'min de lecture' },
  inStock: { default: 'in stock', de: 'vorrätig', fr: 'en stock' },
  soldOut: { default: 'sold out', de: 'ausverkauft', fr: 'épuisé' },
  onSale: { default: 'On sale', de: 'Im Angebot', fr: 'En promotion' },
} satisfies Record<string, Record<string, string>>;

export type Word = keyof typeof WORDS;

/** What `forms` has for `lang` (its own key: a language code may be `constructor`), else its default. */
function inLanguage(forms: Record<string, string>, lang: string): string {
  return Object.hasOwn(forms, lang) ? forms[lang]! : forms.default!;
}

export function t(word: Word, lang: string): string {
  return inLanguage(WORDS[word], lang);
}

/** Each language's name in itself, as the language switcher shows it. */
const LANGUAGE_NAMES: Record<string, string> = { default: 'English', de: 'Deutsch', fr: 'Français' };

/** A language's name for the language switcher: its code when the site has no name for it. */
export const languageName = (lang: string): string =>
  Object.hasOwn(LANGUAGE_NAMES, lang) ? LANGUAGE_NAMES[lang]! : lang;
