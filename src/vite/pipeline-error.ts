/** The plugin's pipeline cannot go on: its message says what is missing or wrong, and what to do. */
export class PipelineError extends Error {
  override name = 'PipelineError';
}
