export { ContentClient, type ClientOptions, type ClientStats, type AttemptEvent, type Params, type RequestSpec, type Answer } from './client.js';
export { Pacer, type PacerOptions } from './pacer.js';
export { ContentApiError, SchemaError, CacheVersionMoved } from './errors.js';
