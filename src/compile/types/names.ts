/** Type names derived from component names: stable, valid identifiers, free of collisions. */
import { ID_START } from '../escape.js';
import type { ComponentModel } from './model.js';

/**
 * `popular-articles` -> `PopularArticles`, `1-col` -> `C1Col`, `Person` -> `Person`: the characters
 * an identifier may hold (Unicode ID_Continue) in runs, each run capitalized; anything else (`*`,
 * `/`, spaces, `½`) only separates runs, so no name from content can be more than a name.
 */
export function pascalCase(raw: string): string {
  const parts = raw.split(/[^\p{ID_Continue}]+|_+/u).filter((p) => p.length > 0);
  let name = parts.map(capitalized).join('');
  if (name === '') name = 'Unnamed';
  if (!ID_START.test(name.charAt(0))) name = `C${name}`;
  return name;
}

/**
 * A run with its first character in capitals, unless those are characters TypeScript may not know:
 * the capital of an old letter can be one of a newer Unicode version than its scanner's tables
 * (\u019b 'ƛ' -> \ua7dc, \u0264 'ɤ' -> \ua7cb), an invalid character in the declarations.
 * Capitals below U+1C80 (Latin, Greek, Cyrillic, Armenian, Georgian, ...) are decades old.
 */
function capitalized(run: string): string {
  const first = String.fromCodePoint(run.codePointAt(0)!);
  const upper = first.toUpperCase();
  for (const c of upper) if (c.codePointAt(0)! >= 0x1c80) return run;
  return upper + run.slice(first.length);
}

/** Allocates names from a shared namespace; the first claimant of a base keeps it, later ones get 2, 3, ... */
export class NameAllocator {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string>) {
    for (const name of reserved) this.taken.add(name);
  }

  /** Claims `base + suffix` for every suffix at once; returns the base used. */
  claim(base: string, suffixes: readonly string[]): string {
    for (let i = 1; ; i++) {
      const candidate = i === 1 ? base : `${base}${i}`;
      const names = suffixes.map((s) => candidate + s);
      if (names.every((n) => !this.taken.has(n))) {
        for (const n of names) this.taken.add(n);
        return candidate;
      }
    }
  }
}

/** Code-unit order, independent of locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * How conventional a component's name is: a technical name as the CMS makes them (lowercase,
 * digits, `_`), then with `-`, then any other. Names that make the same type name (`article` and
 * `Article`, `hero_block` and `HeroBlock`) claim it in this order, so a name added later in
 * another spelling does not take the type an app already uses from the conventional one.
 */
function conventionRank(name: string): number {
  return /^[a-z0-9_]+$/.test(name) ? 0 : /^[a-z0-9_-]+$/.test(name) ? 1 : 2;
}

/** The order in which component names claim their type names (see conventionRank). */
export function claimOrder(a: string, b: string): number {
  return conventionRank(a) - conventionRank(b) || compare(a, b);
}

/** A warning for each component whose type name is not its own name's (another component, or the runtime, holds that). */
export function renamedTypes(components: readonly ComponentModel[]): string[] {
  return components
    .filter((c) => c.typeName !== ownTypeName(c))
    .map((c) => {
      const other = components.find((o) => o !== c && o.typeName === ownTypeName(c));
      const holder = other ? `component ${JSON.stringify(other.name)}` : 'the runtime';
      const typed = c.storyName ? `${c.typeName} and ${c.storyName}` : c.typeName;
      return `component ${JSON.stringify(c.name)} is typed ${typed}: ${ownTypeName(c)} is taken by ${holder}`;
    });
}

const ownTypeName = (c: ComponentModel): string => pascalCase(c.name) + (c.contentType ? 'Content' : 'Blok');
