export { type FleetOptions, type FleetResult, fleetSync } from './fleet.js';
export { prune } from './prune.js';
export { ObjectStore } from './s3.js';
