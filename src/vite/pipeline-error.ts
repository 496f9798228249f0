/** The plugin's pipeline cannot go on: its message says what is missing or wrong, and what to do. */
export class PipelineError extends Error {
  override name = 'PipelineError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    // As OptionsError: the message says what and why; the plugin's frames would say nothing more.
    this.stack = `${this.name}: ${message}`;
  }
}
