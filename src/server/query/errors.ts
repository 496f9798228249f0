/**
 * The one error the query engine throws on purpose. Its message is sent to the
 * client verbatim as the 422 body `{"error": message}`, so it names the
 * offending parameter and says what is expected instead.
 */
export class QueryError extends Error {
  override name = 'QueryError';
}

const MAX_SHOWN = 120;

/** A user-supplied string, shortened so that error bodies stay readable. */
export function shown(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}
