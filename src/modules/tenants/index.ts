import type { ModuleManifest } from '../../deps.js';
import { tenantRoutes } from './routes.js';

export const tenantsModule: ModuleManifest = {
  name: 'tenants',
  routes: tenantRoutes,
  tags: [{ name: 'tenants', description: 'The current company, its members and invites' }],
};

// The surface other modules use: provisioning a tenant at sign-up, and what signing in and
// accepting an invite (auth) need of memberships.
export { findInvite, type Invite, type Joined, joinByInvite } from './join.js';
export { provisionTenant } from './provision.js';
export { findAcceptedMembership, listOwnerEmails } from './store/members.js';
export { findTenantRef, type TenantRef } from './store/tenants.js';
