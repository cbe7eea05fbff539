import type { ModuleManifest } from '../../deps.js';
import { healthRoutes } from './routes.js';

export const healthModule: ModuleManifest = {
  name: 'health',
  routes: healthRoutes,
  tags: [{ name: 'health', description: 'Liveness and dependency checks (load balancers)' }],
};
