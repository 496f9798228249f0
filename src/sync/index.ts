export { sync, hasSnapshot, SyncError, type SyncOptions, type SyncProgress, type SyncResult } from './sync.js';
export { parseWebhookEvent, WebhookEventError, type WebhookEvent } from './events.js';
export { INDEX_FILES, type StoryIndexEntry, type DatasourceIndexEntry, type View } from './records.js';
export { indexRowOf, loadState, readState, rememberedState, scanIndexRows, type IndexRow, type SnapshotState } from './state.js';
export { receiveWebhook, type Intake } from './intake.js';
