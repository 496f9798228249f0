/**
 * Word lists for demo content. Every entry of a translated list holds the
 * same meaning in the default language (English), German and French, so a
 * text built from word indexes can be rendered in all three languages.
 */

export const LANGS = ['de', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

/** A phrase in the default language, German and French. */
export interface Trio {
  en: string;
  de: string;
  fr: string;
}

function trios(rows: string): Trio[] {
  return rows
    .trim()
    .split('\n')
    .map((line) => {
      const [en, de, fr] = line.split('|').map((s) => s.trim());
      return { en: en!, de: de!, fr: fr! };
    });
}

export const ADJECTIVES = trios(`
quiet|leise|calme
bright|hell|lumineux
modern|modern|moderne
simple|einfach|simple
green|grün|vert
fast|schnell|rapide
hidden|verborgen|caché
open|offen|ouvert
small|klein|petit
great|groß|grand
local|lokal|local
digital|digital|numérique
urban|städtisch|urbain
honest|ehrlich|honnête
warm|warm|chaud
clear|klar|clair
brave|mutig|courageux
careful|sorgfältig|soigneux
ancient|uralt|ancien
fresh|frisch|frais
gentle|sanft|doux
curious|neugierig|curieux
practical|praktisch|pratique
wild|wild|sauvage
silent|still|silencieux
lasting|dauerhaft|durable
`);

export const NOUNS = trios(`
garden|Garten|jardin
city|Stadt|ville
river|Fluss|rivière
kitchen|Küche|cuisine
journey|Reise|voyage
design|Gestaltung|conception
team|Team|équipe
market|Markt|marché
library|Bibliothek|bibliothèque
mountain|Berg|montagne
workshop|Werkstatt|atelier
idea|Idee|idée
coffee|Kaffee|café
network|Netzwerk|réseau
bridge|Brücke|pont
story|Geschichte|histoire
music|Musik|musique
harbour|Hafen|port
forest|Wald|forêt
window|Fenster|fenêtre
habit|Gewohnheit|habitude
season|Jahreszeit|saison
future|Zukunft|avenir
craft|Handwerk|artisanat
community|Gemeinschaft|communauté
energy|Energie|énergie
light|Licht|lumière
method|Methode|méthode
product|Produkt|produit
question|Frage|question
`);

export const VERBS = trios(`
builds|baut|construit
changes|verändert|change
explains|erklärt|explique
connects|verbindet|relie
shapes|formt|façonne
improves|verbessert|améliore
follows|folgt|suit
protects|schützt|protège
opens|öffnet|ouvre
celebrates|feiert|célèbre
measures|misst|mesure
inspires|inspiriert|inspire
`);

export const LINKERS = trios(`
and|und|et
with|mit|avec
beyond|jenseits|au-delà de
for|für|pour
without|ohne|sans
`);

export const ARTICLE_TOPICS = trios(`
Technology|Technologie|Technologie
Design|Design|Design
Travel|Reisen|Voyages
Food|Essen|Cuisine
Science|Wissenschaft|Science
Business|Wirtschaft|Affaires
Culture|Kultur|Culture
Health|Gesundheit|Santé
`);

export const PRODUCT_CATEGORIES: { name: string; label: Trio; subcategories: Trio[] }[] = [
  {
    name: 'electronics',
    label: { en: 'Electronics', de: 'Elektronik', fr: 'Électronique' },
    subcategories: trios(`
Audio|Audio|Audio
Cameras|Kameras|Appareils photo
Accessories|Zubehör|Accessoires
Wearables|Wearables|Objets connectés
`),
  },
  {
    name: 'home',
    label: { en: 'Home', de: 'Wohnen', fr: 'Maison' },
    subcategories: trios(`
Kitchen|Küche|Cuisine
Lighting|Beleuchtung|Éclairage
Textiles|Textilien|Textiles
Storage|Aufbewahrung|Rangement
`),
  },
  {
    name: 'outdoor',
    label: { en: 'Outdoor', de: 'Outdoor', fr: 'Plein air' },
    subcategories: trios(`
Camping|Camping|Camping
Cycling|Radfahren|Cyclisme
Hiking|Wandern|Randonnée
`),
  },
  {
    name: 'fashion',
    label: { en: 'Fashion', de: 'Mode', fr: 'Mode' },
    subcategories: trios(`
Shoes|Schuhe|Chaussures
Bags|Taschen|Sacs
Jackets|Jacken|Vestes
`),
  },
  {
    name: 'office',
    label: { en: 'Office', de: 'Büro', fr: 'Bureau' },
    subcategories: trios(`
Paper|Papier|Papeterie
Furniture|Möbel|Mobilier
`),
  },
  {
    name: 'toys',
    label: { en: 'Toys', de: 'Spielzeug', fr: 'Jouets' },
    subcategories: trios(`
Puzzles|Puzzles|Puzzles
Games|Spiele|Jeux
`),
  },
];

/** Top-level folders and their translations. */
export const SECTION_NAMES: Record<string, Trio> = {
  articles: { en: 'Articles', de: 'Artikel', fr: 'Articles' },
  authors: { en: 'Authors', de: 'Autoren', fr: 'Auteurs' },
  categories: { en: 'Categories', de: 'Kategorien', fr: 'Catégories' },
  products: { en: 'Products', de: 'Produkte', fr: 'Produits' },
  about: { en: 'About us', de: 'Über uns', fr: 'À propos' },
  help: { en: 'Help', de: 'Hilfe', fr: 'Aide' },
};

export const ABOUT_SECTIONS = trios(`
Team|Team|Équipe
Careers|Karriere|Carrières
Press|Presse|Presse
Locations|Standorte|Sites
`);

export const HELP_SECTIONS = trios(`
Getting started|Erste Schritte|Premiers pas
Orders|Bestellungen|Commandes
Shipping|Versand|Livraison
Returns|Rückgabe|Retours
Account|Konto|Compte
Privacy|Datenschutz|Confidentialité
`);

export const PAGE_TITLES = trios(`
Our story|Unsere Geschichte|Notre histoire
Contact|Kontakt|Contact
Imprint|Impressum|Mentions légales
Privacy policy|Datenschutzerklärung|Politique de confidentialité
Terms of service|Nutzungsbedingungen|Conditions d'utilisation
Newsletter|Newsletter|Lettre d'information
Sustainability|Nachhaltigkeit|Durabilité
Partners|Partner|Partenaires
`);

export const FIRST_NAMES = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Elif',
  'Felix',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Kira',
  'Luca',
  'Maya',
  'Noah',
  'Olga',
  'Paul',
  'Rosa',
  'Samir',
  'Tara',
  'Umut',
  'Vera',
  'Wim',
  'Yara',
  'Zoe',
  'Amélie',
  'Björn',
  'Chloé',
  'Jürgen',
];

