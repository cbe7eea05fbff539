import type { ModuleManifest } from '../../deps.js';
import { analyticsRollupsEffect } from './rollups-effect.js';
import { analyticsRoutes } from './routes.js';

export const analyticsModule: ModuleManifest = {
  name: 'analytics',
  routes: analyticsRoutes,
  tags: [{ name: 'analytics', description: 'Reports over processed events' }],
  effects: [analyticsRollupsEffect],
};
