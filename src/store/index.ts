export { fleetSync, type FleetOptions, type FleetResult } from './fleet.js';
export { ObjectStore } from './s3.js';
export { prune } from './prune.js';
