import type { ModuleManifest } from '../../deps.js';
import { auditRoutes } from './routes.js';

export const auditModule: ModuleManifest = {
  name: 'audit',
  routes: auditRoutes,
  tags: [{ name: 'audit', description: "The tenant's audit trail" }],
};
