export { contentSync as default } from './plugin.js';