export const LAST_NAMES = [
  'Keller',
  'Martin',
  'Schulz',
  'Dubois',
  'Nowak',
  'Rossi',
  'Lindqvist',
  'Okafor',
  'Yilmaz',
  'Fischer',
  'Moreau',
  'Bauer',
  'Hansen',
  'Costa',
  'Weber',
  'Laurent',
  'Novak',
  'Schäfer',
  'Garnier',
  'Huber',
  'Petit',
  'Wagner',
];

export const ROLES = trios(`
Editor|Redakteurin|Rédactrice
Staff writer|Autor|Rédacteur
Photographer|Fotografin|Photographe
Contributor|Gastautor|Contributeur
Columnist|Kolumnistin|Chroniqueuse
`);

export const BRANDS = ['Nordlicht', 'Aurora', 'Kestrel', 'Lumen', 'Brisa', 'Fjord', 'Orbit', 'Sable', 'Tandem', 'Vela'];

export const TAGS = [
  'featured',
  'news',
  'how-to',
  'interview',
  'review',
  'opinion',
  'guide',
  'sale',
  'new',
  'bestseller',
  'video',
  'podcast',
  'long-read',
  'beginner',
  'advanced',
  'sustainability',
  'behind-the-scenes',
  'event',
  'update',
  'archive',
];

