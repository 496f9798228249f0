/**
 * "Did you mean depth?": the known name nearest to a mistyped one, for the
 * plugin's options and the command's flags alike.
 */
import leven from 'leven';

/** The candidate closest to `word`, when it is close enough to be a likely typo. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = leven(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the word may be wrong (two letters of "depht", one of "resolveLink").
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}
