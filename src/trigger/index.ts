export { Batcher } from './batcher.js';
export { webhookEndpoint, answer } from './endpoint.js';
export { Runner } from './runner.js';
export { Unsynced } from './unsynced.js';
