export {
  sync,
  syncClient,
  hasSnapshot,
  SyncError,
  type SyncOptions,
  type SyncProgress,
  type SyncResult,
} from './sync.js';
export { isAssetEvent, parseWebhookEvent, WebhookEventError, type WebhookEvent } from './events.js';
export { receiveWebhook } from './intake.js';
export { AssetSyncError, type AssetSyncOptions } from './assets.js';
