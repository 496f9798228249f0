export {
  ContentService,
  startServer,
  DEFAULT_PREVIEW_TOKEN,
  DEFAULT_PUBLIC_TOKEN,
  type RunningServer,
  type ServiceOptions,
  type WebhookTarget,
} from './app.js';
export {
  SpaceStore,
  StoreError,
  type ChangeEvent,
  type Selection,
  type StoryInput,
  type DatasourceInput,
} from './store.js';
export { parseFaultSpec, FaultSpecError, FAULT_KINDS, type FaultPlan, type FaultKind } from './faults.js';
export { requestCost, tierRate, RateLimiter } from './rate-limiter.js';
export { signWebhook, verifyWebhook, webhookPayload, type WebhookPayload } from './webhooks.js';
export type { RequestStats } from './admin.js';
// A space directory (`content-sync demo`, a synced snapshot) for `space`, as `content-sync serve` reads it.
export { readSpaceDirectory } from '../snapshot/read.js';
export { SpaceDirectoryError } from '../snapshot/index.js';
