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
