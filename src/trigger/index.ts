export { Batcher } from './batcher.js';
export { webhookEndpoint, answer, type EndpointOptions } from './endpoint.js';
export { Runner } from './runner.js';
