/**
 * An answer that is not one to the request made: a story by id that is another story, a
 * language of some stories that leaves one out or adds one, a uuid held by two stories. Taken as
 * it came, it would drop or swap content without a word (a story asked for and not returned is
 * taken as gone), so nothing is concluded from it: the pass is made again, and the sync fails if
 * the answers never match.
 */
export class MismatchedAnswer extends Error {
  override name = 'MismatchedAnswer';

  constructor(request: string, problem: string) {
    super(`the answer to ${request} ${problem}`);
  }
}
