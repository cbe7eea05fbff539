import type { ModuleManifest } from '../../deps.js';
import { tenantRoutes } from './routes.js';

export const tenantsModule: ModuleManifest = {
  name: 'tenants',
  routes: tenantRoutes,
  tags: [{ name: 'tenants', description: 'The current company, its members and invites' }],
};

// The surface other modules use.
export { provisionTenant } from './provision.js';
