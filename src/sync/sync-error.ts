/** A sync that cannot go on, in words for the person who ran it (what happened, what is untouched, what to do). */
export class SyncError extends Error {
  override name = 'SyncError';
}
