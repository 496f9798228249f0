export { sync, hasSnapshot, SyncError, type SyncOptions, type SyncProgress, type SyncResult } from './sync.js';
export { parseWebhookEvent, WebhookEventError, type WebhookEvent } from './events.js';
export { type View } from './records.js';
export { receiveWebhook, type Intake } from './intake.js';
export { AssetSyncError, type AssetSyncOptions, type AssetSyncResult, type AssetFailure } from './assets.js';
