import type { ModuleManifest } from '../../deps.js';
import { endUserActivityEffect } from './activity-effect.js';
import { moveItemStates } from './item-states.js';
import { endUserRoutes } from './routes.js';

/**
 * End users of the tenants' apps: created and kept seen by event processing (activity-effect.ts),
 * identified and merged by identify (identify.ts, with every module's merger), and resolved from
 * a userId or anonymousId by one SQL rule (`end_user_of`, migration 0021).
 */
export const endUsersModule: ModuleManifest = {
  name: 'end-users',
  routes: endUserRoutes,
  tags: [{ name: 'end-users', description: "The tenant's end users: list, detail and export" }],
  effects: [endUserActivityEffect],
  endUserMergers: [moveItemStates],
};

// The surface other modules use.
export type { EndUserMerger } from './contract.js';
export { identifyEndUser } from './identify.js';
export { findEndUserRef, findEndUsersOfUserIds } from './store.js';