export const COLORS: { name: string; value: string; hex: string; de?: string; fr?: string }[] = [
  { name: 'red', value: 'Red', hex: '#d32f2f', de: 'Rot', fr: 'Rouge' },
  { name: 'orange', value: 'Orange', hex: '#f57c00', de: 'Orange', fr: 'Orange' },
  { name: 'yellow', value: 'Yellow', hex: '#fbc02d', de: 'Gelb', fr: 'Jaune' },
  { name: 'green', value: 'Green', hex: '#388e3c', de: 'Grün', fr: 'Vert' },
  { name: 'teal', value: 'Teal', hex: '#00796b', de: 'Petrol' },
  { name: 'blue', value: 'Blue', hex: '#1976d2', de: 'Blau', fr: 'Bleu' },
  { name: 'indigo', value: 'Indigo', hex: '#303f9f', fr: 'Indigo' },
  { name: 'purple', value: 'Purple', hex: '#7b1fa2', de: 'Lila', fr: 'Violet' },
  { name: 'pink', value: 'Pink', hex: '#c2185b', de: 'Rosa', fr: 'Rose' },
  { name: 'brown', value: 'Brown', hex: '#5d4037', de: 'Braun', fr: 'Marron' },
  { name: 'grey', value: 'Grey', hex: '#616161', de: 'Grau', fr: 'Gris' },
  { name: 'black', value: 'Black', hex: '#212121', de: 'Schwarz', fr: 'Noir' },
  { name: 'white', value: 'White', hex: '#fafafa' },
  { name: 'sand', value: 'Sand', hex: '#d7c8a0', de: 'Sand', fr: 'Sable' },
];

export const SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL', 'one-size'];

/** ISO 3166 code, English, German, French. */
export const COUNTRIES: [string, string, string, string][] = `
AT|Austria|Österreich|Autriche
AU|Australia|Australien|Australie
BE|Belgium|Belgien|Belgique
BG|Bulgaria|Bulgarien|Bulgarie
BR|Brazil|Brasilien|Brésil
CA|Canada|Kanada|Canada
CH|Switzerland|Schweiz|Suisse
CL|Chile|Chile|Chili
CN|China|China|Chine
CZ|Czechia|Tschechien|Tchéquie
DE|Germany|Deutschland|Allemagne
DK|Denmark|Dänemark|Danemark
EE|Estonia|Estland|Estonie
EG|Egypt|Ägypten|Égypte
ES|Spain|Spanien|Espagne
FI|Finland|Finnland|Finlande
FR|France|Frankreich|France
GB|United Kingdom|Vereinigtes Königreich|Royaume-Uni
GR|Greece|Griechenland|Grèce
HR|Croatia|Kroatien|Croatie
HU|Hungary|Ungarn|Hongrie
IE|Ireland|Irland|Irlande
IN|India|Indien|Inde
IS|Iceland|Island|Islande
IT|Italy|Italien|Italie
JP|Japan|Japan|Japon
KE|Kenya|Kenia|Kenya
KR|South Korea|Südkorea|Corée du Sud
LT|Lithuania|Litauen|Lituanie
LU|Luxembourg|Luxemburg|Luxembourg
LV|Latvia|Lettland|Lettonie
MA|Morocco|Marokko|Maroc
MX|Mexico|Mexiko|Mexique
NG|Nigeria|Nigeria|Nigéria
NL|Netherlands|Niederlande|Pays-Bas
NO|Norway|Norwegen|Norvège
NZ|New Zealand|Neuseeland|Nouvelle-Zélande
PL|Poland|Polen|Pologne
PT|Portugal|Portugal|Portugal
RO|Romania|Rumänien|Roumanie
SE|Sweden|Schweden|Suède
SG|Singapore|Singapur|Singapour
SI|Slovenia|Slowenien|Slovénie
SK|Slovakia|Slowakei|Slovaquie
TR|Turkey|Türkei|Turquie
UA|Ukraine|Ukraine|Ukraine
US|United States|Vereinigte Staaten|États-Unis
ZA|South Africa|Südafrika|Afrique du Sud
`
  .trim()
  .split('\n')
  .map((line) => line.split('|') as [string, string, string, string]);

export const ICONS = [
  'fa-bolt',
  'fa-leaf',
  'fa-star',
  'fa-heart',
  'fa-camera',
  'fa-globe',
  'fa-book',
  'fa-flask',
  'fa-briefcase',
  'fa-music',
];

export const EMOJIS: { name: string; emoji: string; code: string }[] = [
  { name: 'smile', emoji: '😄', code: '1f604' },
  { name: 'rocket', emoji: '🚀', code: '1f680' },
  { name: 'seedling', emoji: '🌱', code: '1f331' },
  { name: 'coffee', emoji: '☕', code: '2615' },
];

const GERMAN: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', Ä: 'ae', Ö: 'oe', Ü: 'ue' };

/** A URL slug: lowercase ASCII words joined by hyphens. */
export function slugify(text: string): string {
  return text
    .replace(/[äöüßÄÖÜ]/g, (c) => GERMAN[c] ?? c)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
