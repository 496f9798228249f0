export {
  ContentClient,
  type ClientOptions,
  type Params,
  retryLine,
} from './client.js';
export { Pacer, type RateBudget, SERVICE_BUCKET_MS, serviceBudget, UNPACED } from './pacer.js';
export { errorText } from './body.js';
export { ContentApiError, SchemaError, UntrustedCount } from './errors.js';
