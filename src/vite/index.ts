export { contentSync, type ContentSyncApi } from './plugin.js';
export { ContentSyncOptions, OptionsError, parseOptions } from './options.js';
export { PipelineError } from './pipeline-error.js';
