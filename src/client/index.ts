export {
  ContentClient,
  type ClientOptions,
  type ClientStats,
  type AttemptEvent,
  type Params,
  type RequestSpec,
  type Answer,
} from './client.js';
export { Pacer, serviceBudget, type PacerOptions, type RateBudget } from './pacer.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
export { ContentApiError, SchemaError } from './errors.js';
