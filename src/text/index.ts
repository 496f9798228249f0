/**
 * Words of the messages people read: a count with its noun ("1 story", "3 stories"). Lowest in
 * the layers, so every part that logs can use it.
 */

/** `n` and the noun that fits it; `plural` for nouns that do not simply take an s. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
