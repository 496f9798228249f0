export * from './resources.js';
export * from './envelopes.js';
export * from './params.js';
export * from './limits.js';
export * from './webhook-signature.js';
export * from './listing.js';
export * from './richtext.js';
export { asSent } from './as-sent.js';
