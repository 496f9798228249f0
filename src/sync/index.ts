export {
  sync,
  syncClient,
  hasSnapshot,
  type SyncOptions,
  type SyncProgress,
  type SyncResult,
} from './sync.js';
export { SyncError } from './sync-error.js';
export { refuseForeignDirectory } from './destination.js';
export { isAssetEvent, parseWebhookEvent, WebhookEventError, type WebhookEvent } from './events.js';
export { receiveWebhook } from './intake.js';
export { AssetSyncError, type AssetSyncOptions } from './assets.js';
