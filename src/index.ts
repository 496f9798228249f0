export { contentSync, type ContentSyncOptions, type ContentSyncApi } from './vite/index.js';
export { sync, type SyncOptions, type SyncResult } from './sync/index.js';
export { compile, type CompileOptions, type CompileResult } from './compile/index.js';
export { default } from './vite/default.js';

// What each part throws, for `instanceof` in scripts and build tools.
export { OptionsError, PipelineError } from './vite/index.js';
export { ContentApiError, SchemaError } from './client/index.js';
export { SyncError, WebhookEventError, AssetSyncError } from './sync/index.js';
export { DamagedSnapshotError } from './compile/story.js';
export { SnapshotWriteError, SpaceDirectoryError } from './snapshot/index.js';
export { SnapshotBusyError, SnapshotLockedError } from './snapshot/lock.js';
