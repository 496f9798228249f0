export {
  ContentClient,
  type ClientOptions,
  type Params,
} from './client.js';
export { Pacer, serviceBudget } from './pacer.js';
export { ContentApiError, SchemaError } from './errors.js';
