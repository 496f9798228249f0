export * from './format.js';
export * from './json.js';
export * from './languages.js';
export * from './read.js';
export * from './write.js';
export * from './transaction.js';
