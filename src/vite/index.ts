export { contentSync, IMPORT_PREFIX, type ContentSyncApi } from './plugin.js';
export { ContentSyncOptions, OptionsError, parseOptions, type ResolvedOptions } from './options.js';
export { ContentPipeline, PipelineError, type RefreshResult } from './pipeline.js';
