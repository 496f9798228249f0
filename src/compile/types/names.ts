/** Type names derived from component names: stable, valid identifiers, free of collisions. */

/** `popular-articles` -> `PopularArticles`, `1-col` -> `C1Col`, `Person` -> `Person`. */
export function pascalCase(raw: string): string {
  const parts = raw.split(/[^\p{L}\p{N}]+/u).filter((p) => p.length > 0);
  let name = parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
  if (name === '') name = 'Unnamed';
  if (!/^[\p{L}_$]/u.test(name)) name = `C${name}`;
  return name;
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

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as written in a type literal. */
export function propertyKey(key: string): string {
  return IDENT.test(key) && key !== '__proto__' ? key : JSON.stringify(key);
}

/** Code-unit order, independent of locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
