/**
 * Pseudo-text in three languages. A phrase is drawn once (word indexes) and
 * rendered in English, German and French, so translations line up.
 */
import type { Random } from './random.js';
import { ADJECTIVES, LINKERS, NOUNS, VERBS, capitalize, type Trio } from './vocabulary.js';

function words(rng: Random) {
  return {
    a: rng.pick(ADJECTIVES),
    b: rng.pick(ADJECTIVES),
    n: rng.pick(NOUNS),
    m: rng.pick(NOUNS),
    o: rng.pick(NOUNS),
    v: rng.pick(VERBS),
    l: rng.pick(LINKERS),
  };
}

/** A headline such as "Quiet garden and bridge". */
export function title(rng: Random): Trio {
  const { a, b, n, m, v, l } = words(rng);
  if (rng.chance(0.5)) {
    return {
      en: `${capitalize(a.en)} ${n.en} ${l.en} ${b.en} ${m.en}`,
      de: `${capitalize(a.de)} ${n.de} ${l.de} ${b.de} ${m.de}`,
      fr: `${capitalize(n.fr)} ${a.fr} ${l.fr} ${m.fr} ${b.fr}`,
    };
  }
  return {
    en: `Why the ${a.en} ${n.en} ${v.en} the ${m.en}`,
    de: `Warum ${a.de} ${n.de} ${m.de} ${v.de}`,
    fr: `Pourquoi le ${n.fr} ${a.fr} ${v.fr} le ${m.fr}`,
  };
}

/** A short phrase such as "Green market". */
export function shortPhrase(rng: Random): Trio {
  const a = rng.pick(ADJECTIVES);
  const n = rng.pick(NOUNS);
  return { en: `${capitalize(a.en)} ${n.en}`, de: `${capitalize(a.de)} ${n.de}`, fr: `${capitalize(n.fr)} ${a.fr}` };
}

export function sentence(rng: Random): Trio {
  const { a, n, m, o, v, l } = words(rng);
  return {
    en: `The ${a.en} ${n.en} ${v.en} the ${m.en} ${l.en} the ${o.en}.`,
    de: `Die ${a.de} ${n.de} ${v.de} ${m.de} ${l.de} ${o.de}.`,
    fr: `Le ${n.fr} ${a.fr} ${v.fr} le ${m.fr} ${l.fr} le ${o.fr}.`,
  };
}

export function sentences(rng: Random, count: number): Trio {
  const parts = Array.from({ length: count }, () => sentence(rng));
  return {
    en: parts.map((p) => p.en).join(' '),
    de: parts.map((p) => p.de).join(' '),
    fr: parts.map((p) => p.fr).join(' '),
  };
}

/** A few lowercase words, for marked spans inside rich text. */
export function fragment(rng: Random): Trio {
  const a = rng.pick(ADJECTIVES);
  const n = rng.pick(NOUNS);
  return { en: `${a.en} ${n.en}`, de: `${a.de} ${n.de}`, fr: `${n.fr} ${a.fr}` };
}
