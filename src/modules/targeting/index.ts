import type { ModuleManifest } from '../../deps.js';
import { targetingRetentionJob } from './jobs.js';
import { targetLookupsEffect } from './lookups-effect.js';
import { targetingRoutes } from './routes.js';

/**
 * Targeting that survives the customer's deploys (issue 40), the service's side: TARGET_LOOKUP
 * reports become target health and served fingerprints (lookups-effect.ts; the rules in
 * engine/health.ts), the health routes and "needs attention" list (health-service.ts), and the
 * element picker's pick tokens (pick-service.ts). See docs/targeting.md.
 */
export const targetingModule: ModuleManifest = {
  name: 'targeting',
  routes: targetingRoutes,
  tags: [{ name: 'targeting', description: 'Target health, suggested selectors and element-picker tokens' }],
  effects: [targetLookupsEffect],
  jobs: [targetingRetentionJob],
};

// The surface other modules use: the rule that decides "broken" (for the `target.broken` webhook).
export { attentionOf, type Counts, isTargetBroken } from './engine/health.js';
