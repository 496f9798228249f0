/**
 * A listing whose pages do not add up to its `Total`: a story or entry listed twice, so another
 * was not listed at all (pages that shifted while they were read, or a service that repeats
 * itself). A full pass takes what it does not see as gone, so nothing is concluded from such a
 * listing: the pass is made again, and the sync fails if it never adds up.
 */
export class InconsistentListing extends Error {
  override name = 'InconsistentListing';

  constructor(what: string, distinct: number, total: number) {
    super(`the listing of ${what} named ${distinct} distinct where its Total counts ${total}`);
  }
}
