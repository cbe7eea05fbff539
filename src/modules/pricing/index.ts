import type { ModuleManifest } from '../../deps.js';
import { pricingRoutes } from './routes.js';

export const pricingModule: ModuleManifest = {
  name: 'pricing',
  routes: pricingRoutes,
  tags: [
    { name: 'pricing', description: "Plans, the tenant's subscription and usage" },
    { name: 'admin', description: 'Platform administration (platform admin token)' },
  ],
};

export type { PlanFeatureKey } from './enforce.js';
// The surface other modules use.
export { assertFeatureEnabled, assertPlanAllows, decide, getTenantPlan } from './enforce.js';
export { countUsage } from './store.js';
export { createSubscription, listTenantRetention, loadSubscription } from './subscription.js';
