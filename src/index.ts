export { contentSync, type ContentSyncOptions, type ContentSyncApi } from './vite/index.js';
export { sync, type SyncOptions, type SyncResult } from './sync/index.js';
export { compile, type CompileOptions, type CompileResult } from './compile/index.js';
export { default } from './vite/default.js';
